/**
 * The devnet's controls of its simulated Lightning network, JSON in and out, mounted under the
 * control API at `/devnet/ln`:
 *
 * | Route | Does |
 * |---|---|
 * | `GET /status` | network, block height, the payee's node id, routing |
 * | `POST /invoices {amount_sat?, amount_msat?, description?, kind?, expiry_secs?, min_final_cltv_expiry_delta?}` | mints a signed BOLT11 invoice of the payee; `kind` `normal` (default), `hold` or `unroutable` |
 * | `GET /invoices/{payment_hash}` | the payee's view: state (`unpaid`, `held`, `paid`, `canceled`), amount received |
 * | `POST /invoices/{payment_hash}/settle`, `…/cancel` | settles or cancels a held payment of a hold invoice |
 * | `GET /routing`, `POST /routing {base_fee_msat?, fee_ppm?, delay_ms?, route_cltv_delta?}` | the routing fees, delay and CLTV of later payments |
 * | `GET /payments` | every payment the Ark server's node made (status, amount, amount sent, failure) |
 * | `POST /hold-invoices/pay {invoice, cltv_expiry?}` | an external payer pays a hold invoice of the Ark server's node, holding its HTLC with CLTV expiry `cltv_expiry` (absolute height; default tip + the invoice's final delta + the route's CLTV delta) |
 * | `GET /hold-invoices/{payment_hash}` | the server node's hold invoice (state `unpaid`, `accepted`, `paid`, `cancelled`, held HTLC expiries) and what its external payers see (`pending`, `succeeded` with the preimage, `refunded`) |
 *
 * Amounts in msat are JSON numbers or decimal strings. Bad input is 400, an unknown invoice 404,
 * a hold action on an invoice without a held payment 409; errors are plain text.
 */
import express, { Router, type NextFunction, type Request, type Response } from "express";
import { toHex } from "@tender/ark-protocol";
import { LightningBackendError, type LightningPay } from "./lightning-backend.js";
import type { ExternalPayment } from "./hold-invoices.js";
import type { SimulatedInvoice, SimulatedInvoiceKind, SimulatedLightningNetwork, SimulatedRouting } from "./simulated-network.js";

class ControlError extends Error {
  constructor(readonly status: number, message: string) {
    super(message);
  }
}

function body(req: Request): Record<string, unknown> {
  const b: unknown = req.body;
  if (b === undefined) return {};
  if (typeof b !== "object" || b === null || Array.isArray(b)) throw new ControlError(400, "the request body must be a JSON object");
  return b as Record<string, unknown>;
}

function amount(v: unknown, name: string): bigint | undefined {
  if (v === undefined || v === null) return undefined;
  if ((typeof v === "number" && Number.isSafeInteger(v) && v >= 0) || (typeof v === "string" && /^\d{1,20}$/.test(v))) return BigInt(v);
  throw new ControlError(400, `${name} must be a non-negative integer`);
}

function int(v: unknown, name: string): number | undefined {
  if (v === undefined || v === null) return undefined;
  if (typeof v === "number" && Number.isSafeInteger(v) && v >= 0) return v;
  throw new ControlError(400, `${name} must be a non-negative integer`);
}

const KINDS: readonly SimulatedInvoiceKind[] = ["normal", "hold", "unroutable"];

function invoiceJson(i: SimulatedInvoice): Record<string, unknown> {
  return {
    invoice: i.invoice, payment_hash: i.paymentHash, preimage: i.preimage, kind: i.kind, amount_msat: i.amountMsat?.toString() ?? null,
    state: i.state, received_msat: i.receivedMsat.toString(),
  };
}

function routingJson(r: SimulatedRouting): Record<string, unknown> {
  return { base_fee_msat: r.baseFeeMsat.toString(), fee_ppm: r.feePpm.toString(), delay_ms: r.delayMs, route_cltv_delta: r.routeCltvDelta };
}

function payJson(p: LightningPay): Record<string, unknown> {
  return {
    payment_hash: toHex(p.paymentHash), status: p.status, amount_msat: p.amountMsat.toString(),
    amount_sent_msat: p.amountSentMsat?.toString() ?? null, preimage: p.preimage ? toHex(p.preimage) : null, failure: p.failure ?? null,
  };
}

function externalJson(p: ExternalPayment): Record<string, unknown> {
  return { payment_hash: p.paymentHash, amount_msat: p.amountMsat.toString(), cltv_expiry: p.cltvExpiry, status: p.status, preimage: p.preimage };
}

