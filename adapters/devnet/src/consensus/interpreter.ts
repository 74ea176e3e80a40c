/** The script interpreter (Core's `EvalScript`): executes one script on a stack. */
import { bytesEqual } from "./bytes.js";
import { SigVersion, type ExecutionData, type SignatureChecker } from "./checker.js";
import { ConsensusError, ScriptError } from "./errors.js";
import { ScriptFlags, hasFlag } from "./flags.js";
import { hash160, hash256, rmd160, sha1, sha256 } from "./hashes.js";
import { OP } from "./opcodes.js";
import { isMinimalPush, readOp } from "./script.js";
import { castToBool, clampInt32, decodeScriptNum, encodeScriptNum } from "./script-num.js";
import { MAX_OPS_PER_SCRIPT, checkMultisig, evalChecksig, need, top, type SigContext } from "./signature-ops.js";

export { MAX_OPS_PER_SCRIPT, MAX_PUBKEYS_PER_MULTISIG } from "./signature-ops.js";

/** Consensus limits of script execution. */
export const MAX_SCRIPT_SIZE = 10000;
export const MAX_SCRIPT_ELEMENT_SIZE = 520;
export const MAX_STACK_SIZE = 1000;
const LOCKTIME_DISABLE_FLAG = 0x80000000;

const TRUE = Uint8Array.of(1);
const FALSE = new Uint8Array(0);

const DISABLED = new Set<number>([
  OP.OP_CAT, OP.OP_SUBSTR, OP.OP_LEFT, OP.OP_RIGHT, OP.OP_INVERT, OP.OP_AND, OP.OP_OR, OP.OP_XOR,
  OP.OP_2MUL, OP.OP_2DIV, OP.OP_MUL, OP.OP_DIV, OP.OP_MOD, OP.OP_LSHIFT, OP.OP_RSHIFT,
]);

/** Creates fresh execution data for a script that is not a tapscript. */
export function newExecutionData(): ExecutionData {
  return { codeSeparatorPos: 0xffffffff, validationWeightLeft: 0 };
}

function unaryNum(op: number, n: number): number {
  switch (op) {
    case OP.OP_1ADD: return n + 1;
    case OP.OP_1SUB: return n - 1;
    case OP.OP_NEGATE: return -n;
    case OP.OP_ABS: return Math.abs(n);
    case OP.OP_NOT: return n === 0 ? 1 : 0;
    default: return n !== 0 ? 1 : 0; // OP_0NOTEQUAL
  }
}

function binaryNum(op: number, a: number, b: number): number {
  switch (op) {
    case OP.OP_ADD: return a + b;
    case OP.OP_SUB: return a - b;
    case OP.OP_BOOLAND: return a !== 0 && b !== 0 ? 1 : 0;
    case OP.OP_BOOLOR: return a !== 0 || b !== 0 ? 1 : 0;
    case OP.OP_NUMEQUAL: case OP.OP_NUMEQUALVERIFY: return a === b ? 1 : 0;
    case OP.OP_NUMNOTEQUAL: return a !== b ? 1 : 0;
    case OP.OP_LESSTHAN: return a < b ? 1 : 0;
    case OP.OP_GREATERTHAN: return a > b ? 1 : 0;
    case OP.OP_LESSTHANOREQUAL: return a <= b ? 1 : 0;
    case OP.OP_GREATERTHANOREQUAL: return a >= b ? 1 : 0;
    case OP.OP_MIN: return Math.min(a, b);
    default: return Math.max(a, b); // OP_MAX
  }
}

function hashOp(op: number, data: Uint8Array): Uint8Array {
  switch (op) {
    case OP.OP_RIPEMD160: return rmd160(data);
    case OP.OP_SHA1: return sha1(data);
    case OP.OP_SHA256: return sha256(data);
    case OP.OP_HASH160: return hash160(data);
    default: return hash256(data);
  }
}

/**
 * Executes `script` on `stack` (mutated in place) under `flags` and `sigVersion`.
 * Throws {@link ScriptError} with Core's error name on failure.
 */
