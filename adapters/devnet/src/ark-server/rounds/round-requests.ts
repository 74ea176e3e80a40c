/**
 * Checks shared by interactive payments and delegated participations: protocol version, the
 * requested outputs (amounts, policy, maximum), the balance of inputs and outputs and the
 * refresh fee, with captaind's texts.
 *
 * | Check | Refusal |
 * |---|---|
 * | pver ≥ 5 | "Your client version is too old, you need to update in order to be able to participate in rounds." |
 * | at least one output | "invalid request: no outputs" |
 * | output ≤ `max_vtxo_amount` | "output exceeds maximum vtxo amount of X" |
 * | output ≥ 330 | "vtxo amount must be at least 330 to participate in a round" |
 * | output policy `pubkey` | "invalid vtxo policy" |
 * | Σout ≤ Σin | "total output amount (X) exceeds total input amount (Y)" |
 * | Σin − Σout ≥ refresh fee | "insufficient refresh fee: expected at least X, got Y" |
 */
import { VTXO_DUST_SAT, blocksToExpiry, refreshFee, type RefreshFeeParams, type Vtxo, type VtxoPolicy } from "@tender/ark-protocol";
import { BadUserInputError } from "../server-errors.js";
import type { RoundOutputSpec } from "./round-store.js";

/** Protocol version from which rounds are served. */
export const PVER_ROUNDS = 5;

/** A refusal captaind answers with INTERNAL (its text visible with rich errors), which bark clients retry. */
export class RoundInternalRefusal extends Error {}

/** Refuses clients older than protocol version 5. */
export function checkRoundPver(pver: number): void {
  if (pver < PVER_ROUNDS) throw new BadUserInputError("Your client version is too old, you need to update in order to be able to participate in rounds.");
}

const U64_MAX = (1n << 64n) - 1n;

/** Output count, maximum amount, dust and policy checks. */
export function checkRoundOutputs(outputs: readonly { amount: bigint; policy: VtxoPolicy }[], maxVtxoAmount: bigint | undefined): void {
  if (outputs.length === 0) throw new BadUserInputError("invalid request: no outputs");
  for (const o of outputs) {
    if (maxVtxoAmount !== undefined && o.amount > maxVtxoAmount) throw new BadUserInputError(`output exceeds maximum vtxo amount of ${maxVtxoAmount}`);
  }
  for (const o of outputs) {
    if (o.amount < VTXO_DUST_SAT) throw new BadUserInputError(`vtxo amount must be at least ${VTXO_DUST_SAT} to participate in a round`);
    if (o.amount > U64_MAX) throw new BadUserInputError("output amount overflow");
    if (o.policy.type !== "pubkey") throw new BadUserInputError("invalid vtxo policy");
  }
}

/** The balance and the refresh fee at `height`; `context` prefixes the fee refusal (delegated: "refresh fee check failed"). */
export function checkRoundBalance(inputs: readonly Vtxo[], outputs: readonly RoundOutputSpec[], fees: RefreshFeeParams, height: number, feeContext?: string): void {
  const totalIn = inputs.reduce((s, v) => s + v.amount, 0n);
  const totalOut = outputs.reduce((s, o) => s + o.amount, 0n);
  if (totalOut > U64_MAX || totalIn > U64_MAX) throw new BadUserInputError("amount overflow");
  if (totalOut > totalIn) throw new BadUserInputError(`total output amount (${totalOut}) exceeds total input amount (${totalIn})`);
  const fee = refreshFee(fees, inputs.map((v) => ({ amount: v.amount, blocksToExpiry: blocksToExpiry(v.expiryHeight, height) })));
  const paid = totalIn - totalOut;
  if (paid < fee) throw new BadUserInputError(`insufficient refresh fee: expected at least ${fee}, got ${paid}`, feeContext);
}
