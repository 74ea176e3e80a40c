/**
 * The Ark server node's hold invoices on the simulated network (what the CLN hold-invoice plugin
 * does for captaind), and the external payer that pays them.
 *
 * | Hold invoice state | Means |
 * |---|---|
 * | `unpaid` | minted, nobody paid yet |
 * | `accepted` | a payer's HTLCs are held (with their CLTV expiries) |
 * | `paid` | the node settled with the preimage: the payer sees success |
 * | `cancelled` | cancelled: held HTLCs go back to the payer (refund) |
 *
 * Invoices are signed with the server node's key, so a wallet can check the signature and the
 * server can compare them byte for byte. A canceled invoice can be injected again (it becomes
 * `unpaid`). An external payment records what the payer sees: `pending` while held, `succeeded`
 * with the preimage, or `refunded`.
 */
import { randomBytes } from "node:crypto";
import { sha256 } from "@noble/hashes/sha2.js";
import { secp256k1 } from "@noble/curves/secp256k1.js";
import { bytesEqual, toHex } from "@tender/ark-protocol";
import { Bolt11Error, decodeBolt11, encodeBolt11, type Bolt11Network } from "./bolt11-codec.js";
import { LightningBackendError, type HoldInvoice, type LightningHoldInvoiceBackend } from "./lightning-backend.js";

/** What the external payer sees of one payment of a server hold invoice. */
export interface ExternalPayment {
  readonly paymentHash: string;
  readonly invoice: string;
  readonly amountMsat: bigint;
  /** CLTV expiry (absolute height) of the HTLC the payer holds out. */
  readonly cltvExpiry: number;
  status: "pending" | "succeeded" | "refunded";
  /** Hex, once succeeded. */
  preimage: string | null;
}

interface HoldRecord {
  invoice: string;
  paymentHash: Uint8Array;
  amountMsat: bigint;
  minFinalCltvExpiry: number;
  expiresAtSecs: number;
  state: HoldInvoice["state"];
  heldHtlcExpiries: number[];
  /** Called when the hold ends (settled with the preimage, or cancelled). */
  onEnd: ((preimage: Uint8Array | undefined) => void)[];
}

/** The server node's hold invoices and the external payer. */
export class SimulatedHoldInvoices implements LightningHoldInvoiceBackend {
  private readonly records = new Map<string, HoldRecord>();
  private readonly payments: ExternalPayment[] = [];
  private readonly listeners = new Set<(invoice: HoldInvoice) => void>();

  constructor(
    private readonly network: Bolt11Network,
    private readonly nodeKey: Uint8Array,
    private readonly tipHeight: () => Promise<number>,
    private readonly nowSecs: () => number,
  ) {}

  /** The server node's public key (the payee of its hold invoices). */
  get nodeId(): Uint8Array {
    return secp256k1.getPublicKey(this.nodeKey, true);
  }

  /** Whether `payee` is the server's node. */
  isOwnNode(payee: Uint8Array): boolean {
    return bytesEqual(payee, this.nodeId);
  }

  async createHoldInvoice(r: { paymentHash: Uint8Array; amountMsat: bigint; minFinalCltvExpiry: number; expirySecs: number; description: string }): Promise<string> {
    if (r.paymentHash.length !== 32) throw new LightningBackendError("payment hash must be 32 bytes");
    const hash = toHex(r.paymentHash);
    const existing = this.records.get(hash);
    if (existing && existing.state !== "cancelled") throw new LightningBackendError(`a hold invoice for ${hash} exists (state: ${existing.state})`);
    const timestamp = this.nowSecs();
    const invoice = encodeBolt11(
      { network: this.network, amountMsat: r.amountMsat, timestamp, paymentHash: r.paymentHash, paymentSecret: randomBytes(32), description: r.description, expirySecs: r.expirySecs, minFinalCltvExpiryDelta: r.minFinalCltvExpiry },
      this.nodeKey,
    );
    this.records.set(hash, { invoice, paymentHash: r.paymentHash, amountMsat: r.amountMsat, minFinalCltvExpiry: r.minFinalCltvExpiry, expiresAtSecs: timestamp + r.expirySecs, state: "unpaid", heldHtlcExpiries: [], onEnd: [] });
    return invoice;
  }

  async injectHoldInvoice(invoice: string): Promise<void> {
    const d = this.decodeOwn(invoice);
    const hash = toHex(d.paymentHash);
    const existing = this.records.get(hash);
    if (existing && existing.state !== "cancelled") return;
    if (d.amountMsat === undefined) throw new LightningBackendError("hold invoices need an amount");
    this.records.set(hash, { invoice, paymentHash: d.paymentHash, amountMsat: d.amountMsat, minFinalCltvExpiry: d.minFinalCltvExpiryDelta, expiresAtSecs: d.timestamp + d.expirySecs, state: "unpaid", heldHtlcExpiries: [], onEnd: [] });
    this.emit(this.records.get(hash)!);
  }

