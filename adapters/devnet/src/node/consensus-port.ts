/**
 * The node's single doorway to the consensus engine (`../consensus`): the names the node
 * uses, in the shapes it wants. Everything chain-contextual (which coins, which heights and
 * times) is supplied by the caller.
 */
import {
  checkTransaction,
  ConsensusError,
  decodeTx,
  encodeTx,
  hasWitness,
  isCoinbase,
  isFinalTx,
  MANDATORY_SCRIPT_VERIFY_FLAGS,
  ScriptError,
  sequenceLocksSatisfied,
  sigOpCost,
  STANDARD_SCRIPT_VERIFY_FLAGS,
  txid,
  txWeight,
  verifyInputScripts,
  wtxid,
  type SpentOutput,
  type Tx,
} from "../consensus/index.js";
import { scriptErrorString } from "./script-error-text.js";

export {
  ConsensusError,
  ScriptError,
  MANDATORY_SCRIPT_VERIFY_FLAGS,
  STANDARD_SCRIPT_VERIFY_FLAGS,
  decodeTx,
  encodeTx,
  hasWitness,
  isCoinbase,
  txid,
  wtxid,
  txWeight,
  checkTransaction,
  type SpentOutput,
  type Tx,
};

/**
 * BIP-68 relative locks of `tx` for a block at `blockHeight` whose parent has median time past
 * `prevMtp` (Core's CalculateSequenceLocks + EvaluateSequenceLocks).
 * @param coinHeights height of the block holding each spent coin (the next block's height for unconfirmed coins)
 * @param mtpAt median time past of the block at a height
 */
export function sequenceLocksOk(
  tx: Tx,
  coinHeights: readonly number[],
  blockHeight: number,
  prevMtp: number,
  mtpAt: (height: number) => number,
): boolean {
  const prevTimes = coinHeights.map((h) => mtpAt(Math.max(h - 1, 0)));
  return sequenceLocksSatisfied(tx, coinHeights, prevTimes, blockHeight, prevMtp);
}

/** Absolute locktime finality for a block at `height` with lock-time cutoff `time` (the parent's median time past). */
export function isFinal(tx: Tx, height: number, time: number): boolean {
  return isFinalTx(tx, height, time);
}

/** Runs every input script under `flags`; throws {@link ScriptError} (or ConsensusError) on the first failure. */
export function verifyScripts(tx: Tx, spent: readonly SpentOutput[], flags: number): void {
  verifyInputScripts(tx, [...spent], flags);
}

/** Signature-operation cost of `tx` (BIP-141 units). */
export function sigOps(tx: Tx, spent: readonly SpentOutput[], flags: number): number {
  return sigOpCost(tx, [...spent], flags);
}

/** Core's text for a script failure, as used inside `…-script-verify-flag-failed (…)`. */
export function scriptErrorText(err: unknown): string {
  if (err instanceof ScriptError) return scriptErrorString(err.scriptError);
  if (err instanceof ConsensusError) return err.message;
  return err instanceof Error ? err.message : String(err);
}

/** Txid, wtxid, weight, vsize and the raw bytes of a transaction. */
export function txFacts(tx: Tx): { txid: string; wtxid: string; weight: number; vsize: number; raw: Uint8Array } {
  const weight = txWeight(tx);
  return { txid: txid(tx), wtxid: wtxid(tx), weight, vsize: Math.ceil(weight / 4), raw: encodeTx(tx, true) };
}
