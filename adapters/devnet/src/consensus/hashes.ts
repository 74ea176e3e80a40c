/** Hash functions used by consensus: SHA-256, double SHA-256, HASH160, BIP-340 tagged hashes. */
import { ripemd160, sha1 as nobleSha1 } from "@noble/hashes/legacy.js";
import { sha256 as nobleSha256 } from "@noble/hashes/sha2.js";
import { concatBytes } from "./bytes.js";

/** SHA-256. */
export function sha256(data: Uint8Array): Uint8Array {
  return nobleSha256(data);
}

/** SHA-256 applied twice (Core's `Hash` / HASH256). */
export function hash256(data: Uint8Array): Uint8Array {
  return nobleSha256(nobleSha256(data));
}

/** RIPEMD-160 of SHA-256 (HASH160). */
export function hash160(data: Uint8Array): Uint8Array {
  return ripemd160(nobleSha256(data));
}

/** RIPEMD-160. */
export function rmd160(data: Uint8Array): Uint8Array {
  return ripemd160(data);
}

/** SHA-1 (OP_SHA1). */
export function sha1(data: Uint8Array): Uint8Array {
  return nobleSha1(data);
}

const tagCache = new Map<string, Uint8Array>();

/** BIP-340 tagged hash: SHA256(SHA256(tag) ‖ SHA256(tag) ‖ data…). */
export function taggedHash(tag: string, ...data: Uint8Array[]): Uint8Array {
  let prefix = tagCache.get(tag);
  if (prefix === undefined) {
    const t = nobleSha256(new TextEncoder().encode(tag));
    prefix = concatBytes(t, t);
    tagCache.set(tag, prefix);
  }
  return nobleSha256(concatBytes(prefix, ...data));
}
