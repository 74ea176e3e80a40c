/**
 * A simulated Lightning network for the devnet: one payee node that mints real, signed BOLT11
 * invoices, and the Ark server's own node that pays them ({@link LightningBackend}).
 *
 * | Invoice kind | A payment of it |
 * |---|---|
 * | `normal` | settles after the routing delay and reveals the preimage |
 * | `hold` | is held (pending) until the test settles or cancels it |
 * | `unroutable` | fails: its payee has no channel |
 *
 * Routing charges `baseFeeMsat + feePpm × amount / 10⁶` (nothing by default: a direct channel) and locks the payment for
 * `min_final_cltv_expiry_delta + routeCltvDelta` blocks; a payment whose fee or delay exceeds its
 * budget fails, as does a second payment of a settled invoice. The block height is the chain's.
 * State lives in memory, for the devnet's lifetime (an Ark server restart keeps it).
 *
 * The server's node also issues hold invoices ({@link LightningHoldInvoiceBackend}, for
 * Lightning receive, in {@link SimulatedHoldInvoices}); a test pays them as an external payer
 * through {@link SimulatedHoldInvoices.payExternally}, and a payment the server's node makes of
 * its own invoice is held there as well.
 *
 * @example
 * ```ts
 * const ln = new SimulatedLightningNetwork({ tipHeight: async () => node.tipHeight() });
 * const { invoice } = ln.createInvoice({ amountSat: 10_000n, description: "coffee" });
 * ```
 */
import { randomBytes } from "node:crypto";
import { sha256 } from "@noble/hashes/sha2.js";
import { secp256k1 } from "@noble/curves/secp256k1.js";
import { toHex } from "@tender/ark-protocol";
import { encodeBolt11, type Bolt11Network } from "./bolt11-codec.js";
import { decodePayable, SimulatedOffers } from "./simulated-offers.js";
import { LightningBackendError, type HoldInvoice, type LightningBackend, type LightningHoldInvoiceBackend, type LightningPay, type LightningPayRequest } from "./lightning-backend.js";
import { SimulatedHoldInvoices } from "./hold-invoices.js";

/** How a payment of an invoice ends. */
export type SimulatedInvoiceKind = "normal" | "hold" | "unroutable";

/** Routing of the simulated network. */
export interface SimulatedRouting {
  readonly baseFeeMsat: bigint;
  readonly feePpm: bigint;
  /** Milliseconds from `pay` to the outcome. */
  readonly delayMs: number;
  /** CLTV blocks the route adds to the invoice's final delta. */
  readonly routeCltvDelta: number;
}

/** Default routing: a direct channel (no fee), 50 ms, 40 blocks. */
export const DEFAULT_ROUTING: SimulatedRouting = { baseFeeMsat: 0n, feePpm: 0n, delayMs: 50, routeCltvDelta: 40 };

/** Options of {@link SimulatedLightningNetwork}. */
export interface SimulatedLightningOptions {
  /** The chain's height. */
  readonly tipHeight: () => Promise<number> | number;
  readonly network?: Bolt11Network;
  readonly routing?: Partial<SimulatedRouting>;
  /** Unix seconds. */
  readonly nowSecs?: () => number;
}

/** What {@link SimulatedLightningNetwork.createInvoice} mints. */
export interface CreateInvoiceOptions {
  /** Whole sats (or give `amountMsat`); neither: an amountless invoice. */
  readonly amountSat?: bigint;
  readonly amountMsat?: bigint;
  readonly description?: string;
  /** Commit to a description by its SHA-256 instead (LNURL-pay invoices commit to the pay request's metadata). */
  readonly descriptionHash?: Uint8Array;
  readonly kind?: SimulatedInvoiceKind;
  readonly expirySecs?: number;
  readonly minFinalCltvExpiryDelta?: number;
}

