/**
 * `bytesToBigInt` and `bigIntTo32` (keys.ts) read and write 32 bytes as four 64-bit words; they
 * must give what the plain byte-by-byte big-endian conversion gives, for any bytes at any offset
 * of their buffer, any other length, and values outside 0 ≤ v < 2^256 (low 256 bits).
 */
import { expect } from "chai";
import fc from "fast-check";
import { bigIntTo32, bytesToBigInt, CURVE_ORDER } from "../src/keys.js";
import { belowCurveOrder } from "../src/scalar-bytes.js";

function referenceToBigInt(bytes: Uint8Array): bigint {
  let v = 0n;
  for (const b of bytes) v = (v << 8n) | BigInt(b);
  return v;
}

function referenceTo32(v: bigint): Uint8Array {
  const out = new Uint8Array(32);
  for (let i = 31; i >= 0; i--) {
    out[i] = Number(v & 0xffn);
    v >>= 8n;
  }
  return out;
}

describe("big-endian bytes ↔ bigint helpers", () => {
  it("32 bytes at any offset of a larger buffer read as the byte-by-byte big-endian integer", () => {
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 32, maxLength: 80 }), fc.nat(48), (buf, off) => {
        const start = Math.min(off, buf.length - 32);
        const bytes = buf.subarray(start, start + 32);
        expect(bytesToBigInt(bytes)).to.equal(referenceToBigInt(bytes));
      }),
    );
  });

  it("other lengths (0 to 70 bytes) read the same as byte by byte", () => {
    fc.assert(fc.property(fc.uint8Array({ maxLength: 70 }), (bytes) => {
        expect(bytesToBigInt(bytes)).to.equal(referenceToBigInt(bytes));
      }));
  });

  it("writes 32 bytes that read back, and keeps the low 256 bits of larger or negative values", () => {
    fc.assert(
      fc.property(fc.bigInt({ min: -(1n << 300n), max: 1n << 300n }), (v) => {
        expect(Buffer.from(bigIntTo32(v)).toString("hex")).to.equal(Buffer.from(referenceTo32(v)).toString("hex"));
        expect(bytesToBigInt(bigIntTo32(v))).to.equal(BigInt.asUintN(256, v));
      }),
    );
    expect(Buffer.from(bigIntTo32((1n << 256n) - 1n)).equals(Buffer.alloc(32, 0xff))).to.equal(true);
    expect(Buffer.from(bigIntTo32(0n)).equals(Buffer.alloc(32))).to.equal(true);
  });

  it("belowCurveOrder answers as 0 ≤ v < n for 32 bytes (around n and at random), false for other lengths", () => {
    for (const v of [0n, 1n, CURVE_ORDER - 1n, CURVE_ORDER, CURVE_ORDER + 1n, 2n ** 256n - 1n, CURVE_ORDER - 2n ** 200n, CURVE_ORDER + 2n ** 100n]) {
      expect(belowCurveOrder(referenceTo32(v)), String(v)).to.equal(v < CURVE_ORDER);
    }
    fc.assert(fc.property(fc.uint8Array({ minLength: 32, maxLength: 32 }), fc.nat(31), fc.integer({ min: 0, max: 255 }), (bytes, i, b) => {
        // random bytes are nearly all below n: set a prefix of n's bytes to land near it too
        const near = Uint8Array.from(bytes);
        near.set(referenceTo32(CURVE_ORDER).subarray(0, i));
        near[i] = b;
        for (const x of [bytes, near]) expect(belowCurveOrder(x)).to.equal(referenceToBigInt(x) < CURVE_ORDER);
      }));
    expect(belowCurveOrder(new Uint8Array(31))).to.equal(false);
    expect(belowCurveOrder(new Uint8Array(33))).to.equal(false);
  });
});
