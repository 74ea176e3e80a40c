/**
 * `toHex` and `fromHex` (hex.ts, through encoding.ts) on Node's native codec must give what
 * `@noble/hashes`' give and refuse exactly what a strict even-length hex pattern refuses; what
 * `fromHex` returns is a plain `Uint8Array` owning its exact buffer.
 */
import { expect } from "chai";
import fc from "fast-check";
import { bytesToHex, hexToBytes } from "@noble/hashes/utils.js";
import { fromHex, toHex } from "../src/encoding.js";
import { ProtocolDecodeError } from "../src/errors.js";

const STRICT_HEX = /^(?:[0-9a-fA-F]{2})*$/;
/** Hex digits of both cases with the characters a lax decoder might let through. */
const ALPHABET = [..."0123456789abcdefABCDEF", "g", "G", "x", " ", "\n", "-", "é", "\u0660", "\uff10", "\0"];

function referenceDecode(s: string): Uint8Array | undefined {
  return STRICT_HEX.test(s) ? hexToBytes(s) : undefined;
}

describe("hex (native codec) against noble's", () => {
  it("toHex of any bytes, at any offset of a larger buffer, is noble's lowercase hex", () => {
    fc.assert(fc.property(fc.uint8Array({ maxLength: 4000 }), fc.nat(16), fc.nat(16), (buf, a, b) => {
      const start = Math.min(a, buf.length);
      const bytes = buf.subarray(start, Math.max(start, buf.length - b));
      expect(toHex(bytes)).to.equal(bytesToHex(bytes));
    }));
  });

  it("fromHex accepts exactly the even-length hex strings (either case) and decodes them as noble does", () => {
    const candidate = fc.oneof(
      fc.uint8Array({ maxLength: 300 }).map((b) => bytesToHex(b)),
      fc.uint8Array({ maxLength: 300 }).map((b) => bytesToHex(b).toUpperCase()),
      fc.array(fc.constantFrom(...ALPHABET), { maxLength: 40 }).map((cs) => cs.join("")),
      // valid hex with one character replaced somewhere
      fc.tuple(fc.uint8Array({ minLength: 1, maxLength: 60 }), fc.nat(), fc.constantFrom(...ALPHABET)).map(([b, i, c]) => {
        const h = bytesToHex(b);
        const at = i % h.length;
        return h.slice(0, at) + c + h.slice(at + 1);
      }),
    );
    let accepted = 0;
    let refused = 0;
    fc.assert(fc.property(candidate, (s) => {
      const want = referenceDecode(s);
      if (want === undefined) {
        expect(() => fromHex(s), JSON.stringify(s)).to.throw(ProtocolDecodeError);
        refused++;
      } else {
        expect(fromHex(s), JSON.stringify(s)).to.deep.equal(want);
        accepted++;
      }
    }), { numRuns: 2000 });
    // both sides of the rule were exercised
    expect(accepted).to.be.greaterThan(100);
    expect(refused).to.be.greaterThan(100);
  });

  it("fromHex returns a plain Uint8Array owning exactly its bytes (no Buffer, no shared pool)", () => {
    const out = fromHex("00ff10");
    expect(Object.getPrototypeOf(out)).to.equal(Uint8Array.prototype);
    expect(out.byteOffset).to.equal(0);
    expect(out.buffer.byteLength).to.equal(3);
    // slice copies, as for any Uint8Array
    const copy = out.slice();
    copy[0] = 7;
    expect(out[0]).to.equal(0);
  });

  it("odd lengths, non-strings and non-bytes are refused", () => {
    expect(() => fromHex("abc")).to.throw(ProtocolDecodeError);
    expect(() => fromHex(42 as unknown as string)).to.throw(ProtocolDecodeError);
    expect(() => toHex("00" as unknown as Uint8Array)).to.throw(TypeError);
    expect(fromHex("")).to.deep.equal(new Uint8Array(0));
    expect(toHex(new Uint8Array(0))).to.equal("");
  });
});