/** The Lightning controls as an express router. */
export function lnControlRoutes(ln: SimulatedLightningNetwork): Router {
  const r = Router();
  r.use(express.json());
  const known = (hash: string): SimulatedInvoice => {
    const inv = ln.invoice(String(hash));
    if (!inv) throw new ControlError(404, `no invoice with payment hash ${String(hash).slice(0, 64)}`);
    return inv;
  };
  const wrap = (fn: (req: Request) => Promise<unknown> | unknown) => async (req: Request, res: Response, next: NextFunction) => {
    try {
      res.json(await fn(req));
    } catch (e) {
      if (e instanceof ControlError) res.status(e.status).type("text/plain").send(e.message);
      else if (e instanceof LightningBackendError) res.status(409).type("text/plain").send(e.message);
      else next(e);
    }
  };
  r.get("/status", wrap(async () => ({ network: ln.network, tip_height: await ln.tipHeight(), payee_node_id: toHex(ln.payeeNodeId), routing: routingJson(ln.routingSettings) })));
  r.post("/invoices", wrap((req) => {
    const b = body(req);
    const kind = (b.kind ?? "normal") as SimulatedInvoiceKind;
    if (!KINDS.includes(kind)) throw new ControlError(400, `kind must be one of ${KINDS.join(", ")}`);
    if (b.description !== undefined && typeof b.description !== "string") throw new ControlError(400, "description must be a string");
    const amountSat = amount(b.amount_sat, "amount_sat");
    const amountMsat = amount(b.amount_msat, "amount_msat");
    if (amountSat !== undefined && amountMsat !== undefined) throw new ControlError(400, "give amount_sat or amount_msat, not both");
    if (amountSat === 0n || amountMsat === 0n) throw new ControlError(400, "the amount must be positive (omit it for an amountless invoice)");
    const expirySecs = int(b.expiry_secs, "expiry_secs");
    const minFinal = int(b.min_final_cltv_expiry_delta, "min_final_cltv_expiry_delta");
    return invoiceJson(ln.createInvoice({
      kind, ...(amountSat !== undefined ? { amountSat } : {}), ...(amountMsat !== undefined ? { amountMsat } : {}),
      ...(typeof b.description === "string" ? { description: b.description } : {}),
      ...(expirySecs !== undefined ? { expirySecs } : {}), ...(minFinal !== undefined ? { minFinalCltvExpiryDelta: minFinal } : {}),
    }));
  }));
  r.get("/invoices/:hash", wrap((req) => invoiceJson(known(String(req.params.hash)))));
  r.post("/invoices/:hash/settle", wrap((req) => {
    ln.settleHold(known(String(req.params.hash)).paymentHash);
    return invoiceJson(known(String(req.params.hash)));
  }));
  r.post("/invoices/:hash/cancel", wrap((req) => {
    ln.cancelHold(known(String(req.params.hash)).paymentHash);
    return invoiceJson(known(String(req.params.hash)));
  }));
  r.get("/routing", wrap(() => routingJson(ln.routingSettings)));
  r.post("/routing", wrap((req) => {
    const b = body(req);
    const change: Partial<{ -readonly [K in keyof SimulatedRouting]: SimulatedRouting[K] }> = {};
    const base = amount(b.base_fee_msat, "base_fee_msat");
    const ppm = amount(b.fee_ppm, "fee_ppm");
    const delay = int(b.delay_ms, "delay_ms");
    const cltv = int(b.route_cltv_delta, "route_cltv_delta");
    if (base !== undefined) change.baseFeeMsat = base;
    if (ppm !== undefined) change.feePpm = ppm;
    if (delay !== undefined) change.delayMs = delay;
    if (cltv !== undefined) change.routeCltvDelta = cltv;
    return routingJson(ln.setRouting(change));
  }));
  r.get("/payments", wrap(() => ln.allPays().map(payJson)));
  r.post("/hold-invoices/pay", wrap(async (req) => {
    const b = body(req);
    if (typeof b.invoice !== "string" || b.invoice === "") throw new ControlError(400, "invoice must be a BOLT11 invoice of the Ark server's node");
    const cltvExpiry = int(b.cltv_expiry, "cltv_expiry");
    return externalJson(await ln.holds.payExternally(b.invoice, { routeCltvDelta: ln.routingSettings.routeCltvDelta, ...(cltvExpiry !== undefined ? { cltvExpiry } : {}) }));
  }));
  r.get("/hold-invoices/:hash", wrap(async (req) => {
    const hash = String(req.params.hash).toLowerCase();
    if (!/^[0-9a-f]{64}$/.test(hash)) throw new ControlError(400, "payment_hash must be 32 bytes of hex");
    const [inv] = await ln.holds.listHoldInvoices(Buffer.from(hash, "hex"));
    if (!inv) throw new ControlError(404, `no hold invoice with payment hash ${hash}`);
    return {
      payment_hash: hash, invoice: inv.invoice, state: inv.state, amount_msat: inv.amountMsat.toString(), held_htlc_expiries: inv.heldHtlcExpiries,
      external_payments: ln.holds.externalPayments(hash).map(externalJson),
    };
  }));
  return r;
}
