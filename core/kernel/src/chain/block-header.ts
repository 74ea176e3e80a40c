import type { BlockHeader } from "./chain-types.js";

/** Lowercase hex of the bytes in reverse order (display order of hashes). */
function reversedHex(bytes: Uint8Array): string {
  let out = "";
  for (let i = bytes.length - 1; i >= 0; i--) out += bytes[i]!.toString(16).padStart(2, "0");
  return out;
}

/**
 * Parses an 80-byte serialized block header (160 hex characters) into a {@link BlockHeader};
 * the hash and height are taken from the caller, who got them from the source. Returns `null`
 * when `headerHex` is not an 80-byte hex string.
 */
export function parseBlockHeaderHex(headerHex: string, hash: string, height: number): BlockHeader | null {
  if (!/^[0-9a-fA-F]{160}$/.test(headerHex)) return null;
  const bytes = Uint8Array.from(Buffer.from(headerHex, "hex"));
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const prev = reversedHex(bytes.subarray(4, 36));
  return {
    hash,
    height,
    version: view.getInt32(0, true),
    previousBlockHash: /^0+$/.test(prev) ? null : prev,
    merkleRoot: reversedHex(bytes.subarray(36, 68)),
    time: view.getUint32(68, true),
    bits: view.getUint32(72, true),
    nonce: view.getUint32(76, true),
    headerHex: headerHex.toLowerCase(),
  };
}
