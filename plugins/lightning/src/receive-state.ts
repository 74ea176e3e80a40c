/**
 * The persisted state of one Lightning receive (JSON: amounts as decimal strings, bytes as hex),
 * and its phase as barkd names it in `LightningReceiveInfo.state`.
 */
export type LightningReceivePhase = "awaiting-payment" | "htlcs-ready" | "preimage-revealed" | "delivering" | "settled";

export interface LightningReceiveState {
  /** The preimage (hex), generated and saved before the server is asked for the invoice. */
  preimage: string;
  paymentHash: string;
  /** The invoice amount. */
  amountSat: string;
  description: string | null;
  /** Anti-DoS token given at creation, preferred over a VTXO ownership proof. */
  token: string | null;
  /**
   * Index of the key the HTLC-recv VTXOs are granted to (and the claimed VTXO is paid to); derived
   * and saved when the payer's HTLCs are held, before the grant is asked for, so a refused or
   * never-paid invoice uses no key.
   */
  keyIndex: number | null;
  /** Smallest final CLTV delta asked of the invoice. */
  minCltvDelta: number;
  /** Ark address the claimed VTXO goes to instead of this wallet (receive-for-address). */
  claimAddress: string | null;
  createdAtMs: number;
  phase: LightningReceivePhase;
  /** The server's BOLT11 invoice; null until the server answered. */
  invoice: string | null;
  /**
   * Seconds after the invoice's timestamp the caller wants it to expire (the `expiry_secs`
   * extension), at most the server's own invoice expiry; null (or absent in receives saved
   * before the extension) = the server's.
   */
  expirySecs?: number | null;
  /** When the invoice expires (ms since 1970): the caller's expiry if given, else the server's. */
  invoiceExpiresAtMs: number | null;
  /** HTLC-recv expiry asked for, fixed before the first grant request so a repeated request checks the same bound. */
  requestedHtlcExpiry: number | null;
  /** The granted HTLC-recv VTXOs (hex), validated, saved before they are stored. */
  htlcs: string[] | null;
  movementId: number | null;
  /** Claim attempts that failed after the preimage was revealed. */
  claimAttempts: number;
  /** The cosigned claim outputs (hex), saved before they are stored or delivered. */
  claimed: string[] | null;
  settledAtMs: number | null;
  /** Why the current step waits, for logs and answers. */
  lastError?: string;
}
