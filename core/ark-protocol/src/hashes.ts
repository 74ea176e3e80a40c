/**
 * Hash functions of the protocol: SHA-256, HASH160 and BIP-340 tagged hashes.
 *
 * @example
 * ```ts
 * taggedHash("TapLeaf", script); // SHA256(SHA256("TapLeaf") ‖ SHA256("TapLeaf") ‖ script)
 * ```
 */
import { sha256 as nobleSha256 } from "@noble/hashes/sha2.js";
import { ripemd160 } from "@noble/hashes/legacy.js";
import { concatBytes, utf8 } from "./encoding.js";

/** SHA-256 of the concatenation of `parts`. */
export function sha256(...parts: Uint8Array[]): Uint8Array {
  return nobleSha256(parts.length === 1 ? parts[0]! : concatBytes(...parts));
}

/** RIPEMD160 of `data` (used on an already hashed value for `OP_HASH160` matching). */
export function ripemd160Of(data: Uint8Array): Uint8Array {
  return ripemd160(data);
}

/** HASH160 = RIPEMD160(SHA256(data)). */
export function hash160(data: Uint8Array): Uint8Array {
  return ripemd160(nobleSha256(data));
}

const tagPrefixes = new Map<string, Uint8Array>();

/** BIP-340 tagged hash: `SHA256(SHA256(tag) ‖ SHA256(tag) ‖ m…)`. */
export function taggedHash(tag: string, ...msgs: Uint8Array[]): Uint8Array {
  let prefix = tagPrefixes.get(tag);
  if (!prefix) {
    const t = nobleSha256(utf8(tag));
    prefix = concatBytes(t, t);
    tagPrefixes.set(tag, prefix);
  }
  return nobleSha256(concatBytes(prefix, ...msgs));
}