/** An invoice of the payee as the simulator keeps it. */
export interface SimulatedInvoice {
  readonly invoice: string;
  readonly paymentHash: string;
  readonly preimage: string;
  readonly kind: SimulatedInvoiceKind;
  readonly amountMsat: bigint | undefined;
  /** `unpaid` → `held` (hold invoices) → `paid`, or `canceled`. */
  state: "unpaid" | "held" | "paid" | "canceled";
  /** What the payee received. */
  receivedMsat: bigint;
}

interface PayRecord {
  pay: LightningPay;
  invoice: SimulatedInvoice | undefined;
  feeMsat: bigint;
}

const key = (seed: string) => sha256(new TextEncoder().encode(seed));

/** The simulated network and the Ark server's node on it. */
export class SimulatedLightningNetwork implements LightningBackend, LightningHoldInvoiceBackend {
  readonly network: Bolt11Network;
  private routing: SimulatedRouting;
  private readonly payeeKey = key("tender-devnet-lightning-payee");
  private readonly unreachableKey = key("tender-devnet-lightning-unreachable");
  private readonly invoices = new Map<string, SimulatedInvoice>();
  private readonly pays = new Map<string, PayRecord[]>();
  private readonly listeners = new Set<(pay: LightningPay) => void>();
  private readonly timers = new Set<NodeJS.Timeout>();
  /** The payee's BOLT12 offers; invoices it issues for them are paid like its BOLT11 invoices. */
  readonly offers: SimulatedOffers;
  /** The server node's hold invoices (Lightning receive) and the external payer that pays them. */
  readonly holds: SimulatedHoldInvoices;

  constructor(private readonly opts: SimulatedLightningOptions) {
    this.network = opts.network ?? "regtest";
    this.routing = { ...DEFAULT_ROUTING, ...opts.routing };
    this.offers = new SimulatedOffers(this.network, this.payeeKey, () => this.now(), (i) => {
      this.invoices.set(i.paymentHash, { invoice: i.invoice, paymentHash: i.paymentHash, preimage: i.preimage, kind: "normal", amountMsat: i.amountMsat, state: "unpaid", receivedMsat: 0n });
    });
    this.holds = new SimulatedHoldInvoices(this.network, key("tender-devnet-lightning-server-node"), async () => this.opts.tipHeight(), () => this.now());
  }

  /** The payee node's public key. */
  get payeeNodeId(): Uint8Array {
    return secp256k1.getPublicKey(this.payeeKey, true);
  }

  /** Current routing. */
  get routingSettings(): SimulatedRouting {
    return { ...this.routing };
  }

  /** Changes the routing (fees, delay, CLTV) for later payments. */
  setRouting(change: Partial<SimulatedRouting>): SimulatedRouting {
    this.routing = { ...this.routing, ...change };
    return this.routingSettings;
  }

  private now(): number {
    return this.opts.nowSecs ? this.opts.nowSecs() : Math.floor(Date.now() / 1000);
  }

  /** Mints a signed invoice of the payee (an unroutable one is signed by a node without channels). */
  createInvoice(o: CreateInvoiceOptions = {}): SimulatedInvoice {
    const kind = o.kind ?? "normal";
    const amountMsat = o.amountMsat ?? (o.amountSat !== undefined ? o.amountSat * 1000n : undefined);
    const preimage = randomBytes(32);
    const paymentHash = sha256(preimage);
    const invoice = encodeBolt11(
      {
        network: this.network, amountMsat, timestamp: this.now(), paymentHash, paymentSecret: randomBytes(32),
        ...(o.descriptionHash ? { descriptionHash: o.descriptionHash } : { description: o.description ?? "" }), expirySecs: o.expirySecs ?? 3600, minFinalCltvExpiryDelta: o.minFinalCltvExpiryDelta ?? 18,
      },
      kind === "unroutable" ? this.unreachableKey : this.payeeKey,
    );
    const record: SimulatedInvoice = { invoice, paymentHash: toHex(paymentHash), preimage: toHex(preimage), kind, amountMsat, state: "unpaid", receivedMsat: 0n };
    this.invoices.set(record.paymentHash, record);
    return record;
  }

