import { expect } from "chai";
import { ByteReader, ByteWriter, bytesEqualAt, bytesKey, toHex } from "../src/encoding.js";

describe("ByteWriter: one growing buffer", () => {
  it("writes past the pooled buffer, several doublings, in order and little-endian", () => {
    const w = new ByteWriter();
    const expected: number[] = [];
    for (let i = 0; i < 600; i++) {
      w.u8(i & 0xff).u16(i).u32(i * 65_537).u64(BigInt(i) << 40n);
      expected.push(i & 0xff, i & 0xff, i >> 8);
      const u32 = (i * 65_537) >>> 0;
      expected.push(u32 & 0xff, (u32 >>> 8) & 0xff, (u32 >>> 16) & 0xff, u32 >>> 24);
      const u64 = BigInt(i) << 40n;
      for (let b = 0n; b < 8n; b++) expected.push(Number((u64 >> (8n * b)) & 0xffn));
    }
    expect(w.length).to.equal(600 * 15);
    expect(toHex(w.finish())).to.equal(toHex(Uint8Array.from(expected)));
  });

  it("copies what bytes() is given: changing the caller's array afterwards changes nothing written", () => {
    const part = Uint8Array.of(1, 2, 3);
    const w = new ByteWriter().bytes(part);
    part.fill(9);
    expect(toHex(w.finish())).to.equal("010203");
  });

  it("finish() hands out a copy that later writers (sharing the pooled buffer) do not change; a finished writer takes no more", () => {
    const w = new ByteWriter().u8(1).u32(0xdeadbeef);
    const first = w.finish();
    expect(() => w.u8(2)).to.throw(/after finish/);
    expect(() => w.finish()).to.throw(/twice/);
    // the next writers reuse the working buffer: what was handed out stays as it was
    for (let i = 0; i < 40; i++) new ByteWriter().bytes(new Uint8Array(100).fill(i)).finish();
    expect(toHex(first)).to.equal("01efbeadde");
    expect(new ByteWriter().finish()).to.have.length(0);
  });

  it("writers open at the same time (one inside another's work) keep their bytes apart", () => {
    const outer = new ByteWriter().u8(0xaa);
    const inner = new ByteWriter().u8(0xbb).bytes(new Uint8Array(5000).fill(0xcc)); // grows past the pooled size
    outer.bytes(inner.finish().subarray(0, 2));
    const third = new ByteWriter().u8(0xdd);
    outer.u8(0xee);
    expect(toHex(outer.finish())).to.equal("aabbccee");
    expect(toHex(third.finish())).to.equal("dd");
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

  it("finishKey() gives one character per byte written, past the pooled size too, and ends the writer", () => {
    const all = Uint8Array.from({ length: 256 }, (_, i) => i);
    const key = new ByteWriter().bytes(all).finishKey();
    expect(key).to.have.length(256);
    for (let i = 0; i < 256; i++) expect(key.charCodeAt(i)).to.equal(i);
    const big = new Uint8Array(10_000).map((_, i) => (i * 7) & 0xff);
    const w = new ByteWriter().bytes(big);
    const bigKey = w.finishKey();
    expect(Uint8Array.from(bigKey, (c) => c.charCodeAt(0))).to.deep.equal(big);
    expect(() => w.finishKey()).to.throw(/twice/);
    expect(new ByteWriter().u8(1).finishKey()).to.not.equal(new ByteWriter().u8(1).u8(0).finishKey());
    expect(new ByteWriter().finishKey()).to.equal("");
  });

  it("bytesKey() reads only the bytes of the view it is given (a subarray inside a larger buffer)", () => {
    const whole = Uint8Array.from({ length: 64 }, (_, i) => 200 + (i % 50));
    const view = whole.subarray(10, 20);
    const key = bytesKey(view);
    expect(key).to.have.length(10);
    expect(Uint8Array.from(key, (c) => c.charCodeAt(0))).to.deep.equal(whole.slice(10, 20));
    expect(bytesKey(new Uint8Array(0))).to.equal("");
  });
});

describe("bytesEqualAt", () => {
  it("finds the bytes at the offset only, and nothing past the end", () => {
    const hay = Uint8Array.of(9, 1, 2, 3, 4);
    expect(bytesEqualAt(hay, 1, Uint8Array.of(1, 2, 3))).to.equal(true);
    expect(bytesEqualAt(hay, 0, Uint8Array.of(1, 2, 3))).to.equal(false);
    expect(bytesEqualAt(hay, 2, Uint8Array.of(2, 3, 5))).to.equal(false);
    expect(bytesEqualAt(hay, 3, Uint8Array.of(3, 4, 0))).to.equal(false);
    expect(bytesEqualAt(hay, 5, new Uint8Array(0))).to.equal(true);
  });
});
