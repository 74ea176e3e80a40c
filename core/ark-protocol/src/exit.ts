/**
 * Planning a unilateral exit (as in bark's `bark::exit`): the exit chain of each VTXO as broadcastable
 * steps, shared ancestors tracked once, and which steps may go out now.
 *
 * | Rule | Here |
 * |---|---|
 * | every exit tx is v3, zero fee, with one P2A anchor | checked by {@link exitPlan} |
 * | a tx is broadcast only once its parent is confirmed (TRUC 1-parent-1-child packages) | {@link exitStepsReady} |
 * | siblings share ancestors: each tx is tracked once, reference-counted | {@link mergeExitPlans} |
 * | start: amount ≥ 330 and standard outputs, then `processing` with every txid at `verify-inputs` | {@link startExit} |
 *
 * @example
 * ```ts
 * const state = startExit(vtxo, tip);                  // throws ExitStartError if not exitable
 * const ready = exitStepsReady(exitPlan(vtxo), (txid) => chain.isConfirmed(txid));
 * for (const step of ready) buildCpfpChild({ parent: step.tx, … });
 * ```
 */
import { ProtocolError } from "./errors.js";
import { bytesEqual, displayHex } from "./encoding.js";
import { P2A_SCRIPT } from "./script.js";
import type { Transaction } from "./tx.js";
import type { ServerVtxoPolicy } from "./policy.js";
import type { Vtxo } from "./vtxo.js";
import { exitChain } from "./vtxo-exit.js";
import { txWeight } from "./exit-weight.js";
import { checkExitStart } from "./exit-cost.js";
import { startProcessing, type ExitState } from "./exit-state.js";

/** An exit chain that breaks the exit tx shape (not v3, fee, anchor). */
export class ExitPlanError extends ProtocolError {}

/** One exit transaction to broadcast. */
export interface ExitStep {
  /** Position in the VTXO's chain (0 spends the chain anchor). */
  index: number;
  /** Txid, display hex. */
  txid: string;
  /** The signed exit tx. */
  tx: Transaction;
  /** Txid (display hex) of the tx whose output this one spends: the chain anchor for step 0. */
  parentTxid: string;
  /** Vout and value of this tx's P2A anchor. */
  anchorVout: number;
  anchorValue: bigint;
  weight: number;
}

/**
 * The VTXO's exit chain as steps, anchor first. Throws {@link ExitPlanError} if a tx is not
 * v3, is not fully signed, pays a fee, or lacks its P2A anchor.
 */
export function exitPlan(vtxo: Vtxo<ServerVtxoPolicy>): ExitStep[] {
  return exitChain(vtxo).map((e, index) => {
    const { tx } = e;
    if (tx.version !== 3) throw new ExitPlanError(`exit tx ${index} is not version 3`);
    if (tx.inputs.length !== 1 || tx.inputs[0]!.witness.length === 0) throw new ExitPlanError(`exit tx ${index} is not fully signed`);
    const out = tx.outputs.reduce((s, o) => s + o.value, 0n);
    if (out !== e.spentOutput.value) throw new ExitPlanError(`exit tx ${index} does not have a zero fee`);
    const anchorVout = tx.outputs.findIndex((o) => bytesEqual(o.script, P2A_SCRIPT));
    if (anchorVout < 0) throw new ExitPlanError(`exit tx ${index} has no P2A anchor`);
    return {
      index,
      txid: displayHex(e.txid),
      tx,
      parentTxid: displayHex(e.prevout.txid),
      anchorVout,
      anchorValue: tx.outputs[anchorVout]!.value,
      weight: txWeight(tx),
    };
  });
}

/**
 * Steps that can be broadcast now: not confirmed themselves, and their parent is confirmed
 * (the chain anchor counts as the parent of step 0).
 */
export function exitStepsReady(plan: readonly ExitStep[], isConfirmed: (txid: string) => boolean): ExitStep[] {
  return plan.filter((s) => !isConfirmed(s.txid) && isConfirmed(s.parentTxid));
}

/** A tracked exit tx with the number of exiting VTXOs that need it. */
export interface TrackedExitTx {
  step: ExitStep;
  refCount: number;
}

/** Merges the plans of several exiting VTXOs; shared ancestors appear once, with a count. */
export function mergeExitPlans(plans: readonly (readonly ExitStep[])[]): Map<string, TrackedExitTx> {
  const map = new Map<string, TrackedExitTx>();
  for (const plan of plans) {
    for (const step of plan) {
      const t = map.get(step.txid);
      if (t) t.refCount++;
      else map.set(step.txid, { step, refCount: 1 });
    }
  }
  return map;
}

/**
 * Starts an exit: checks the VTXO (≥ 330 sat, standard unless skipped) and
 * returns the `processing` state with every exit txid at `verify-inputs`.
 */
export function startExit(vtxo: Vtxo<ServerVtxoPolicy>, tipHeight: number, opts: { skipStandardCheck?: boolean } = {}): ExitState {
  checkExitStart(vtxo, opts);
  return startProcessing(tipHeight, exitPlan(vtxo).map((s) => s.txid));
}