  /** The payee's view of an invoice, by payment hash (hex). */
  invoice(paymentHash: string): SimulatedInvoice | undefined {
    return this.invoices.get(paymentHash.toLowerCase());
  }

  /** Settles a held payment of a hold invoice (the payee reveals the preimage). */
  settleHold(paymentHash: string): void {
    const inv = this.heldInvoice(paymentHash);
    inv.state = "paid";
    for (const r of this.pays.get(inv.paymentHash) ?? []) if (r.pay.status === "pending") this.complete(r, inv);
  }

  /** Cancels a held payment of a hold invoice (the payer gets its money back on Lightning). */
  cancelHold(paymentHash: string): void {
    const inv = this.heldInvoice(paymentHash);
    inv.state = "canceled";
    for (const r of this.pays.get(inv.paymentHash) ?? []) if (r.pay.status === "pending") this.fail(r, "payee canceled the payment");
  }

  private heldInvoice(paymentHash: string): SimulatedInvoice {
    const inv = this.invoice(paymentHash);
    if (!inv || inv.kind !== "hold") throw new LightningBackendError(`no hold invoice with payment hash ${paymentHash}`);
    if (inv.state !== "held") throw new LightningBackendError(`hold invoice ${paymentHash} has no held payment (state: ${inv.state})`);
    return inv;
  }

  /** Every payment the server's node made, newest last. */
  allPays(): LightningPay[] {
    return [...this.pays.values()].flat().map((r) => r.pay);
  }

  // ---- LightningBackend --------------------------------------------------------------

  async tipHeight(): Promise<number> {
    return this.opts.tipHeight();
  }

