/** Signature-operation counting: legacy, P2SH and witness, combined into Core's sigop cost. */
import { ScriptFlags, hasFlag } from "./flags.js";
import { OP } from "./opcodes.js";
import { isP2SH, isPushOnly, readOp, witnessProgram } from "./script.js";
import { isCoinbase, type SpentOutput, type Tx } from "./tx.js";

/** Maximum sigop cost of a block. */
export const MAX_BLOCK_SIGOPS_COST = 80_000;
const WITNESS_SCALE_FACTOR = 4;

/** Core's `CScript::GetSigOpCount(fAccurate)`. */
export function scriptSigOpCount(script: Uint8Array, accurate: boolean): number {
  let n = 0;
  let last = OP.OP_INVALIDOPCODE as number;
  for (let pc = 0; pc < script.length; ) {
    const op = readOp(script, pc);
    if (op === undefined) break;
    if (op.opcode === OP.OP_CHECKSIG || op.opcode === OP.OP_CHECKSIGVERIFY) n++;
    else if (op.opcode === OP.OP_CHECKMULTISIG || op.opcode === OP.OP_CHECKMULTISIGVERIFY) {
      n += accurate && last >= OP.OP_1 && last <= OP.OP_16 ? last - OP.OP_1 + 1 : 20;
    }
    last = op.opcode;
    pc = op.end;
  }
  return n;
}

/** The data of the last push in a push-only scriptSig (the P2SH redeem script), undefined if not push-only. */
function lastPush(scriptSig: Uint8Array): Uint8Array | undefined {
  let data: Uint8Array = new Uint8Array(0);
  for (let pc = 0; pc < scriptSig.length; ) {
    const op = readOp(scriptSig, pc);
    if (op === undefined || op.opcode > OP.OP_16) return undefined;
    data = op.data ?? new Uint8Array(0);
    pc = op.end;
  }
  return data;
}

/** Core's `GetLegacySigOpCount`: inaccurate count over all scriptSigs and scriptPubKeys. */
export function legacySigOpCount(tx: Tx): number {
  let n = 0;
  for (const i of tx.inputs) n += scriptSigOpCount(i.scriptSig, false);
  for (const o of tx.outputs) n += scriptSigOpCount(o.scriptPubKey, false);
  return n;
}

/** Core's `GetP2SHSigOpCount`: accurate counts of the redeem scripts of P2SH inputs. */
export function p2shSigOpCount(tx: Tx, spent: readonly SpentOutput[]): number {
  if (isCoinbase(tx)) return 0;
  let n = 0;
  tx.inputs.forEach((input, i) => {
    if (!isP2SH(spent[i]!.scriptPubKey)) return;
    const redeem = lastPush(input.scriptSig);
    if (redeem !== undefined) n += scriptSigOpCount(redeem, true);
  });
  return n;
}

function witnessSigOps(version: number, program: Uint8Array, witness: readonly Uint8Array[]): number {
  if (version !== 0) return 0;
  if (program.length === 20) return 1;
  if (program.length === 32 && witness.length > 0) return scriptSigOpCount(witness[witness.length - 1]!, true);
  return 0;
}

/** Core's `CountWitnessSigOps` for one input. */
export function witnessSigOpCount(
  scriptSig: Uint8Array, scriptPubKey: Uint8Array, witness: readonly Uint8Array[], flags: number,
): number {
  if (!hasFlag(flags, ScriptFlags.WITNESS)) return 0;
  const direct = witnessProgram(scriptPubKey);
  if (direct !== undefined) return witnessSigOps(direct.version, direct.program, witness);
  if (isP2SH(scriptPubKey) && isPushOnly(scriptSig)) {
    const redeem = lastPush(scriptSig);
    const nested = redeem === undefined ? undefined : witnessProgram(redeem);
    if (nested !== undefined) return witnessSigOps(nested.version, nested.program, witness);
  }
  return 0;
}

/** Core's `GetTransactionSigOpCost`: legacy×4 + P2SH×4 (with P2SH flag) + witness sigops (with WITNESS flag). */
export function sigOpCost(tx: Tx, spent: readonly SpentOutput[], flags: number): number {
  let cost = legacySigOpCount(tx) * WITNESS_SCALE_FACTOR;
  if (isCoinbase(tx)) return cost;
  if (hasFlag(flags, ScriptFlags.P2SH)) cost += p2shSigOpCount(tx, spent) * WITNESS_SCALE_FACTOR;
  tx.inputs.forEach((input, i) => {
    cost += witnessSigOpCount(input.scriptSig, spent[i]!.scriptPubKey, input.witness, flags);
  });
  return cost;
}
