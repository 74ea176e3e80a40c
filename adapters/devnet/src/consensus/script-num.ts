/** CScriptNum: the little-endian sign-magnitude integers of script arithmetic. */
import { ScriptError } from "./errors.js";

/**
 * Decodes a script number (Core's `CScriptNum(vch, fRequireMinimal, nMaxNumSize)`).
 * Throws `SCRIPT_ERR_SCRIPTNUM` when longer than `maxSize` or, with `requireMinimal`, non-minimally encoded.
 */
export function decodeScriptNum(bytes: Uint8Array, requireMinimal: boolean, maxSize = 4): number {
  const n = bytes.length;
  if (n > maxSize) throw new ScriptError("SCRIPTNUM", "script number overflow");
  if (n === 0) return 0;
  if (requireMinimal && (bytes[n - 1]! & 0x7f) === 0 && (n <= 1 || (bytes[n - 2]! & 0x80) === 0)) {
    throw new ScriptError("SCRIPTNUM", "non-minimally encoded script number");
  }
  let result = 0;
  for (let i = 0; i < n; i++) result += bytes[i]! * 2 ** (8 * i);
  const last = bytes[n - 1]!;
  if ((last & 0x80) !== 0) return -(result - 0x80 * 2 ** (8 * (n - 1)));
  return result;
}

/** Encodes an integer (|v| < 2^53) as a minimal script number (Core's `CScriptNum::serialize`). */
export function encodeScriptNum(value: number): Uint8Array {
  if (value === 0) return new Uint8Array(0);
  const negative = value < 0;
  let abs = Math.abs(value);
  const out: number[] = [];
  while (abs > 0) {
    out.push(abs % 256);
    abs = Math.floor(abs / 256);
  }
  if ((out[out.length - 1]! & 0x80) !== 0) out.push(negative ? 0x80 : 0);
  else if (negative) out[out.length - 1]! |= 0x80;
  return Uint8Array.from(out);
}

/** Core's `CastToBool`: true unless all bytes are zero (a trailing 0x80 "negative zero" is also false). */
export function castToBool(bytes: Uint8Array): boolean {
  for (let i = 0; i < bytes.length; i++) {
    if (bytes[i] !== 0) return !(i === bytes.length - 1 && bytes[i] === 0x80);
  }
  return false;
}

/** Core's `CScriptNum::getint()`: clamps to the int32 range. */
export function clampInt32(value: number): number {
  return value > 0x7fffffff ? 0x7fffffff : value < -0x80000000 ? -0x80000000 : value;
}
