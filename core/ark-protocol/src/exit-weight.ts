/**
 * Transaction weight helpers for exit fee computations (CPFP children and claim txs).
 * Weight = 3 × stripped size + total size (BIP-141); feerates are in sat/kwu.
 */
import { encodeTx, type Transaction } from "./tx.js";
/** Weight of a transaction input without its witness (outpoint, empty scriptSig, sequence). */
export const TXIN_BASE_WU = 41 * 4;
/** 1 sat/vB expressed in sat/kwu. */
export const SAT_PER_VB_IN_KWU = 250n;

/** BIP-141 weight of a transaction as it is (witnesses included). */
export function txWeight(tx: Transaction): number {
  return encodeTx(tx, false).length * 3 + encodeTx(tx, true).length;
}

/** Virtual size, rounded up. */
export function txVsize(tx: Transaction): number {
  return Math.ceil(txWeight(tx) / 4);
}

/** Weight of an output with `scriptLength` bytes of script (value, length byte(s), script). */
export function txOutWeight(scriptLength: number): number {
  const lenBytes = scriptLength < 0xfd ? 1 : 3;
  return (8 + lenBytes + scriptLength) * 4;
}

/** `ceil(satPerKwu × weight / 1000)`. */
export function feeForWeightCeil(satPerKwu: bigint, weightWu: number | bigint): bigint {
  const w = BigInt(weightWu);
  return (satPerKwu * w + 999n) / 1000n;
}
