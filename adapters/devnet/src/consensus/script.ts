/** Script parsing: opcode iteration, push-only tests, template detection, FindAndDelete. */
import { bytesEqual } from "./bytes.js";
import { OP } from "./opcodes.js";

/** One parsed script element: the opcode, its pushed data (for pushes) and its byte offsets. */
export interface ScriptOp {
  opcode: number;
  data: Uint8Array | undefined;
  /** Offset of the opcode byte. */
  start: number;
  /** Offset just past the element. */
  end: number;
}

/**
 * Reads the element at `pc` (Core's `GetScriptOp`). Returns `undefined` when the script ends in
 * the middle of a push (a parse failure), otherwise the op; `pc` must be < script.length.
 */
export function readOp(script: Uint8Array, pc: number): ScriptOp | undefined {
  const opcode = script[pc]!;
  let p = pc + 1;
  if (opcode > OP.OP_PUSHDATA4) return { opcode, data: undefined, start: pc, end: p };
  let size: number;
  if (opcode < OP.OP_PUSHDATA1) {
    size = opcode;
  } else if (opcode === OP.OP_PUSHDATA1) {
    if (p + 1 > script.length) return undefined;
    size = script[p]!;
    p += 1;
  } else if (opcode === OP.OP_PUSHDATA2) {
    if (p + 2 > script.length) return undefined;
    size = script[p]! | (script[p + 1]! << 8);
    p += 2;
  } else {
    if (p + 4 > script.length) return undefined;
    size = (script[p]! | (script[p + 1]! << 8) | (script[p + 2]! << 16) | (script[p + 3]! << 24)) >>> 0;
    p += 4;
  }
  if (size > script.length - p) return undefined;
  return { opcode, data: script.subarray(p, p + size), start: pc, end: p + size };
}

/** All elements of `script`, or `undefined` if it does not parse. */
export function parseScript(script: Uint8Array): ScriptOp[] | undefined {
  const ops: ScriptOp[] = [];
  for (let pc = 0; pc < script.length; ) {
    const op = readOp(script, pc);
    if (op === undefined) return undefined;
    ops.push(op);
    pc = op.end;
  }
  return ops;
}

/** Core's `IsPushOnly`: every element is a push or OP_1NEGATE…OP_16 (OP_RESERVED counts as push); false if unparsable. */
export function isPushOnly(script: Uint8Array): boolean {
  for (let pc = 0; pc < script.length; ) {
    const op = readOp(script, pc);
    if (op === undefined || op.opcode > OP.OP_16) return false;
    pc = op.end;
  }
  return true;
}

/** Core's `IsPayToScriptHash`: exactly `OP_HASH160 <20 bytes> OP_EQUAL`. */
export function isP2SH(script: Uint8Array): boolean {
  return script.length === 23 && script[0] === OP.OP_HASH160 && script[1] === 0x14 && script[22] === OP.OP_EQUAL;
}

/** Core's `IsWitnessProgram`: version and program of `OP_n <2..40 bytes>`, else undefined. */
export function witnessProgram(script: Uint8Array): { version: number; program: Uint8Array } | undefined {
  if (script.length < 4 || script.length > 42) return undefined;
  const v = script[0]!;
  if (v !== OP.OP_0 && (v < OP.OP_1 || v > OP.OP_16)) return undefined;
  if (script[1]! + 2 !== script.length) return undefined;
  return { version: v === OP.OP_0 ? 0 : v - OP.OP_1 + 1, program: script.subarray(2) };
}

/** Core's `CheckMinimalPush`: whether `data` was pushed with the smallest possible opcode. */
export function isMinimalPush(data: Uint8Array, opcode: number): boolean {
  if (data.length === 0) return opcode === OP.OP_0;
  if (data.length === 1 && data[0]! >= 1 && data[0]! <= 16) return false;
  if (data.length === 1 && data[0] === 0x81) return false;
  if (data.length <= 75) return opcode === data.length;
  if (data.length <= 255) return opcode === OP.OP_PUSHDATA1;
  if (data.length <= 65535) return opcode === OP.OP_PUSHDATA2;
  return true;
}

/** Script bytes pushing `data` with the minimal-length push opcode (Core's `CScript << vector`). */
export function pushData(data: Uint8Array): Uint8Array {
  const n = data.length;
  let head: number[];
  if (n < OP.OP_PUSHDATA1) head = [n];
  else if (n <= 0xff) head = [OP.OP_PUSHDATA1, n];
  else if (n <= 0xffff) head = [OP.OP_PUSHDATA2, n & 0xff, n >> 8];
  else head = [OP.OP_PUSHDATA4, n & 0xff, (n >> 8) & 0xff, (n >> 16) & 0xff, n >>> 24];
  const out = new Uint8Array(head.length + n);
  out.set(head);
  out.set(data, head.length);
  return out;
}

/**
 * Core's `FindAndDelete`: removes every occurrence of `needle` that starts on an element boundary.
 * Returns the new script and how many occurrences were removed.
 */
export function findAndDelete(script: Uint8Array, needle: Uint8Array): { script: Uint8Array; found: number } {
  if (needle.length === 0) return { script, found: 0 };
  const out: number[] = [];
  let found = 0;
  let pc = 0;
  let copiedUpTo = 0;
  const matchAt = (at: number): boolean =>
    at + needle.length <= script.length && bytesEqual(script.subarray(at, at + needle.length), needle);
  // Mirrors Core: at each element boundary, strip consecutive matches, then step over one element.
  for (;;) {
    for (let i = copiedUpTo; i < pc; i++) out.push(script[i]!);
    while (matchAt(pc)) {
      pc += needle.length;
      found++;
    }
    copiedUpTo = pc;
    if (pc >= script.length) break;
    const op = readOp(script, pc);
    if (op === undefined) {
      pc = script.length;
      for (let i = copiedUpTo; i < pc; i++) out.push(script[i]!);
      copiedUpTo = pc;
      break;
    }
    pc = op.end;
  }
  return found === 0 ? { script, found } : { script: Uint8Array.from(out), found };
}
