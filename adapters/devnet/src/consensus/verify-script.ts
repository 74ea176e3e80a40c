/** Core's `VerifyScript` and `VerifyWitnessProgram`: scriptSig + scriptPubKey (+ P2SH, segwit v0, taproot). */
import { bytesEqual, compactSizeLength } from "./bytes.js";
import { SigVersion, type ExecutionData, type SignatureChecker } from "./checker.js";
import { checkTapTweak } from "./ecdsa.js";
import { ScriptError } from "./errors.js";
import { ScriptFlags, hasFlag } from "./flags.js";
import { sha256 } from "./hashes.js";
import { MAX_SCRIPT_ELEMENT_SIZE, MAX_STACK_SIZE, evalScript, newExecutionData } from "./interpreter.js";
import { OP, isOpSuccess } from "./opcodes.js";
import { isP2SH, isPushOnly, pushData, readOp, witnessProgram } from "./script.js";
import { castToBool } from "./script-num.js";
import { tapBranchHash, tapLeafHash, tapTweakHash } from "./sighash.js";

export type { SignatureChecker } from "./checker.js";

const ANNEX_TAG = 0x50;
const TAPROOT_LEAF_MASK = 0xfe;
const TAPROOT_LEAF_TAPSCRIPT = 0xc0;
const TAPROOT_CONTROL_BASE_SIZE = 33;
const TAPROOT_CONTROL_NODE_SIZE = 32;
const TAPROOT_CONTROL_MAX_SIZE = TAPROOT_CONTROL_BASE_SIZE + TAPROOT_CONTROL_NODE_SIZE * 128;
const VALIDATION_WEIGHT_OFFSET = 50;

function executeWitnessScript(
  initial: Uint8Array[], script: Uint8Array, flags: number, sigVersion: SigVersion, checker: SignatureChecker,
  exec: ExecutionData,
): void {
  const stack = initial.slice();
  if (sigVersion === SigVersion.TAPSCRIPT) {
    for (let pc = 0; pc < script.length; ) {
      const op = readOp(script, pc);
      if (op === undefined) throw new ScriptError("BAD_OPCODE");
      if (isOpSuccess(op.opcode)) {
        if (hasFlag(flags, ScriptFlags.DISCOURAGE_OP_SUCCESS)) throw new ScriptError("DISCOURAGE_OP_SUCCESS");
        return;
      }
      pc = op.end;
    }
    if (stack.length > MAX_STACK_SIZE) throw new ScriptError("STACK_SIZE");
  }
  for (const item of stack) if (item.length > MAX_SCRIPT_ELEMENT_SIZE) throw new ScriptError("PUSH_SIZE");
  evalScript(stack, script, flags, checker, sigVersion, exec);
  if (stack.length !== 1) throw new ScriptError("CLEANSTACK");
  if (!castToBool(stack[0]!)) throw new ScriptError("EVAL_FALSE");
}

function serializedWitnessSize(witness: readonly Uint8Array[]): number {
  let n = compactSizeLength(witness.length);
  for (const item of witness) n += compactSizeLength(item.length) + item.length;
  return n;
}

function verifyTaprootCommitment(control: Uint8Array, program: Uint8Array, leafHash: Uint8Array): boolean {
  const pathLength = (control.length - TAPROOT_CONTROL_BASE_SIZE) / TAPROOT_CONTROL_NODE_SIZE;
  const internalKey = control.subarray(1, TAPROOT_CONTROL_BASE_SIZE);
  let k = leafHash;
  for (let i = 0; i < pathLength; i++) {
    const at = TAPROOT_CONTROL_BASE_SIZE + TAPROOT_CONTROL_NODE_SIZE * i;
    k = tapBranchHash(k, control.subarray(at, at + TAPROOT_CONTROL_NODE_SIZE));
  }
  return checkTapTweak(internalKey, tapTweakHash(internalKey, k), program, control[0]! & 1);
}

function isPayToAnchor(version: number, program: Uint8Array): boolean {
  return version === 1 && program.length === 2 && program[0] === 0x4e && program[1] === 0x73;
}

