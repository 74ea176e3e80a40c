import { opcodeName } from "../consensus/opcodes.js";
import { toHex } from "../consensus/bytes.js";

interface ScriptOp {
  readonly op: number;
  /** Pushed bytes, for push opcodes. */
  readonly data?: Uint8Array;
}

/** Splits a script into opcodes; `null` when a push runs past the end. */
function parseOps(script: Uint8Array): ScriptOp[] | null {
  const ops: ScriptOp[] = [];
  for (let i = 0; i < script.length; ) {
    const op = script[i++]!;
    let len = -1;
    if (op >= 0x01 && op <= 0x4b) len = op;
    else if (op === 0x4c) len = script[i++] ?? -2;
    else if (op === 0x4d) {
      len = (script[i] ?? 0) | ((script[i + 1] ?? 0) << 8);
      i += 2;
    } else if (op === 0x4e) {
      len = ((script[i] ?? 0) | ((script[i + 1] ?? 0) << 8) | ((script[i + 2] ?? 0) << 16)) + (script[i + 3] ?? 0) * 2 ** 24;
      i += 4;
    }
    if (len === -1) {
      ops.push({ op });
      continue;
    }
    if (len < 0 || i + len > script.length) return null;
    ops.push({ op, data: script.subarray(i, i + len) });
    i += len;
  }
  return ops;
}

const ESPLORA_NAMES: Readonly<Record<number, string>> = { 0xb1: "OP_CLTV", 0xb2: "OP_CSV", 0x4f: "OP_PUSHNUM_NEG1", 0x00: "OP_0" };

/**
 * Esplora's `*_asm` text (rust-bitcoin style): `OP_0 OP_PUSHBYTES_20 <hex>`, `OP_PUSHNUM_1`,
 * `OP_CSV`; a truncated push ends with `<unexpected end>`.
 */
export function esploraAsm(script: Uint8Array): string {
  const ops = parseOps(script);
  if (!ops) return "<unexpected end>";
  return ops
    .map(({ op, data }) => {
      if (data) {
        const name = op <= 0x4b ? `OP_PUSHBYTES_${op}` : opcodeName(op);
        return `${name} ${toHex(data)}`;
      }
      if (op >= 0x51 && op <= 0x60) return `OP_PUSHNUM_${op - 0x50}`;
      const special = ESPLORA_NAMES[op];
      if (special) return special;
      const name = opcodeName(op);
      return name === "OP_UNKNOWN" ? `OP_RETURN_${op}` : name;
    })
    .join(" ");
}

/**
 * Bitcoin Core's `asm` text: pushes as hex (small pushes of up to 4 bytes as numbers), `0`,
 * `1`…`16`, opcode names otherwise; `[error]` for a truncated script.
 */
export function coreAsm(script: Uint8Array): string {
  const ops = parseOps(script);
  if (!ops) return "[error]";
  return ops
    .map(({ op, data }) => {
      if (!data) return opcodeName(op);
      if (data.length <= 4) return String(scriptNum(data));
      return toHex(data);
    })
    .join(" ");
}

/** Minimally-encoded little-endian sign-magnitude number (as Core prints short pushes). */
function scriptNum(data: Uint8Array): number {
  if (data.length === 0) return 0;
  let v = 0;
  for (let i = 0; i < data.length; i++) v += data[i]! * 2 ** (8 * i);
  const last = data[data.length - 1]!;
  if (last & 0x80) return -(v - 0x80 * 2 ** (8 * (data.length - 1)));
  return v;
}
