/**
 * The Lightning node as the reference Ark server uses it (captaind talks to Core Lightning and its
 * hold-invoice plugin). The send side is {@link LightningBackend}: the node's tip, paying an
 * invoice fire-and-forget with a fee and delay budget (`xpay`), the payments it made for a hash
 * (`listpays`) and their updates as they happen (the `sendpay` event stream), and fetching a
 * BOLT12 invoice for an offer (`fetchinvoice`). The devnet implements it with
 * {@link SimulatedLightningNetwork}; a Core Lightning adapter implements the same calls over gRPC.
 *
 * The receive side (hold invoices for `StartLightningReceive` and friends) is
 * {@link LightningHoldInvoiceBackend}; a backend offers both.
 */

/** One payment the node made (or is making) for a payment hash. */
export interface LightningPay {
  /** 32 bytes. */
  readonly paymentHash: Uint8Array;
  readonly status: "pending" | "complete" | "failed";
  /** Present when complete. */
  readonly preimage?: Uint8Array;
  /** What the payee gets. */
  readonly amountMsat: bigint;
  /** What left the node (amount plus routing fees); set once complete. */
  readonly amountSentMsat?: bigint;
  /** Why it failed, as the node says it. */
  readonly failure?: string;
}

/** `xpay`: what to pay and within which budget. */
export interface LightningPayRequest {
  /** BOLT11 invoice, or a BOLT12 invoice (bech32 `lni1…`). */
  readonly invoice: string;
  /** The amount for an invoice without one (must be absent when the invoice has one). */
  readonly amountMsat?: bigint;
  /** Most routing fee the node may pay. */
  readonly maxFeeMsat: bigint;
  /** Most CLTV delay (blocks) the route may lock the payment for. */
  readonly maxDelay: number;
  /** How long the node keeps retrying routes, in seconds. */
  readonly retryForSecs: number;
}

/** The send side of a Lightning node. */
export interface LightningBackend {
  /** The node's block height (follows the chain). */
  tipHeight(): Promise<number>;
  /** Starts paying; resolves once the node took the payment (its outcome comes through {@link listPays} / {@link onPayUpdate}). Throws when the node refuses it outright. */
  pay(request: LightningPayRequest): Promise<void>;
  /** Every payment the node made for this hash, oldest first. */
  listPays(paymentHash: Uint8Array): Promise<LightningPay[]>;
  /** Calls `listener` on every change of a payment; returns the unsubscribe function. */
  onPayUpdate(listener: (pay: LightningPay) => void): () => void;
  /** A BOLT12 invoice (raw TLV bytes) for the offer (raw TLV bytes), for `amountMsat` or the offer's amount. */
  fetchInvoice(offer: Uint8Array, amountMsat?: bigint): Promise<Uint8Array>;
}

/** A hold invoice as the node holds it. */
export interface HoldInvoice {
  readonly paymentHash: Uint8Array;
  readonly invoice: string;
  readonly state: "unpaid" | "accepted" | "paid" | "cancelled";
  readonly amountMsat: bigint;
  /** CLTV expiries of the payer's held HTLCs (while accepted). */
  readonly heldHtlcExpiries: readonly number[];
}

/**
 * The receive side of a Lightning node (the CLN hold-invoice plugin): create, re-inject, list,
 * track, settle and cancel hold invoices. Not used by the send side; a Lightning receive
 * implementation adds it to the backend.
 */
export interface LightningHoldInvoiceBackend {
  createHoldInvoice(request: { paymentHash: Uint8Array; amountMsat: bigint; minFinalCltvExpiry: number; expirySecs: number; description: string }): Promise<string>;
  injectHoldInvoice(invoice: string): Promise<void>;
  listHoldInvoices(paymentHash: Uint8Array): Promise<HoldInvoice[]>;
  onHoldInvoiceUpdate(listener: (invoice: HoldInvoice) => void): () => void;
  settleHoldInvoice(preimage: Uint8Array): Promise<void>;
  cancelHoldInvoice(paymentHash: Uint8Array): Promise<void>;
}

/** The backend refused a call (unknown invoice, bad offer, …). */
export class LightningBackendError extends Error {}
