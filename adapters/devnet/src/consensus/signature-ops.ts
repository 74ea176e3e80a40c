/** The signature-checking opcodes of the interpreter: OP_CHECKSIG(VERIFY), OP_CHECKSIGADD's check, OP_CHECKMULTISIG(VERIFY). */
import { SigVersion, type ExecutionData, type SignatureChecker } from "./checker.js";
import { ScriptError } from "./errors.js";
import { ScriptFlags, hasFlag } from "./flags.js";
import { findAndDelete, pushData } from "./script.js";
import { clampInt32, decodeScriptNum } from "./script-num.js";
import { checkPubKeyEncoding, checkSignatureEncoding } from "./signature-encoding.js";

/** Maximum non-push opcodes per legacy/segwit-v0 script (multisig keys count too). */
export const MAX_OPS_PER_SCRIPT = 201;
/** Maximum keys in one OP_CHECKMULTISIG. */
export const MAX_PUBKEYS_PER_MULTISIG = 20;
const VALIDATION_WEIGHT_PER_SIGOP_PASSED = 50;

/** The stack item `depth` from the top (1 = top). */
export function top(stack: Uint8Array[], depth: number): Uint8Array {
  return stack[stack.length - depth]!;
}

/** Throws INVALID_STACK_OPERATION unless the stack holds at least `n` items. */
export function need(stack: Uint8Array[], n: number): void {
  if (stack.length < n) throw new ScriptError("INVALID_STACK_OPERATION");
}

/** What signature opcodes need to know about the running script. */
export interface SigContext {
  script: Uint8Array;
  codeHashStart: number;
  flags: number;
  checker: SignatureChecker;
  sigVersion: SigVersion;
  exec: ExecutionData;
}

/** OP_CHECKSIG family: returns whether the signature verified, throws on rule violations. */
export function evalChecksig(sig: Uint8Array, pubkey: Uint8Array, ctx: SigContext): boolean {
  if (ctx.sigVersion === SigVersion.TAPSCRIPT) return evalChecksigTapscript(sig, pubkey, ctx);
  let scriptCode = ctx.script.subarray(ctx.codeHashStart);
  if (ctx.sigVersion === SigVersion.BASE) {
    const r = findAndDelete(scriptCode, pushData(sig));
    if (r.found > 0 && hasFlag(ctx.flags, ScriptFlags.CONST_SCRIPTCODE)) throw new ScriptError("SIG_FINDANDDELETE");
    scriptCode = r.script;
  }
  checkSignatureEncoding(sig, ctx.flags);
  checkPubKeyEncoding(pubkey, ctx.flags, ctx.sigVersion === SigVersion.WITNESS_V0);
  const ok = ctx.checker.checkEcdsaSignature(sig, pubkey, scriptCode, ctx.sigVersion);
  if (!ok && hasFlag(ctx.flags, ScriptFlags.NULLFAIL) && sig.length > 0) throw new ScriptError("SIG_NULLFAIL");
  return ok;
}

function evalChecksigTapscript(sig: Uint8Array, pubkey: Uint8Array, ctx: SigContext): boolean {
  const nonEmpty = sig.length > 0;
  if (nonEmpty) {
    ctx.exec.validationWeightLeft -= VALIDATION_WEIGHT_PER_SIGOP_PASSED;
    if (ctx.exec.validationWeightLeft < 0) throw new ScriptError("TAPSCRIPT_VALIDATION_WEIGHT");
  }
  if (pubkey.length === 0) throw new ScriptError("TAPSCRIPT_EMPTY_PUBKEY");
  if (pubkey.length === 32) {
    if (nonEmpty) ctx.checker.checkSchnorrSignature(sig, pubkey, ctx.sigVersion, ctx.exec);
  } else if (hasFlag(ctx.flags, ScriptFlags.DISCOURAGE_UPGRADABLE_PUBKEYTYPE)) {
    throw new ScriptError("DISCOURAGE_UPGRADABLE_PUBKEYTYPE");
  }
  return nonEmpty;
}

/** OP_CHECKMULTISIG: consumes its arguments and the dummy, returns whether enough signatures verified. */
export function checkMultisig(stack: Uint8Array[], ctx: SigContext, opCount: { n: number }): boolean {
  const { flags } = ctx;
  const minimal = hasFlag(flags, ScriptFlags.MINIMALDATA);
  let i = 1;
  need(stack, i);
  let keys = clampInt32(decodeScriptNum(top(stack, i), minimal));
  if (keys < 0 || keys > MAX_PUBKEYS_PER_MULTISIG) throw new ScriptError("PUBKEY_COUNT");
  opCount.n += keys;
  if (opCount.n > MAX_OPS_PER_SCRIPT) throw new ScriptError("OP_COUNT");
  let ikey = ++i;
  let ikey2 = keys + 2;
  i += keys;
  need(stack, i);
  let sigs = clampInt32(decodeScriptNum(top(stack, i), minimal));
  if (sigs < 0 || sigs > keys) throw new ScriptError("SIG_COUNT");
  let isig = ++i;
  i += sigs;
  need(stack, i);
  let scriptCode = ctx.script.subarray(ctx.codeHashStart);
  for (let k = 0; k < sigs; k++) {
    if (ctx.sigVersion !== SigVersion.BASE) break;
    const r = findAndDelete(scriptCode, pushData(top(stack, isig + k)));
    if (r.found > 0 && hasFlag(flags, ScriptFlags.CONST_SCRIPTCODE)) throw new ScriptError("SIG_FINDANDDELETE");
    scriptCode = r.script;
  }
  let success = true;
  while (success && sigs > 0) {
    const sig = top(stack, isig);
    const key = top(stack, ikey);
    checkSignatureEncoding(sig, flags);
    checkPubKeyEncoding(key, flags, ctx.sigVersion === SigVersion.WITNESS_V0);
    if (ctx.checker.checkEcdsaSignature(sig, key, scriptCode, ctx.sigVersion)) {
      isig++;
      sigs--;
    }
    ikey++;
    keys--;
    if (sigs > keys) success = false;
  }
  while (i-- > 1) {
    if (!success && hasFlag(flags, ScriptFlags.NULLFAIL) && ikey2 === 0 && top(stack, 1).length > 0) {
      throw new ScriptError("SIG_NULLFAIL");
    }
    if (ikey2 > 0) ikey2--;
    stack.pop();
  }
  need(stack, 1);
  if (hasFlag(flags, ScriptFlags.NULLDUMMY) && top(stack, 1).length > 0) throw new ScriptError("SIG_NULLDUMMY");
  stack.pop();
  return success;
}
