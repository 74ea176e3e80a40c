import { expect } from "chai";
import { ByteReader, ByteWriter, toHex } from "../src/encoding.js";

describe("ByteWriter: one growing buffer", () => {
  it("writes past its first capacity, several doublings, in order and little-endian", () => {
    const w = new ByteWriter(4);
    const expected: number[] = [];
    for (let i = 0; i < 300; i++) {
      w.u8(i & 0xff).u16(i).u32(i * 65_537).u64(BigInt(i) << 40n);
      expected.push(i & 0xff, i & 0xff, i >> 8);
      const u32 = (i * 65_537) >>> 0;
      expected.push(u32 & 0xff, (u32 >>> 8) & 0xff, (u32 >>> 16) & 0xff, u32 >>> 24);
      const u64 = BigInt(i) << 40n;
      for (let b = 0n; b < 8n; b++) expected.push(Number((u64 >> (8n * b)) & 0xffn));
    }
    expect(w.length).to.equal(300 * 15);
    expect(toHex(w.finish())).to.equal(toHex(Uint8Array.from(expected)));
  });

  it("copies what bytes() is given: changing the caller's array afterwards changes nothing written", () => {
    const part = Uint8Array.of(1, 2, 3);
    const w = new ByteWriter().bytes(part);
    part.fill(9);
    expect(toHex(w.finish())).to.equal("010203");
  });

  it("finish() hands out a copy; the writer can go on", () => {
    const w = new ByteWriter().u8(1);
    const first = w.finish();
    w.u8(2);
    first[0] = 7;
    expect(toHex(w.finish())).to.equal("0102");
  });

  it("writes every CompactSize width from numbers and bigints alike, and reads them back", () => {
    for (const v of [0, 252, 253, 0xffff, 0x10000, 0xffffffff, 0x100000000, Number.MAX_SAFE_INTEGER]) {
      const a = new ByteWriter().compactSize(v).finish();
      const b = new ByteWriter().compactSize(BigInt(v)).finish();
      expect(toHex(a), String(v)).to.equal(toHex(b));
      expect(new ByteReader(a).compactSize()).to.equal(BigInt(v));
    }
  });

  it("refuses values out of range and writes nothing for them", () => {
    const w = new ByteWriter().u8(5);
    expect(() => w.u16(0x10000)).to.throw(RangeError);
    expect(() => w.u32(-1)).to.throw(RangeError);
    expect(() => w.u64(1n << 64n)).to.throw(RangeError);
    expect(() => w.compactSize(-1)).to.throw(RangeError);
    expect(() => w.compactSize(1.5)).to.throw(RangeError);
    expect(toHex(w.finish())).to.equal("05");
  });
});
