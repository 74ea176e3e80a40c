/**
 * Byte helpers of the node on top of the consensus ones (`../consensus/bytes.ts`): hex that the
 * node rejects with {@link InvalidInputError}, double SHA-256, little-endian integers, number pushes.
 */
import { ByteWriter, parseHex } from "../consensus/bytes.js";
import { pushData } from "../consensus/script.js";
import { encodeScriptNum } from "../consensus/script-num.js";
import { InvalidInputError } from "./node-errors.js";

/** Bytes of a hex string; throws {@link InvalidInputError} on anything but even-length hex. */
export function unhex(text: string): Uint8Array {
  const bytes = parseHex(text);
  if (bytes === undefined) throw new InvalidInputError(`invalid hex string (${text.length} chars)`);
  return bytes;
}

/** Raw bytes from bytes or hex. */
export function asBytes(raw: Uint8Array | string): Uint8Array {
  return typeof raw === "string" ? unhex(raw) : raw;
}

/** Internal-order bytes of a display-order 32-byte hash; throws {@link InvalidInputError} when malformed. */
export function internalFromDisplay(text: string): Uint8Array {
  if (text.length !== 64) throw new InvalidInputError(`expected a 32-byte hash in hex, got ${text.length} chars`);
  return unhex(text).reverse();
}

/** Double SHA-256 (consensus's HASH256). */
export { hash256 as sha256d } from "../consensus/hashes.js";

/** 4-byte little-endian encoding of an unsigned 32-bit number. */
export function u32le(n: number): Uint8Array {
  return new ByteWriter(4).u32(n).finish();
}

/** CompactSize encoding of `n`. */
export function compactSize(n: number): Uint8Array {
  return new ByteWriter(9).compactSize(n).finish();
}

/** Script-number push of a non-negative integer, as Core's `CScript() << n` (OP_0, OP_1..OP_16, or minimal bytes). */
export function pushNumber(n: number): Uint8Array {
  if (n === 0) return Uint8Array.of(0x00);
  if (n >= 1 && n <= 16) return Uint8Array.of(0x50 + n);
  return pushData(encodeScriptNum(n));
}
