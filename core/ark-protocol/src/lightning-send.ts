/**
 * Lightning send, the pure parts both the wallet and the server use: the HTLC package's outputs
 * (one `server-htlc-send` destination of amount + fee, then change to the HTLC key), the
 * revocation package's outputs (every HTLC VTXO back to one pubkey, one output per input), the
 * amount rules of an invoice, and the server's routing budget.
 *
 * @example
 * ```ts
 * const outputs = htlcSendOutputs({ amountSat: 10_000n, feeSat: 85n, userPubkey: H, paymentHash, htlcExpiry: tip + 258, change: [5_000n] });
 * const pkg = buildArkoorPackage(inputs, outputs);                              // checkpoints, as the server requires
 * const back = buildArkoorPackage(htlcVtxos, revocationOutputs(htlcVtxos, R), { requirePubkeyInputs: false });
 * ```
 */
import { ProtocolError } from "./errors.js";
import type { ArkoorDestination } from "./arkoor-allocation.js";
import type { HtlcSendPolicy, VtxoPolicy } from "./policy.js";
import type { Vtxo } from "./vtxo.js";
import { bytesEqual } from "./encoding.js";

/** A Lightning send refused by its amount or its HTLCs (texts as bark's). */
export class LightningSendError extends ProtocolError {}

/** The HTLC policy of a Lightning send (the v1 hash lock, the only kind new sends create). */
export function htlcSendPolicy(userPubkey: Uint8Array, paymentHash: Uint8Array, htlcExpiry: number): HtlcSendPolicy {
  if (paymentHash.length !== 32) throw new LightningSendError("payment hash must be 32 bytes");
  return { type: "server-htlc-send-v1", userPubkey, paymentHash, htlcExpiry };
}

/** What {@link htlcSendOutputs} builds from. */
export interface HtlcSendOutputsInput {
  readonly amountSat: bigint;
  readonly feeSat: bigint;
  /** The HTLC/change key H. */
  readonly userPubkey: Uint8Array;
  readonly paymentHash: Uint8Array;
  readonly htlcExpiry: number;
  /** Change pieces, each paid to `pubkey(H)`. */
  readonly change: readonly bigint[];
}

/** Outputs of the HTLC package: the HTLC of `amount + fee` first, then the change pieces. */
export function htlcSendOutputs(i: HtlcSendOutputsInput): ArkoorDestination<VtxoPolicy>[] {
  if (i.amountSat <= 0n) throw new LightningSendError("Cannot pay an invoice of 0 sats");
  if (i.feeSat < 0n) throw new LightningSendError("negative fee");
  return [
    { amount: i.amountSat + i.feeSat, policy: htlcSendPolicy(i.userPubkey, i.paymentHash, i.htlcExpiry) },
    ...i.change.map((amount) => ({ amount, policy: { type: "pubkey", userPubkey: i.userPubkey } as VtxoPolicy })),
  ];
}

/** Whether a policy is a Lightning-send HTLC (either hash-lock version). */
export function isHtlcSendPolicy(p: { type: string }): p is HtlcSendPolicy {
  return p.type === "server-htlc-send" || p.type === "server-htlc-send-v1";
}

/**
 * Outputs of the revocation (claim-all) package: every HTLC VTXO's whole amount to `pubkey(R)`,
 * in input order, so each input gets exactly one output. Every input must be a Lightning-send
 * HTLC of the same policy.
 */
export function revocationOutputs(htlcs: readonly Vtxo<VtxoPolicy>[], revocationPubkey: Uint8Array): ArkoorDestination<VtxoPolicy>[] {
  if (htlcs.length === 0) throw new LightningSendError("no HTLC VTXOs to revoke");
  const first = htlcs[0]!.policy;
  for (const v of htlcs) {
    if (!isHtlcSendPolicy(v.policy) || !isHtlcSendPolicy(first) || !sameHtlc(v.policy, first)) throw new LightningSendError("all HTLC VTXOs of a revocation must share one HTLC-send policy");
  }
  return htlcs.map((v) => ({ amount: v.amount, policy: { type: "pubkey", userPubkey: revocationPubkey } }));
}

/** Whether two HTLC-send policies are the same (type, key, hash, expiry). */
export function sameHtlc(a: HtlcSendPolicy, b: HtlcSendPolicy): boolean {
  return a.type === b.type && bytesEqual(a.userPubkey, b.userPubkey) && bytesEqual(a.paymentHash, b.paymentHash) && a.htlcExpiry === b.htlcExpiry;
}

/**
 * The amount a send pays: the invoice's (millisatoshis, rounded up to whole sats), or the user's
 * for an invoice without one; both given must agree; 0 is refused.
 */
export function lightningPaymentAmount(invoiceAmountMsat: bigint | undefined, userAmountSat: bigint | undefined): bigint {
  let amount: bigint;
  if (invoiceAmountMsat !== undefined) {
    const inv = (invoiceAmountMsat + 999n) / 1000n;
    if (userAmountSat !== undefined && userAmountSat !== inv) throw new LightningSendError(`amount ${userAmountSat} sat does not match the invoice amount of ${inv} sat`);
    amount = inv;
  } else {
    if (userAmountSat === undefined) throw new LightningSendError("amount required for invoice without amount");
    amount = userAmountSat;
  }
  if (amount <= 0n) throw new LightningSendError("Cannot pay an invoice of 0 sats");
  return amount;
}

/**
 * The server's routing budget: `fee × ln_max_fee_ppm / 1 000 000` plus whatever the HTLCs carry
 * beyond amount and fee (rounded down).
 */
export function lightningMaxRoutingFeeSat(feeSat: bigint, lnMaxFeePpm: bigint, htlcSumSat: bigint, paymentAmountSat: bigint): bigint {
  const surplus = htlcSumSat - paymentAmountSat - feeSat;
  return (feeSat * lnMaxFeePpm) / 1_000_000n + (surplus > 0n ? surplus : 0n);
}