function verifyWitnessProgram(
  witness: readonly Uint8Array[], version: number, program: Uint8Array, flags: number, checker: SignatureChecker,
  isP2shWrapped: boolean,
): void {
  const stack = witness.slice();
  if (version === 0) {
    if (program.length === 32) {
      if (stack.length === 0) throw new ScriptError("WITNESS_PROGRAM_WITNESS_EMPTY");
      const script = stack.pop()!;
      if (!bytesEqual(sha256(script), program)) throw new ScriptError("WITNESS_PROGRAM_MISMATCH");
      executeWitnessScript(stack, script, flags, SigVersion.WITNESS_V0, checker, newExecutionData());
      return;
    }
    if (program.length === 20) {
      if (stack.length !== 2) throw new ScriptError("WITNESS_PROGRAM_MISMATCH");
      const script = Uint8Array.of(OP.OP_DUP, OP.OP_HASH160, 20, ...program, OP.OP_EQUALVERIFY, OP.OP_CHECKSIG);
      executeWitnessScript(stack, script, flags, SigVersion.WITNESS_V0, checker, newExecutionData());
      return;
    }
    throw new ScriptError("WITNESS_PROGRAM_WRONG_LENGTH");
  }
  if (version === 1 && program.length === 32 && !isP2shWrapped) {
    if (!hasFlag(flags, ScriptFlags.TAPROOT)) return;
    if (stack.length === 0) throw new ScriptError("WITNESS_PROGRAM_WITNESS_EMPTY");
    const exec = newExecutionData();
    const last = stack[stack.length - 1]!;
    if (stack.length >= 2 && last.length > 0 && last[0] === ANNEX_TAG) exec.annex = stack.pop()!;
    if (stack.length === 1) {
      checker.checkSchnorrSignature(stack[0]!, program, SigVersion.TAPROOT, exec);
      return;
    }
    const control = stack.pop()!;
    const script = stack.pop()!;
    if (control.length < TAPROOT_CONTROL_BASE_SIZE || control.length > TAPROOT_CONTROL_MAX_SIZE ||
      (control.length - TAPROOT_CONTROL_BASE_SIZE) % TAPROOT_CONTROL_NODE_SIZE !== 0) {
      throw new ScriptError("TAPROOT_WRONG_CONTROL_SIZE");
    }
    const leafVersion = control[0]! & TAPROOT_LEAF_MASK;
    exec.tapleafHash = tapLeafHash(leafVersion, script);
    if (!verifyTaprootCommitment(control, program, exec.tapleafHash)) throw new ScriptError("WITNESS_PROGRAM_MISMATCH");
    if (leafVersion === TAPROOT_LEAF_TAPSCRIPT) {
      exec.validationWeightLeft = serializedWitnessSize(witness) + VALIDATION_WEIGHT_OFFSET;
      executeWitnessScript(stack, script, flags, SigVersion.TAPSCRIPT, checker, exec);
      return;
    }
    if (hasFlag(flags, ScriptFlags.DISCOURAGE_UPGRADABLE_TAPROOT_VERSION)) {
      throw new ScriptError("DISCOURAGE_UPGRADABLE_TAPROOT_VERSION");
    }
    return;
  }
  if (!isP2shWrapped && isPayToAnchor(version, program)) return;
  if (hasFlag(flags, ScriptFlags.DISCOURAGE_UPGRADABLE_WITNESS_PROGRAM)) {
    throw new ScriptError("DISCOURAGE_UPGRADABLE_WITNESS_PROGRAM");
  }
}

/**
 * Verifies that `scriptSig` (+ `witness`) satisfies `scriptPubKey` under `flags` (Core's `VerifyScript`).
 * Throws {@link ScriptError} with Core's error name; returns normally when the spend is valid.
 * Throws a plain `Error` for flag combinations Core asserts against (CLEANSTACK without P2SH+WITNESS, WITNESS without P2SH).
 */
export function verifyScript(
  scriptSig: Uint8Array, scriptPubKey: Uint8Array, witness: readonly Uint8Array[], flags: number, checker: SignatureChecker,
): void {
  if (hasFlag(flags, ScriptFlags.CLEANSTACK) && (!hasFlag(flags, ScriptFlags.P2SH) || !hasFlag(flags, ScriptFlags.WITNESS))) {
    throw new Error("CLEANSTACK requires P2SH and WITNESS");
  }
  if (hasFlag(flags, ScriptFlags.WITNESS) && !hasFlag(flags, ScriptFlags.P2SH)) throw new Error("WITNESS requires P2SH");
  if (hasFlag(flags, ScriptFlags.SIGPUSHONLY) && !isPushOnly(scriptSig)) throw new ScriptError("SIG_PUSHONLY");
  let hadWitness = false;
  let stack: Uint8Array[] = [];
  evalScript(stack, scriptSig, flags, checker, SigVersion.BASE);
  const stackCopy = hasFlag(flags, ScriptFlags.P2SH) ? stack.slice() : [];
  evalScript(stack, scriptPubKey, flags, checker, SigVersion.BASE);
  if (stack.length === 0 || !castToBool(stack[stack.length - 1]!)) throw new ScriptError("EVAL_FALSE");
  if (hasFlag(flags, ScriptFlags.WITNESS)) {
    const wp = witnessProgram(scriptPubKey);
    if (wp !== undefined) {
      hadWitness = true;
      if (scriptSig.length !== 0) throw new ScriptError("WITNESS_MALLEATED");
      verifyWitnessProgram(witness, wp.version, wp.program, flags, checker, false);
      stack = stack.slice(0, 1);
    }
  }
  if (hasFlag(flags, ScriptFlags.P2SH) && isP2SH(scriptPubKey)) {
    if (!isPushOnly(scriptSig)) throw new ScriptError("SIG_PUSHONLY");
    stack = stackCopy;
    const redeemScript = stack.pop()!;
    evalScript(stack, redeemScript, flags, checker, SigVersion.BASE);
    if (stack.length === 0 || !castToBool(stack[stack.length - 1]!)) throw new ScriptError("EVAL_FALSE");
    if (hasFlag(flags, ScriptFlags.WITNESS)) {
      const wp = witnessProgram(redeemScript);
      if (wp !== undefined) {
        hadWitness = true;
        if (!bytesEqual(scriptSig, pushData(redeemScript))) throw new ScriptError("WITNESS_MALLEATED_P2SH");
        verifyWitnessProgram(witness, wp.version, wp.program, flags, checker, true);
        stack = stack.slice(0, 1);
      }
    }
  }
  if (hasFlag(flags, ScriptFlags.CLEANSTACK) && stack.length !== 1) throw new ScriptError("CLEANSTACK");
  if (hasFlag(flags, ScriptFlags.WITNESS) && !hadWitness && witness.length > 0) throw new ScriptError("WITNESS_UNEXPECTED");
}
