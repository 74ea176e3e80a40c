/**
 * Hash functions of the protocol: SHA-256, HASH160 and BIP-340 tagged hashes.
 *
 * @example
 * ```ts
 * taggedHash("TapLeaf", script); // SHA256(SHA256("TapLeaf") ‖ SHA256("TapLeaf") ‖ script)
 * ```
 */
import * as nodeCrypto from "node:crypto";
import { sha256 as nobleSha256 } from "@noble/hashes/sha2.js";
import { ripemd160 } from "@noble/hashes/legacy.js";
import { concatBytes, utf8 } from "./encoding.js";

/**
 * SHA-256 of one byte string: Node's one-shot `crypto.hash` (OpenSSL) where there is one, else
 * noble's. Transactions, sighashes and tagged hashes of a few hundred bytes take 1–2 µs in
 * JavaScript against 0.9–1 µs natively (the gap grows with the length). The answer is a plain
 * `Uint8Array` owning its 32 bytes.
 */
const sha256Of: (data: Uint8Array) => Uint8Array = typeof nodeCrypto.hash === "function"
  ? (data) => new Uint8Array(nodeCrypto.hash("sha256", data, "buffer"))
  : nobleSha256;

/** SHA-256 of the concatenation of `parts`. */
export function sha256(...parts: Uint8Array[]): Uint8Array {
  return sha256Of(parts.length === 1 ? parts[0]! : concatBytes(...parts));
}

/** RIPEMD160 of `data` (used on an already hashed value for `OP_HASH160` matching). */
export function ripemd160Of(data: Uint8Array): Uint8Array {
  return ripemd160(data);
}

/** HASH160 = RIPEMD160(SHA256(data)). */
export function hash160(data: Uint8Array): Uint8Array {
  return ripemd160(sha256Of(data));
}

const tagPrefixes = new Map<string, Uint8Array>();

/** BIP-340 tagged hash: `SHA256(SHA256(tag) ‖ SHA256(tag) ‖ m…)`. */
export function taggedHash(tag: string, ...msgs: Uint8Array[]): Uint8Array {
  let prefix = tagPrefixes.get(tag);
  if (!prefix) {
    const t = sha256Of(utf8(tag));
    prefix = concatBytes(t, t);
    tagPrefixes.set(tag, prefix);
  }
  return sha256Of(concatBytes(prefix, ...msgs));
}
