/** `BytesMemo`: a bounded memo keyed by byte content (the valid-key and point memos of `keys.ts`). */
import { expect } from "chai";
import fc from "fast-check";
import { BytesMemo } from "../src/bytes-memo.js";

describe("BytesMemo: values kept by the content of their keys", () => {
  it("finds a value by equal bytes in another buffer or a view inside a larger one, and by nothing else", () => {
    const m = new BytesMemo<string>(16);
    const key = Uint8Array.from({ length: 33 }, (_, i) => i + 1);
    m.set(key, "a");
    const inLarger = new Uint8Array(50);
    inLarger.set(key, 9);
    expect(m.get(Uint8Array.from(key))).to.equal("a");
    expect(m.get(inLarger.subarray(9, 42))).to.equal("a");
    // same tail, other first byte; a prefix; the same bytes one longer
    const other = Uint8Array.from(key);
    other[0] = 99;
    expect(m.get(other)).to.equal(undefined);
    expect(m.get(key.subarray(1))).to.equal(undefined);
    expect(m.get(Uint8Array.of(0, ...key))).to.equal(undefined);
  });

  it("a key and a longer one that starts with it and ends in the same eight bytes are different keys", () => {
    const m = new BytesMemo<string>(16);
    const short = Uint8Array.of(...Array.from({ length: 25 }, (_, i) => i + 1), 7, 7, 7, 7, 7, 7, 7, 7);
    const long = Uint8Array.of(...short, 7, 7, 7, 7, 7, 7, 7);
    m.set(short, "short");
    expect(m.get(long)).to.equal(undefined);
    m.set(long, "long");
    expect([m.get(short), m.get(long), m.size]).to.deep.equal(["short", "long", 2]);
  });

  it("keeps a copy of the key: changing the caller's array afterwards changes nothing kept", () => {
    const m = new BytesMemo<number>(4);
    const key = Uint8Array.of(1, 2, 3, 4, 5, 6, 7, 8, 9);
    m.set(key, 1);
    const before = Uint8Array.from(key);
    key[8] = 0;
    expect(m.get(before)).to.equal(1);
    expect(m.get(key)).to.equal(undefined);
  });

  it("replaces the value of an equal key without growing, and forgets everything once full", () => {
    const m = new BytesMemo<number>(3);
    m.set(Uint8Array.of(1), 1);
    m.set(Uint8Array.of(1), 2);
    expect(m.size).to.equal(1);
    expect(m.get(Uint8Array.of(1))).to.equal(2);
    m.set(Uint8Array.of(2), 2);
    m.set(Uint8Array.of(3), 3);
    expect(m.size).to.equal(3);
    m.set(Uint8Array.of(4), 4);
    expect(m.size).to.equal(1);
    expect(m.get(Uint8Array.of(1))).to.equal(undefined);
    expect(m.get(Uint8Array.of(4))).to.equal(4);
    expect(() => new BytesMemo(0)).to.throw(RangeError);
  });

  it("agrees with a map keyed by hex for any keys, colliding tails included", () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.uint8Array({ maxLength: 12 }), fc.boolean()), { maxLength: 60 }), (ops) => {
        const m = new BytesMemo<number>(1000);
        const ref = new Map<string, number>();
        ops.forEach(([k, write], i) => {
          // half the keys share their last 8 bytes with a fixed tail: same bucket, different content
          const key = write ? Uint8Array.of(...k, 1, 2, 3, 4, 5, 6, 7, 8) : k;
          const hex = Buffer.from(key).toString("hex");
          m.set(key, i);
          ref.set(hex, i);
        });
        for (const [hex, v] of ref) expect(m.get(Buffer.from(hex, "hex"))).to.equal(v);
        expect(m.size).to.equal(ref.size);
      }),
    );
  });
});