  async listHoldInvoices(paymentHash: Uint8Array): Promise<HoldInvoice[]> {
    const r = this.records.get(toHex(paymentHash));
    return r ? [view(r)] : [];
  }

  onHoldInvoiceUpdate(listener: (invoice: HoldInvoice) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  async settleHoldInvoice(preimage: Uint8Array): Promise<void> {
    const hash = toHex(sha256(preimage));
    const r = this.records.get(hash);
    if (!r) throw new LightningBackendError(`no hold invoice with payment hash ${hash}`);
    if (r.state === "paid") return;
    if (r.state !== "accepted") throw new LightningBackendError(`hold invoice ${hash} cannot be settled (state: ${r.state})`);
    r.state = "paid";
    for (const p of this.payments) if (p.paymentHash === hash && p.status === "pending") Object.assign(p, { status: "succeeded", preimage: toHex(preimage) });
    this.end(r, preimage);
  }

  async cancelHoldInvoice(paymentHash: Uint8Array): Promise<void> {
    const hash = toHex(paymentHash);
    const r = this.records.get(hash);
    if (!r) throw new LightningBackendError(`no hold invoice with payment hash ${hash}`);
    if (r.state === "cancelled") return;
    if (r.state === "paid") throw new LightningBackendError(`hold invoice ${hash} is already settled`);
    r.state = "cancelled";
    r.heldHtlcExpiries = [];
    for (const p of this.payments) if (p.paymentHash === hash && p.status === "pending") p.status = "refunded";
    this.end(r, undefined);
  }

  // ---- payers ---------------------------------------------------------------------------

  /**
   * Pays a server hold invoice from outside the Ark (an external payer): the HTLC is held with
   * CLTV expiry `cltvExpiry` (default: tip + the invoice's final delta + `routeCltvDelta`), the
   * invoice becomes `accepted`.
   */
  async payExternally(invoice: string, opts: { cltvExpiry?: number; routeCltvDelta: number }): Promise<ExternalPayment> {
    const r = this.acceptable(invoice);
    const cltvExpiry = opts.cltvExpiry ?? (await this.tipHeight()) + r.minFinalCltvExpiry + opts.routeCltvDelta;
    const payment: ExternalPayment = { paymentHash: toHex(r.paymentHash), invoice: r.invoice, amountMsat: r.amountMsat, cltvExpiry, status: "pending", preimage: null };
    this.payments.push(payment);
    this.hold(r, cltvExpiry);
    return payment;
  }

  /**
   * The server's own node paying one of its hold invoices (no shortcut was taken): the HTLC is
   * held like an external one and `onEnd` learns the outcome.
   */
  holdOwnPayment(invoice: string, cltvExpiry: number, onEnd: (preimage: Uint8Array | undefined) => void): void {
    const r = this.acceptable(invoice);
    r.onEnd.push(onEnd);
    this.hold(r, cltvExpiry);
  }

  /** The external payments of a hash (hex), oldest first. */
  externalPayments(paymentHash: string): ExternalPayment[] {
    return this.payments.filter((p) => p.paymentHash === paymentHash.toLowerCase());
  }

  /** Every hold invoice of the node (for the controls). */
  all(): HoldInvoice[] {
    return [...this.records.values()].map(view);
  }

  close(): void {
    this.listeners.clear();
  }

  private acceptable(invoice: string): HoldRecord {
    const d = this.decodeOwn(invoice);
    const r = this.records.get(toHex(d.paymentHash));
    if (!r || r.invoice !== invoice) throw new LightningBackendError("unknown invoice: the node did not issue it");
    if (r.state !== "unpaid") throw new LightningBackendError(`the payee refused the payment (invoice ${r.state})`);
    if (this.nowSecs() >= r.expiresAtSecs) throw new LightningBackendError("the payee refused the payment (invoice expired)");
    return r;
  }

  private hold(r: HoldRecord, cltvExpiry: number): void {
    r.state = "accepted";
    r.heldHtlcExpiries = [cltvExpiry];
    this.emit(r);
  }

  private end(r: HoldRecord, preimage: Uint8Array | undefined): void {
    const ends = r.onEnd.splice(0);
    for (const f of ends) f(preimage);
    this.emit(r);
  }

  private decodeOwn(invoice: string) {
    let d;
    try {
      d = decodeBolt11(invoice);
    } catch (e) {
      throw new LightningBackendError(`invalid invoice: ${e instanceof Bolt11Error ? e.message : String(e)}`);
    }
    if (!this.isOwnNode(d.payee)) throw new LightningBackendError("the invoice is not the server node's");
    return d;
  }

  private emit(r: HoldRecord): void {
    const v = view(r);
    for (const l of [...this.listeners]) {
      try {
        l(v);
      } catch {
        /* a listener's failure is its own */
      }
    }
  }
}

function view(r: HoldRecord): HoldInvoice {
  return { paymentHash: r.paymentHash, invoice: r.invoice, state: r.state, amountMsat: r.amountMsat, heldHtlcExpiries: [...r.heldHtlcExpiries] };
}