  async pay(req: LightningPayRequest): Promise<void> {
    let decoded;
    try {
      decoded = decodePayable(req.invoice);
    } catch (e) {
      throw new LightningBackendError(`invalid invoice: ${(e as Error).message}`);
    }
    if (decoded.network !== this.network) throw new LightningBackendError(`invoice is for ${decoded.network}, the node runs on ${this.network}`);
    if (decoded.amountMsat !== undefined && req.amountMsat !== undefined && req.amountMsat !== decoded.amountMsat) {
      throw new LightningBackendError("amount given for an invoice that has one");
    }
    const amountMsat = decoded.amountMsat ?? req.amountMsat;
    if (amountMsat === undefined) throw new LightningBackendError("amount required for an invoice without one");
    const hash = toHex(decoded.paymentHash);
    if (this.holds.isOwnNode(decoded.payee)) return this.payOwnHoldInvoice(req, decoded.minFinalCltvExpiryDelta, amountMsat, decoded.paymentHash);
    const inv = this.invoices.get(hash);
    const feeMsat = this.routing.baseFeeMsat + (amountMsat * this.routing.feePpm) / 1_000_000n;
    const record: PayRecord = { pay: { paymentHash: decoded.paymentHash, status: "pending", amountMsat }, invoice: inv, feeMsat };
    const list = this.pays.get(hash) ?? [];
    list.push(record);
    this.pays.set(hash, list);
    this.emit(record.pay);
    const routeDelay = decoded.minFinalCltvExpiryDelta + this.routing.routeCltvDelta;
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      if (!inv || inv.kind === "unroutable") return this.fail(record, "no route: the payee has no channel");
      if (feeMsat > req.maxFeeMsat) return this.fail(record, `no route within the fee budget: ${feeMsat} msat needed, ${req.maxFeeMsat} msat allowed`);
      if (routeDelay > req.maxDelay) return this.fail(record, `no route within the delay budget: ${routeDelay} blocks needed, ${req.maxDelay} allowed`);
      if (inv.state !== "unpaid") return this.fail(record, `the payee refused the payment (invoice ${inv.state})`);
      if (inv.amountMsat !== undefined && amountMsat < inv.amountMsat) return this.fail(record, "the payee refused the payment (amount too low)");
      if (inv.kind === "hold") {
        inv.state = "held";
        inv.receivedMsat = amountMsat;
        return;
      }
      inv.state = "paid";
      this.complete(record, inv);
    }, this.routing.delayMs);
    this.timers.add(timer);
  }

  /** A payment of one of the node's own hold invoices: its HTLC is held there until settled or cancelled. */
  private async payOwnHoldInvoice(req: LightningPayRequest, minFinal: number, amountMsat: bigint, paymentHash: Uint8Array): Promise<void> {
    const hash = toHex(paymentHash);
    const routeDelay = minFinal + this.routing.routeCltvDelta;
    if (routeDelay > req.maxDelay) throw new LightningBackendError(`no route within the delay budget: ${routeDelay} blocks needed, ${req.maxDelay} allowed`);
    const record: PayRecord = { pay: { paymentHash, status: "pending", amountMsat }, invoice: undefined, feeMsat: 0n };
    this.holds.holdOwnPayment(req.invoice, (await this.tipHeight()) + routeDelay, (preimage) => {
      if (preimage) {
        record.pay = { ...record.pay, status: "complete", preimage, amountSentMsat: amountMsat };
        this.emit(record.pay);
      } else {
        this.fail(record, "payee canceled the payment");
      }
    });
    const list = this.pays.get(hash) ?? [];
    list.push(record);
    this.pays.set(hash, list);
    this.emit(record.pay);
  }

  // ---- LightningHoldInvoiceBackend (the server node's hold invoices) ---------------------

  createHoldInvoice(r: { paymentHash: Uint8Array; amountMsat: bigint; minFinalCltvExpiry: number; expirySecs: number; description: string }): Promise<string> {
    return this.holds.createHoldInvoice(r);
  }

  injectHoldInvoice(invoice: string): Promise<void> {
    return this.holds.injectHoldInvoice(invoice);
  }

  listHoldInvoices(paymentHash: Uint8Array): Promise<HoldInvoice[]> {
    return this.holds.listHoldInvoices(paymentHash);
  }

  onHoldInvoiceUpdate(listener: (invoice: HoldInvoice) => void): () => void {
    return this.holds.onHoldInvoiceUpdate(listener);
  }

  settleHoldInvoice(preimage: Uint8Array): Promise<void> {
    return this.holds.settleHoldInvoice(preimage);
  }

  cancelHoldInvoice(paymentHash: Uint8Array): Promise<void> {
    return this.holds.cancelHoldInvoice(paymentHash);
  }

  async listPays(paymentHash: Uint8Array): Promise<LightningPay[]> {
    return (this.pays.get(toHex(paymentHash)) ?? []).map((r) => r.pay);
  }

  onPayUpdate(listener: (pay: LightningPay) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  async fetchInvoice(offer: Uint8Array, amountMsat?: bigint): Promise<Uint8Array> {
    return this.offers.fetchInvoice(offer, amountMsat);
  }

  /** Stops pending timers (the devnet is shutting down). */
  close(): void {
    for (const t of this.timers) clearTimeout(t);
    this.timers.clear();
    this.listeners.clear();
    this.holds.close();
  }

  private complete(r: PayRecord, inv: SimulatedInvoice): void {
    inv.receivedMsat = r.pay.amountMsat;
    r.pay = { ...r.pay, status: "complete", preimage: Uint8Array.from(Buffer.from(inv.preimage, "hex")), amountSentMsat: r.pay.amountMsat + r.feeMsat };
    this.emit(r.pay);
  }

  private fail(r: PayRecord, why: string): void {
    r.pay = { ...r.pay, status: "failed", failure: why };
    this.emit(r.pay);
  }

  private emit(pay: LightningPay): void {
    for (const l of [...this.listeners]) {
      try {
        l(pay);
      } catch {
        /* a listener's failure is its own */
      }
    }
  }
}
