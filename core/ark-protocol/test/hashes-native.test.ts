/**
 * SHA-256 on Node's one-shot `crypto.hash` (hashes.ts) gives noble's digests for any bytes, any
 * view of a larger buffer and any split into parts, and a plain `Uint8Array` of its own.
 */
import { expect } from "chai";
import fc from "fast-check";
import { sha256 as nobleSha256 } from "@noble/hashes/sha2.js";
import { concatBytes, toHex, utf8 } from "../src/encoding.js";
import { hash160, sha256, taggedHash } from "../src/hashes.js";
import { ripemd160 } from "@noble/hashes/legacy.js";

describe("SHA-256 (native where Node has it) against noble", () => {
  it("any bytes, at any offset of a larger buffer, in any number of parts: noble's digest", () => {
    fc.assert(fc.property(fc.array(fc.uint8Array({ maxLength: 600 }), { minLength: 1, maxLength: 4 }), fc.nat(8), (parts, skip) => {
      const views = parts.map((p) => p.subarray(Math.min(skip, p.length)));
      expect(toHex(sha256(...views))).to.equal(toHex(nobleSha256(concatBytes(...views))));
    }), { numRuns: 500 });
  });

  it("tagged hashes and HASH160 as noble computes them; the digest is a plain Uint8Array of 32 bytes", () => {
    fc.assert(fc.property(fc.string({ maxLength: 30 }), fc.uint8Array({ maxLength: 300 }), (tag, msg) => {
      const t = nobleSha256(utf8(tag));
      expect(toHex(taggedHash(tag, msg))).to.equal(toHex(nobleSha256(concatBytes(t, t, msg))));
      expect(toHex(hash160(msg))).to.equal(toHex(ripemd160(nobleSha256(msg))));
    }), { numRuns: 300 });
    const d = sha256(new Uint8Array(100));
    expect(Object.getPrototypeOf(d)).to.equal(Uint8Array.prototype);
    expect([d.length, d.byteOffset, d.buffer.byteLength]).to.deep.equal([32, 0, 32]);
  });
});
