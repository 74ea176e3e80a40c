/**
 * Script verification in mempool acceptance, and the words a refusal uses. Only the wording
 * differs between the two modes: the same transactions are accepted and refused in both, since
 * the standard flags include every mandatory flag. Block validation (`node/block-validator.ts`)
 * runs its own check under the mandatory flags and keeps its own wording.
 */
import {
  ConsensusError,
  MANDATORY_SCRIPT_VERIFY_FLAGS,
  STANDARD_SCRIPT_VERIFY_FLAGS,
  scriptErrorText,
  verifyScripts,
  type Tx,
} from "../node/consensus-port.js";
import type { ScriptFailureWording } from "../node/types.js";
import type { SpentCoin } from "./mempool.js";
import type { Refusal } from "./standard.js";

export type { ScriptFailureWording };

/** The wording a node uses unless told otherwise. */
export const DEFAULT_SCRIPT_FAILURE_WORDING: ScriptFailureWording = "core-master";

/** Identity of the transaction under judgement, as the debug text names it. */
export interface ScriptCheckSubject {
  readonly tx: Tx;
  readonly txid: string;
  readonly wtxid: string;
  /** The coins the inputs spend, in input order. */
  readonly spent: readonly SpentCoin[];
}

/**
 * Verifies every input's scripts for mempool acceptance; `undefined` when they all pass, else the
 * refusal worded as `wording` says.
 */
export function checkMempoolScripts(subject: ScriptCheckSubject, wording: ScriptFailureWording): Refusal | undefined {
  const spentOutputs = subject.spent.map((c) => ({ amount: c.value, scriptPubKey: c.scriptPubKey }));
  try {
    verifyScripts(subject.tx, spentOutputs, STANDARD_SCRIPT_VERIFY_FLAGS);
    return undefined;
  } catch (standardErr) {
    if (wording === "core-29") return core29Refusal(subject.tx, spentOutputs, standardErr);
    const inputIndex = standardErr instanceof ConsensusError ? standardErr.inputIndex : undefined;
    return {
      reason: `mempool-script-verify-flag-failed (${scriptErrorText(standardErr)})`,
      ...failingInputDebug(subject, inputIndex),
    };
  }
}

/** Core's `input <n> of <txid> (wtxid <wtxid>), spending <prevout txid>:<prevout n>`, when the input is known. */
function failingInputDebug(subject: ScriptCheckSubject, inputIndex: number | undefined): { debug?: string } {
  if (inputIndex === undefined) return {};
  const coin = subject.spent[inputIndex];
  if (!coin) return {};
  return { debug: `input ${inputIndex} of ${subject.txid} (wtxid ${subject.wtxid}), spending ${coin.txid}:${coin.vout}` };
}

/** Core 29's second pass: tells a consensus failure from a policy-only one. */
function core29Refusal(tx: Tx, spentOutputs: Parameters<typeof verifyScripts>[1], standardErr: unknown): Refusal {
  try {
    verifyScripts(tx, spentOutputs, MANDATORY_SCRIPT_VERIFY_FLAGS);
  } catch (mandatoryErr) {
    return { reason: `mandatory-script-verify-flag-failed (${scriptErrorText(mandatoryErr)})` };
  }
  return { reason: `non-mandatory-script-verify-flag (${scriptErrorText(standardErr)})` };
}