export function evalScript(
  stack: Uint8Array[], script: Uint8Array, flags: number, checker: SignatureChecker, sigVersion: SigVersion,
  exec: ExecutionData = newExecutionData(),
): void {
  const legacyLimits = sigVersion === SigVersion.BASE || sigVersion === SigVersion.WITNESS_V0;
  if (legacyLimits && script.length > MAX_SCRIPT_SIZE) throw new ScriptError("SCRIPT_SIZE");
  const minimal = hasFlag(flags, ScriptFlags.MINIMALDATA);
  const opCount = { n: 0 };
  const vfExec: boolean[] = [];
  let falseCount = 0;
  const alt: Uint8Array[] = [];
  const ctx: SigContext = { script, codeHashStart: 0, flags, checker, sigVersion, exec };
  exec.codeSeparatorPos = 0xffffffff;
  let opcodePos = 0;
  try {
    for (let pc = 0; pc < script.length; opcodePos++) {
      const executing = falseCount === 0;
      const el = readOp(script, pc);
      if (el === undefined) throw new ScriptError("BAD_OPCODE");
      pc = el.end;
      const op = el.opcode;
      if (el.data !== undefined && el.data.length > MAX_SCRIPT_ELEMENT_SIZE) throw new ScriptError("PUSH_SIZE");
      if (legacyLimits && op > OP.OP_16 && ++opCount.n > MAX_OPS_PER_SCRIPT) throw new ScriptError("OP_COUNT");
      if (DISABLED.has(op)) throw new ScriptError("DISABLED_OPCODE");
      if (op === OP.OP_CODESEPARATOR && sigVersion === SigVersion.BASE && hasFlag(flags, ScriptFlags.CONST_SCRIPTCODE)) {
        throw new ScriptError("OP_CODESEPARATOR");
      }
      if (executing && op <= OP.OP_PUSHDATA4) {
        const data = el.data!;
        if (minimal && !isMinimalPush(data, op)) throw new ScriptError("MINIMALDATA");
        stack.push(data);
      } else if (executing || (op >= OP.OP_IF && op <= OP.OP_ENDIF)) {
        switch (op) {
          case OP.OP_1NEGATE: case OP.OP_1: case OP.OP_2: case OP.OP_3: case OP.OP_4: case OP.OP_5:
          case OP.OP_6: case OP.OP_7: case OP.OP_8: case OP.OP_9: case OP.OP_10: case OP.OP_11: case OP.OP_12:
          case OP.OP_13: case OP.OP_14: case OP.OP_15: case OP.OP_16:
            stack.push(encodeScriptNum(op - (OP.OP_1 - 1)));
            break;
          case OP.OP_NOP:
            break;
          case OP.OP_CHECKLOCKTIMEVERIFY: {
            if (!hasFlag(flags, ScriptFlags.CHECKLOCKTIMEVERIFY)) break;
            need(stack, 1);
            const lockTime = decodeScriptNum(top(stack, 1), minimal, 5);
            if (lockTime < 0) throw new ScriptError("NEGATIVE_LOCKTIME");
            if (!checker.checkLockTime(lockTime)) throw new ScriptError("UNSATISFIED_LOCKTIME");
            break;
          }
          case OP.OP_CHECKSEQUENCEVERIFY: {
            if (!hasFlag(flags, ScriptFlags.CHECKSEQUENCEVERIFY)) break;
            need(stack, 1);
            const sequence = decodeScriptNum(top(stack, 1), minimal, 5);
            if (sequence < 0) throw new ScriptError("NEGATIVE_LOCKTIME");
            if (sequence >= LOCKTIME_DISABLE_FLAG && Math.floor(sequence / LOCKTIME_DISABLE_FLAG) % 2 === 1) break;
            if (!checker.checkSequence(sequence)) throw new ScriptError("UNSATISFIED_LOCKTIME");
            break;
          }
          case OP.OP_NOP1: case OP.OP_NOP4: case OP.OP_NOP5: case OP.OP_NOP6: case OP.OP_NOP7:
          case OP.OP_NOP8: case OP.OP_NOP9: case OP.OP_NOP10:
            if (hasFlag(flags, ScriptFlags.DISCOURAGE_UPGRADABLE_NOPS)) throw new ScriptError("DISCOURAGE_UPGRADABLE_NOPS");
            break;
          case OP.OP_IF: case OP.OP_NOTIF: {
            let value = false;
            if (executing) {
              need(stack, 1);
              const v = top(stack, 1);
              if (sigVersion === SigVersion.TAPSCRIPT && (v.length > 1 || (v.length === 1 && v[0] !== 1))) {
                throw new ScriptError("TAPSCRIPT_MINIMALIF");
              }
              if (sigVersion === SigVersion.WITNESS_V0 && hasFlag(flags, ScriptFlags.MINIMALIF)) {
                if (v.length > 1 || (v.length === 1 && v[0] !== 1)) throw new ScriptError("MINIMALIF");
              }
              value = castToBool(v);
              if (op === OP.OP_NOTIF) value = !value;
              stack.pop();
            }
            vfExec.push(value);
            if (!value) falseCount++;
            break;
          }
          case OP.OP_ELSE: {
            if (vfExec.length === 0) throw new ScriptError("UNBALANCED_CONDITIONAL");
            const last = vfExec.length - 1;
            if (vfExec[last]) falseCount++;
            else falseCount--;
            vfExec[last] = !vfExec[last];
            break;
          }
          case OP.OP_ENDIF:
            if (vfExec.length === 0) throw new ScriptError("UNBALANCED_CONDITIONAL");
            if (!vfExec.pop()) falseCount--;
            break;
          case OP.OP_VERIFY:
            need(stack, 1);
            if (!castToBool(top(stack, 1))) throw new ScriptError("VERIFY");
            stack.pop();
            break;
          case OP.OP_RETURN:
            throw new ScriptError("OP_RETURN");
          case OP.OP_TOALTSTACK:
            need(stack, 1);
            alt.push(stack.pop()!);
            break;
          case OP.OP_FROMALTSTACK:
            if (alt.length < 1) throw new ScriptError("INVALID_ALTSTACK_OPERATION");
            stack.push(alt.pop()!);
            break;
          case OP.OP_2DROP:
            need(stack, 2);
            stack.length -= 2;
            break;
          case OP.OP_2DUP:
            need(stack, 2);
            stack.push(top(stack, 2), top(stack, 1));
            break;
          case OP.OP_3DUP:
            need(stack, 3);
            stack.push(top(stack, 3), top(stack, 2), top(stack, 1));
            break;
          case OP.OP_2OVER:
            need(stack, 4);
            stack.push(top(stack, 4), top(stack, 3));
            break;
          case OP.OP_2ROT: {
            need(stack, 6);
            const moved = stack.splice(stack.length - 6, 2);
            stack.push(...moved);
            break;
          }
          case OP.OP_2SWAP: {
            need(stack, 4);
            const moved = stack.splice(stack.length - 4, 2);
            stack.push(...moved);
            break;
          }
          case OP.OP_IFDUP:
            need(stack, 1);
            if (castToBool(top(stack, 1))) stack.push(top(stack, 1));
            break;
          case OP.OP_DEPTH:
            stack.push(encodeScriptNum(stack.length));
            break;
          case OP.OP_DROP:
            need(stack, 1);
            stack.pop();
            break;
          case OP.OP_DUP:
            need(stack, 1);
            stack.push(top(stack, 1));
            break;
          case OP.OP_NIP:
            need(stack, 2);
            stack.splice(stack.length - 2, 1);
            break;
          case OP.OP_OVER:
            need(stack, 2);
            stack.push(top(stack, 2));
            break;
          case OP.OP_PICK: case OP.OP_ROLL: {
            need(stack, 2);
            const n = clampInt32(decodeScriptNum(top(stack, 1), minimal));
            stack.pop();
            if (n < 0 || n >= stack.length) throw new ScriptError("INVALID_STACK_OPERATION");
            const item = top(stack, n + 1);
            if (op === OP.OP_ROLL) stack.splice(stack.length - n - 1, 1);
            stack.push(item);
            break;
          }
          case OP.OP_ROT: {
            need(stack, 3);
            const [moved] = stack.splice(stack.length - 3, 1);
            stack.push(moved!);
            break;
          }
          case OP.OP_SWAP: {
            need(stack, 2);
            const [moved] = stack.splice(stack.length - 2, 1);
            stack.push(moved!);
            break;
          }
          case OP.OP_TUCK:
            need(stack, 2);
            stack.splice(stack.length - 2, 0, top(stack, 1));
            break;
          case OP.OP_SIZE:
            need(stack, 1);
            stack.push(encodeScriptNum(top(stack, 1).length));
            break;
          case OP.OP_EQUAL: case OP.OP_EQUALVERIFY: {
            need(stack, 2);
            const equal = bytesEqual(top(stack, 2), top(stack, 1));
            stack.length -= 2;
            stack.push(equal ? TRUE : FALSE);
            if (op === OP.OP_EQUALVERIFY) {
              if (!equal) throw new ScriptError("EQUALVERIFY");
              stack.pop();
            }
            break;
          }
          case OP.OP_1ADD: case OP.OP_1SUB: case OP.OP_NEGATE: case OP.OP_ABS: case OP.OP_NOT: case OP.OP_0NOTEQUAL: {
            need(stack, 1);
            const n = decodeScriptNum(top(stack, 1), minimal);
            stack.pop();
            stack.push(encodeScriptNum(unaryNum(op, n)));
            break;
          }
          case OP.OP_ADD: case OP.OP_SUB: case OP.OP_BOOLAND: case OP.OP_BOOLOR: case OP.OP_NUMEQUAL:
          case OP.OP_NUMEQUALVERIFY: case OP.OP_NUMNOTEQUAL: case OP.OP_LESSTHAN: case OP.OP_GREATERTHAN:
          case OP.OP_LESSTHANOREQUAL: case OP.OP_GREATERTHANOREQUAL: case OP.OP_MIN: case OP.OP_MAX: {
            need(stack, 2);
            const a = decodeScriptNum(top(stack, 2), minimal);
            const b = decodeScriptNum(top(stack, 1), minimal);
            stack.length -= 2;
            const result = binaryNum(op, a, b);
            stack.push(encodeScriptNum(result));
            if (op === OP.OP_NUMEQUALVERIFY) {
              if (result === 0) throw new ScriptError("NUMEQUALVERIFY");
              stack.pop();
            }
            break;
          }
          case OP.OP_WITHIN: {
            need(stack, 3);
            const x = decodeScriptNum(top(stack, 3), minimal);
            const min = decodeScriptNum(top(stack, 2), minimal);
            const max = decodeScriptNum(top(stack, 1), minimal);
            stack.length -= 3;
            stack.push(min <= x && x < max ? TRUE : FALSE);
            break;
          }
          case OP.OP_RIPEMD160: case OP.OP_SHA1: case OP.OP_SHA256: case OP.OP_HASH160: case OP.OP_HASH256: {
            need(stack, 1);
            const digest = hashOp(op, top(stack, 1));
            stack.pop();
            stack.push(digest);
            break;
          }
          case OP.OP_CODESEPARATOR:
            ctx.codeHashStart = pc;
            exec.codeSeparatorPos = opcodePos;
            break;
          case OP.OP_CHECKSIG: case OP.OP_CHECKSIGVERIFY: {
            need(stack, 2);
            const ok = evalChecksig(top(stack, 2), top(stack, 1), ctx);
            stack.length -= 2;
            stack.push(ok ? TRUE : FALSE);
            if (op === OP.OP_CHECKSIGVERIFY) {
              if (!ok) throw new ScriptError("CHECKSIGVERIFY");
              stack.pop();
            }
            break;
          }
          case OP.OP_CHECKSIGADD: {
            if (legacyLimits) throw new ScriptError("BAD_OPCODE");
            need(stack, 3);
            const sig = top(stack, 3);
            const n = decodeScriptNum(top(stack, 2), minimal);
            const key = top(stack, 1);
            const ok = evalChecksig(sig, key, ctx);
            stack.length -= 3;
            stack.push(encodeScriptNum(n + (ok ? 1 : 0)));
            break;
          }
          case OP.OP_CHECKMULTISIG: case OP.OP_CHECKMULTISIGVERIFY: {
            if (sigVersion === SigVersion.TAPSCRIPT) throw new ScriptError("TAPSCRIPT_CHECKMULTISIG");
            const ok = checkMultisig(stack, ctx, opCount);
            stack.push(ok ? TRUE : FALSE);
            if (op === OP.OP_CHECKMULTISIGVERIFY) {
              if (!ok) throw new ScriptError("CHECKMULTISIGVERIFY");
              stack.pop();
            }
            break;
          }
          default:
            throw new ScriptError("BAD_OPCODE");
        }
      }
      if (stack.length + alt.length > MAX_STACK_SIZE) throw new ScriptError("STACK_SIZE");
    }
  } catch (e) {
    if (e instanceof ConsensusError) throw e;
    throw new ScriptError("UNKNOWN_ERROR", `script interpreter failure: ${String(e)}`);
  }
  if (vfExec.length !== 0) throw new ScriptError("UNBALANCED_CONDITIONAL");
}
