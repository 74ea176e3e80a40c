/**
 * The persisted state of one Lightning send (JSON: amounts as decimal strings, bytes as hex), and
 * its phase as barkd names it in `LightningSendInfo.state`.
 */
import { fromHex, sha256, toHex } from "@tender/ark-protocol";

export type LightningSendPhase = "start" | "htlc-received" | "payment-initiated" | "revocable-htlcs" | "revocation-stuck" | "paid" | "revoked";

export interface LightningSendState {
  invoice: string;
  paymentHash: string;
  /** What the payee gets. */
  amountSat: string;
  /** The Lightning-send fee the HTLCs carry on top of the amount. */
  feeSat: string;
  inputIds: string[];
  /** Index of the HTLC/change key H. */
  htlcKeyIndex: number;
  changeAmounts: string[];
  htlcExpiry: number;
  phase: LightningSendPhase;
  movementId: number | null;
  /** The cosigned HTLC VTXOs and change (hex), saved before anything else happens with them. */
  htlcs: string[] | null;
  change: string[] | null;
  /** Index of the revocation key R, derived before the revocation is asked for. */
  revocationKeyIndex: number | null;
  /** The cosigned revocation VTXOs (hex). */
  revoked: string[] | null;
  preimage: string | null;
  /**
   * The server's refusal of `InitiateLightningPayment`, when it refused: no payment attempt holds
   * these HTLCs, so the server's status and settlement of this payment hash are another payer's.
   */
  initiateRefused?: string;
  /**
   * Set when the server reported this payment hash paid while this send's HTLC VTXOs were still
   * spendable on the server: the success is another payer's. The HTLCs are asked back (or exited),
   * never recorded as paid on the server's word.
   */
  paidByAnother?: string;
  /** Why the current step waits (server unreachable, revocation refused), for logs and the caller's answer. */
  lastError?: string;
}

/** A preimage the server gave for this send (hex), if it hashes to the payment hash. */
export function checkedPreimage(s: LightningSendState, preimage: Uint8Array | string | undefined): string | undefined {
  if (preimage === undefined) return undefined;
  const bytes = typeof preimage === "string" ? fromHex(preimage) : preimage;
  return toHex(sha256(bytes)) === s.paymentHash ? toHex(bytes) : undefined;
}
