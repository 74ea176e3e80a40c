/**
 * VTXO validation against its chain anchor (bark's `ark::vtxo::validation`) and exit
 * standardness (bark's `check_standard`: a non-standard exit chain could not be relayed).
 *
 * `validateVtxo` checks structure, amounts, every signature and the id; it does **not** check
 * ownership, expiry or spentness, and it proves nothing about confirmation: callers only pass
 * anchor transactions their chain backend returned.
 *
 * @example
 * ```ts
 * validateVtxo(vtxo, decodeTx(anchorTxBytes));   // throws VtxoValidationError if invalid
 * checkStandard(vtxo);                           // null, or the first non-standard output
 * ```
 */
import { VtxoValidationError } from "./errors.js";
import { bytesEqual, formatOutPoint, outPointEquals, toHex, type Sats, type TxOut } from "./encoding.js";
import { policyScriptPubKey, type ServerVtxoPolicy } from "./policy.js";
import { classifyScript } from "./script.js";
import { verifySchnorr } from "./schnorr.js";
import type { Transaction } from "./tx.js";
import { txid as computeTxid } from "./tx.js";
import { vtxoPolicyContext, type Vtxo } from "./vtxo.js";
import { chainAmount, exitChain, type ExitChainTx } from "./vtxo-exit.js";
import { transitionHasAllWitnesses } from "./vtxo-genesis.js";

/** Dust limits per output type (Bitcoin Core's, as bark's `bitcoin_ext` lists them). */
export const DUST_LIMITS = { p2pkh: 546n, p2sh: 540n, p2wpkh: 294n, p2wsh: 330n, p2tr: 330n } as const;
/** VTXO dust / P2TR dust limit. */
export const VTXO_DUST: Sats = 330n;
/** Largest standard OP_RETURN output script. */
export const MAX_OP_RETURN_SCRIPT = 83;

function validateChain(vtxo: Vtxo<ServerVtxoPolicy>, anchorTx: Transaction, checkSignatures: boolean): ExitChainTx[] {
  if (!bytesEqual(computeTxid(anchorTx), vtxo.anchorPoint.txid)) {
    throw new VtxoValidationError("anchor transaction does not match the chain anchor txid");
  }
  const anchorOut = anchorTx.outputs[vtxo.anchorPoint.vout];
  if (!anchorOut) throw new VtxoValidationError(`anchor tx has no output ${vtxo.anchorPoint.vout}`);
  const ctx = vtxoPolicyContext(vtxo);
  if (vtxo.genesis.length === 0) {
    if (!outPointEquals(vtxo.point, vtxo.anchorPoint)) throw new VtxoValidationError("VTXO without genesis must sit on its anchor");
    if (anchorOut.value !== vtxo.amount || !bytesEqual(anchorOut.script, policyScriptPubKey(vtxo.policy, ctx))) {
      throw new VtxoValidationError("anchor output does not match the VTXO policy output");
    }
    return [];
  }
  const chain = exitChain(vtxo);
  const first = chain[0]!;
  if (anchorOut.value !== chainAmount(vtxo) || !bytesEqual(anchorOut.script, first.spentOutput.script)) {
    throw new VtxoValidationError("anchor output does not match the first transition's spent output");
  }
  if (checkSignatures) {
    chain.forEach((e, i) => {
      const t = e.item.transition;
      if (!transitionHasAllWitnesses(t)) throw new VtxoValidationError(`genesis item ${i}: missing signature or preimage`);
      if (!verifySchnorr(t.signature!, e.sighash, e.spent.signingKey)) {
        throw new VtxoValidationError(`genesis item ${i}: invalid ${t.kind} signature`);
      }
    });
  }
  const last = chain[chain.length - 1]!;
  const computed = { txid: last.txid, vout: last.outputIdx };
  if (!outPointEquals(computed, vtxo.point)) {
    throw new VtxoValidationError(`VTXO id mismatch: chain ends at ${formatOutPoint(computed)}, VTXO claims ${formatOutPoint(vtxo.point)}`);
  }
  return chain;
}

/**
 * Validates a VTXO against the full chain-anchor transaction: anchor output, amounts, every
 * transition signature (and preimage), and the id. Returns the rebuilt exit chain.
 */
export function validateVtxo(vtxo: Vtxo<ServerVtxoPolicy>, anchorTx: Transaction): ExitChainTx[] {
  return validateChain(vtxo, anchorTx, true);
}

/** Like {@link validateVtxo} without signature checks (VTXOs still being signed). */
export function validateVtxoUnsigned(vtxo: Vtxo<ServerVtxoPolicy>, anchorTx: Transaction): ExitChainTx[] {
  return validateChain(vtxo, anchorTx, false);
}

/** Whether one output is standard and not dust (OP_RETURN: any value, script ≤ 83 bytes). */
export function isStandardOutput(out: TxOut): boolean {
  const kind = classifyScript(out.script);
  switch (kind) {
    case "op_return":
      return out.script.length <= MAX_OP_RETURN_SCRIPT;
    case "p2pkh":
    case "p2sh":
    case "p2wpkh":
    case "p2wsh":
    case "p2tr":
      return out.value >= DUST_LIMITS[kind];
    default:
      return false;
  }
}

/** A non-standard output found by {@link checkStandard}. */
export interface NonStandardOutput {
  /** `"vtxo"` for the VTXO's own output, else the genesis item index holding the sibling. */
  readonly where: "vtxo" | number;
  readonly output: TxOut;
  readonly reason: string;
}

/**
 * Checks that the VTXO's own output and every sibling output of its genesis are standard and
 * above dust; returns the first violation (own output first), or null if exit-relayable.
 */
export function checkStandard(vtxo: Vtxo<ServerVtxoPolicy>): NonStandardOutput | null {
  const own: TxOut = { value: vtxo.amount, script: policyScriptPubKey(vtxo.policy, vtxoPolicyContext(vtxo)) };
  const describe = (o: TxOut) => `${classifyScript(o.script)} output ${toHex(o.script)} of ${o.value} sat is non-standard or dust`;
  if (!isStandardOutput(own)) return { where: "vtxo", output: own, reason: describe(own) };
  for (const [i, item] of vtxo.genesis.entries()) {
    for (const o of item.otherOutputs) if (!isStandardOutput(o)) return { where: i, output: o, reason: describe(o) };
  }
  return null;
}
