/**
 * `ByteReader`'s fixed-size integers read in place and its one-byte CompactSize fast path
 * (counts and length prefixes): the same values and the same refusals as reading byte by byte,
 * at any offset of a larger buffer.
 */
import { expect } from "chai";
import fc from "fast-check";
import { ByteReader, ByteWriter, ProtocolDecodeError } from "../src/index.js";

function littleEndian(bytes: Uint8Array): bigint {
  let v = 0n;
  for (let i = bytes.length - 1; i >= 0; i--) v = (v << 8n) | BigInt(bytes[i]!);
  return v;
}

describe("ByteReader: integers read in place, short CompactSizes", () => {
  it("u8, u16, u32 and u64 read the little-endian value of their bytes, at any offset of a larger buffer", () => {
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 15, maxLength: 40 }), fc.nat(25), (buf, off) => {
        const start = Math.min(off, buf.length - 15);
        const view = buf.subarray(start);
        const r = new ByteReader(view);
        expect(r.u8()).to.equal(view[0]);
        expect(BigInt(r.u16())).to.equal(littleEndian(view.subarray(1, 3)));
        expect(BigInt(r.u32())).to.equal(littleEndian(view.subarray(3, 7)));
        expect(r.u64()).to.equal(littleEndian(view.subarray(7, 15)));
        expect(r.offset).to.equal(15);
      }),
    );
  });

  it("u64 is exact on both sides of 2^53 and at 2^64 − 1", () => {
    for (const v of [0n, 1n, 2n ** 32n - 1n, 2n ** 32n, 2n ** 53n - 1n, 2n ** 53n, 2n ** 53n + 1n, 2n ** 63n + 5n, 2n ** 64n - 1n]) {
      const bytes = new Uint8Array(8);
      new DataView(bytes.buffer).setBigUint64(0, v, true);
      expect(new ByteReader(bytes).u64(), String(v)).to.equal(v);
    }
  });

  it("an integer past the end is refused and consumes nothing", () => {
    const r = new ByteReader(Uint8Array.of(1, 2, 3));
    expect(() => r.u32()).to.throw(ProtocolDecodeError, "need 4 bytes, 3 left");
    expect(r.offset).to.equal(0);
    expect(r.u16()).to.equal(0x0201);
    expect(() => r.u16()).to.throw(ProtocolDecodeError, "need 2 bytes, 1 left");
    expect(r.u8()).to.equal(3);
    expect(() => r.u8()).to.throw(ProtocolDecodeError, "need 1 bytes, 0 left");
  });

  it("count and varBytes read every CompactSize width alike, and refuse what cannot fit", () => {
    for (const n of [0, 1, 0xfc, 0xfd, 0x1234]) {
      const body = new Uint8Array(n).fill(7);
      const bytes = new ByteWriter().compactSize(n).bytes(body).finish();
      expect(new ByteReader(bytes).count(1), `count ${n}`).to.equal(n);
      expect(new ByteReader(bytes).varBytes(), `varBytes ${n}`).to.deep.equal(body);
      if (n === 0) continue;
      // one byte short
      expect(() => new ByteReader(bytes.subarray(0, bytes.length - 1)).count(1, "items")).to.throw(ProtocolDecodeError, `items length ${n} exceeds remaining input`);
      expect(() => new ByteReader(bytes).varBytes(n - 1, "blob")).to.throw(ProtocolDecodeError, "blob exceeds maximum length");
    }
    expect(() => new ByteReader(Uint8Array.of(3, 0, 0)).count(1, "keys")).to.throw(ProtocolDecodeError, "keys length 3 exceeds remaining input");
    expect(() => new ByteReader(Uint8Array.of(2, 0, 0, 0, 0)).count(3)).to.throw(ProtocolDecodeError, "exceeds remaining input");
    expect(() => new ByteReader(new Uint8Array(0)).count(1)).to.throw(ProtocolDecodeError, "need 1 bytes, 0 left");
    expect(() => new ByteReader(new Uint8Array(0)).varBytes()).to.throw(ProtocolDecodeError, "need 1 bytes, 0 left");
    // a longer form is still checked for minimality
    expect(() => new ByteReader(Uint8Array.of(0xfd, 0x10, 0x00)).count(0)).to.throw(ProtocolDecodeError, "non-minimal compact size");
  });
});
