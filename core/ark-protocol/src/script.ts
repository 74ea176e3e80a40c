/**
 * Bitcoin script building blocks used by the protocol: opcodes, minimal script
 * numbers and data pushes, P2TR and P2A output scripts.
 *
 * @example
 * ```ts
 * toHex(pushNum(144)); // "029000"
 * toHex(pushNum(16));  // "60" (OP_16)
 * ```
 */
import { concatBytes } from "./encoding.js";

/** Opcodes the protocol scripts use. */
export const OP = {
  OP_0: 0x00,
  OP_PUSHDATA1: 0x4c,
  OP_PUSHDATA2: 0x4d,
  OP_PUSHDATA4: 0x4e,
  OP_1NEGATE: 0x4f,
  OP_1: 0x51,
  OP_16: 0x60,
  OP_RETURN: 0x6a,
  OP_DUP: 0x76,
  OP_DROP: 0x75,
  OP_EQUAL: 0x87,
  OP_EQUALVERIFY: 0x88,
  OP_SIZE: 0x82,
  OP_HASH160: 0xa9,
  OP_CHECKSIG: 0xac,
  OP_CHECKSIGVERIFY: 0xad,
  OP_CHECKLOCKTIMEVERIFY: 0xb1,
  OP_CHECKSEQUENCEVERIFY: 0xb2,
} as const;

/** Pay-to-anchor output script `OP_1 <0x4e73>`: the fee anchor of every exit tx. */
export const P2A_SCRIPT: Uint8Array = Uint8Array.of(0x51, 0x02, 0x4e, 0x73);

/** Minimal little-endian script-number bytes of `n` (without push opcode); 0 → empty. */
export function scriptNumBytes(n: number | bigint): Uint8Array {
  let v = BigInt(n);
  if (v === 0n) return new Uint8Array(0);
  const neg = v < 0n;
  if (neg) v = -v;
  const out: number[] = [];
  while (v > 0n) {
    out.push(Number(v & 0xffn));
    v >>= 8n;
  }
  if (out[out.length - 1]! & 0x80) out.push(neg ? 0x80 : 0x00);
  else if (neg) out[out.length - 1]! |= 0x80;
  return Uint8Array.from(out);
}

/** Push of raw data with the smallest push opcode. */
export function pushData(data: Uint8Array): Uint8Array {
  const n = data.length;
  if (n < OP.OP_PUSHDATA1) return concatBytes(Uint8Array.of(n), data);
  if (n <= 0xff) return concatBytes(Uint8Array.of(OP.OP_PUSHDATA1, n), data);
  if (n <= 0xffff) return concatBytes(Uint8Array.of(OP.OP_PUSHDATA2, n & 0xff, n >>> 8), data);
  return concatBytes(Uint8Array.of(OP.OP_PUSHDATA4, n & 0xff, (n >>> 8) & 0xff, (n >>> 16) & 0xff, n >>> 24), data);
}

/** Minimal push of a script number: `OP_0`, `OP_1`..`OP_16`, `OP_1NEGATE` or a data push. */
export function pushNum(n: number | bigint): Uint8Array {
  const v = BigInt(n);
  if (v === 0n) return Uint8Array.of(OP.OP_0);
  if (v === -1n) return Uint8Array.of(OP.OP_1NEGATE);
  if (v >= 1n && v <= 16n) return Uint8Array.of(OP.OP_1 + Number(v) - 1);
  return pushData(scriptNumBytes(v));
}

/** Concatenates opcodes (numbers) and already-encoded script fragments into one script. */
export function script(...parts: Array<number | Uint8Array>): Uint8Array {
  return concatBytes(...parts.map((p) => (typeof p === "number" ? Uint8Array.of(p) : p)));
}

/** P2TR output script `OP_1 <32-byte output key>`. */
export function p2trScript(outputKey: Uint8Array): Uint8Array {
  if (outputKey.length !== 32) throw new RangeError("taproot output key must be 32 bytes");
  return concatBytes(Uint8Array.of(OP.OP_1, 0x20), outputKey);
}

/** Output-script kinds that matter for standardness (Bitcoin Core's relay policy). */
export type ScriptKind = "p2pkh" | "p2sh" | "p2wpkh" | "p2wsh" | "p2tr" | "p2a" | "op_return" | "nonstandard";

/** Classifies an output script by template. */
export function classifyScript(s: Uint8Array): ScriptKind {
  const n = s.length;
  if (n === 25 && s[0] === OP.OP_DUP && s[1] === OP.OP_HASH160 && s[2] === 0x14 && s[23] === OP.OP_EQUALVERIFY && s[24] === OP.OP_CHECKSIG) return "p2pkh";
  if (n === 23 && s[0] === OP.OP_HASH160 && s[1] === 0x14 && s[22] === OP.OP_EQUAL) return "p2sh";
  if (n === 22 && s[0] === 0x00 && s[1] === 0x14) return "p2wpkh";
  if (n === 34 && s[0] === 0x00 && s[1] === 0x20) return "p2wsh";
  if (n === 34 && s[0] === OP.OP_1 && s[1] === 0x20) return "p2tr";
  if (n === 4 && s[0] === OP.OP_1 && s[1] === 0x02 && s[2] === 0x4e && s[3] === 0x73) return "p2a";
  if (n >= 1 && s[0] === OP.OP_RETURN) return "op_return";
  return "nonstandard";
}
