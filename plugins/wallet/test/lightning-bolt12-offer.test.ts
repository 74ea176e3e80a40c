/**
 * The BOLT 12 offer reader against BOLT 12's test files (test/vectors/bolts/bolt12-offers-test.json,
 * bolt12-format-string-test.json) and against offers built here for rules those files do not
 * isolate.
 */
import { expect } from "chai";
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { bech32 } from "@scure/base";
import { bytesToHex, hexToBytes } from "@noble/hashes/utils.js";
import { decodeBolt12Offer } from "../src/index.js";
import { codeOf } from "./decode-outcome.js";

const DIR = join(dirname(fileURLToPath(import.meta.url)), "../../../../test/vectors/bolts");
const read = <T>(name: string) => JSON.parse(readFileSync(join(DIR, name), "utf8")) as T;
const OFFERS = read<{ description: string; valid: boolean; bolt12: string; fields?: { type: number; length: number; hex: string }[] }[]>("bolt12-offers-test.json");
const FORMAT = read<{ comment: string; valid: boolean; string: string }[]>("bolt12-format-string-test.json");


describe("BOLT 12 offer reader: offers-test.json", () => {
  it("has 20 valid and 33 invalid offers", () => {
    expect(OFFERS.filter((o) => o.valid).length).to.equal(20);
    expect(OFFERS.filter((o) => !o.valid).length).to.equal(33);
  });

  for (const o of OFFERS.filter((x) => x.valid)) {
    it(`decodes "${o.description}" to its listed fields`, () => {
      const d = decodeBolt12Offer(o.bolt12);
      expect(d.records.map((r) => ({ type: Number(r.type), length: r.value.length, hex: bytesToHex(r.value) }))).to.deep.equal(o.fields);
      expect(d.offer).to.equal(o.bolt12);
    });
  }

  /**
   * The rule each invalid offer breaks, as the reader's error code. Seven of the upstream strings
   * break an earlier rule than the one their description names: in "zero num_hops", "truncated
   * onionmsg_hop" and the three "bad …" ones the offer_paths record is 2 or 3 bytes long and is
   * followed by records of lower types (not strictly increasing); in "type > 1999999999" and
   * "unknown even type (1000000002)" the type's BigSize has the 2-byte marker 0xfd before a 4-byte
   * value, so it reads as a smaller type whose length runs past the data. They are refused all the
   * same; the rules they name are checked on offers built below.
   */
  const EXPECTED_CODE: Record<string, string> = {
    "Malformed: fields out of order": "tlv",
    "Malformed: unknown even TLV type 78": "unknown-even-type",
    "Malformed: empty": "missing-issuer-id",
    "Malformed: truncated at type": "tlv",
    "Malformed: truncated in length": "tlv",
    "Malformed: truncated after length": "tlv",
    "Malformed: truncated in description": "tlv",
    "Malformed: invalid offer_chains length": "field",
    "Malformed: truncated currency UTF-8": "field",
    "Malformed: invalid currency UTF-8": "field",
    "Malformed: truncated description UTF-8": "field",
    "Malformed: invalid description UTF-8": "field",
    "Malformed: truncated offer_paths": "field",
    "Malformed: zero num_hops in blinded_path": "tlv",
    "Malformed: truncated onionmsg_hop in blinded_path": "tlv",
    "Malformed: bad first_node_id in blinded_path": "tlv",
    "Malformed: bad path_key in blinded_path": "tlv",
    "Malformed: bad blinded_node_id in onionmsg_hop": "tlv",
    "Malformed: truncated issuer UTF-8": "field",
    "Malformed: invalid issuer UTF-8": "field",
    "Malformed: invalid offer_issuer_id": "field",
    "Contains type >= 80": "type-range",
    "Contains type > 1999999999": "tlv",
    "Contains unknown even type (1000000002)": "tlv",
    "Contains unknown feature 122": "unknown-required-feature",
    "Missing offer_description, but has offer_amount": "missing-description",
    "Missing offer_amount with offer_currency": "currency-without-amount",
    "Invalid: zero offer_amount": "zero-amount",
    "Invalid: zero offer_amount with currency": "zero-amount",
    "Missing offer_issuer_id and no offer_path": "missing-issuer-id",
    "Second offer_path is empty": "field",
    "offer_chains with zero entries": "field",
    "Bech32 padding exceeds 4-bit limit": "encoding",
  };
  for (const o of OFFERS.filter((x) => !x.valid)) {
    it(`refuses "${o.description}"`, () => {
      expect(EXPECTED_CODE, o.description).to.have.property(o.description);
      expect(codeOf(() => decodeBolt12Offer(o.bolt12))).to.equal(EXPECTED_CODE[o.description]);
    });
  }
});

describe("BOLT 12 offer reader: format-string-test.json (case, + joins)", () => {
  for (const f of FORMAT) {
    it(`${f.valid ? "accepts" : "refuses"}: ${f.comment} (${JSON.stringify(f.string.slice(0, 24))}…)`, () => {
      expect(codeOf(() => decodeBolt12Offer(f.string))).to.equal(f.valid ? "decoded" : "encoding");
      if (f.valid) expect(decodeBolt12Offer(f.string).offer).to.equal(FORMAT[0]!.string);
    });
  }
});

// ---- offers built here ------------------------------------------------------------------------

const bigSize = (v: bigint): number[] => {
  if (v < 0xfdn) return [Number(v)];
  const [prefix, len] = v <= 0xffffn ? [0xfd, 2] : v <= 0xffffffffn ? [0xfe, 4] : [0xff, 8];
  return [prefix, ...Array.from({ length: len }, (_, i) => Number((v >> BigInt(8 * (len - 1 - i))) & 0xffn))];
};
const rec = (type: bigint | number, value: Uint8Array | number[]) => [...bigSize(BigInt(type)), ...bigSize(BigInt(value.length)), ...value];
const offer = (...records: number[][]) => bech32.encode("lno", bech32.toWords(new Uint8Array(records.flat())), false).slice(0, -6); // no checksum
const utf8 = (s: string) => [...new TextEncoder().encode(s)];
const KEY = [...hexToBytes("02eec7245d6b7d2ccb30380bfbe2a3648cd7a942653f5aa340edcea1f283686619")];
const PATH_KEY = [...hexToBytes("020202020202020202020202020202020202020202020202020202020202020202")];
const ISSUER_ID = rec(22, KEY);
const DESCRIPTION = rec(10, utf8("Test vectors"));
const hop = (data: number[]) => [...KEY, data.length >> 8, data.length & 0xff, ...data];
/** 02 ff…ff: x is not below the field size, so no point has it. */
const BAD_KEY = [2, ...new Array<number>(32).fill(0xff)];
const path = (intro: number[], hops: number[][]) => [...intro, ...PATH_KEY, hops.length, ...hops.flat()];

describe("BOLT 12 offer reader: rules checked on offers built here", () => {
  it("reads every known field", () => {
    const d = decodeBolt12Offer(offer(
      rec(2, new Uint8Array(64).fill(9)), rec(4, [1, 2]), rec(6, utf8("USD")), rec(8, [0x01, 0x00]), DESCRIPTION, rec(12, [0x02]),
      rec(14, [0x65, 0x00, 0x00, 0x00]), rec(16, path(KEY, [hop([7, 7])])), rec(18, utf8("Carol")), rec(20, [5]), ISSUER_ID, rec(1_000_000_001, [1]),
    ));
    expect([d.chains?.length, bytesToHex(d.metadata!), d.currency, d.amount, d.description, d.featureBits, d.absoluteExpiry, d.issuer, d.quantityMax])
      .to.deep.equal([2, "0102", "USD", 256n, "Test vectors", [1], 0x65000000n, "Carol", 5n]);
    expect(d.paths![0]!.hops.map((h) => bytesToHex(h.encryptedRecipientData))).to.deep.equal(["0707"]);
    expect(bytesToHex(d.issuerId!)).to.equal(bytesToHex(new Uint8Array(KEY)));
    expect(d.records.map((r) => r.type)).to.include(1_000_000_001n); // unknown odd experimental: kept, ignored
  });

  it("reads a blinded path introduced by a channel (sciddir) and several paths", () => {
    const sciddir = [1, 0, 0, 1, 0, 0, 2, 0, 3];
    const d = decodeBolt12Offer(offer(DESCRIPTION, rec(16, [...path(KEY, [hop([])]), ...path(sciddir, [hop([1]), hop([2])])])));
    expect(d.paths!.map((p) => p.hops.length)).to.deep.equal([1, 2]);
    expect(d.paths![1]!.introduction).to.deep.equal({ shortChannelId: (1n << 40n) | (2n << 16n) | 3n, direction: 1 });
  });

  it("refuses the blinded-path faults the upstream strings meant to show", () => {
    expect(codeOf(() => decodeBolt12Offer(offer(DESCRIPTION, rec(16, path(KEY, [])), ISSUER_ID)))).to.equal("field"); // zero num_hops
    expect(codeOf(() => decodeBolt12Offer(offer(DESCRIPTION, rec(16, path(BAD_KEY, [hop([])])))))).to.equal("field"); // bad first_node_id
    expect(codeOf(() => decodeBolt12Offer(offer(DESCRIPTION, rec(16, [...KEY, ...BAD_KEY, 1, ...hop([])]))))).to.equal("field"); // bad path key
    expect(codeOf(() => decodeBolt12Offer(offer(DESCRIPTION, rec(16, path(KEY, [[...BAD_KEY, 0, 0]])))))).to.equal("field"); // bad blinded_node_id
    expect(codeOf(() => decodeBolt12Offer(offer(DESCRIPTION, rec(16, path(KEY, [hop([1, 2, 3])]).slice(0, -1)))))).to.equal("field"); // truncated hop
    expect(codeOf(() => decodeBolt12Offer(offer(DESCRIPTION, rec(16, []), ISSUER_ID)))).to.equal("field"); // no path at all
  });

  it("refuses types outside the offer ranges and unknown even types; keeps unknown odd ones", () => {
    expect(codeOf(() => decodeBolt12Offer(offer(rec(0, []), DESCRIPTION, ISSUER_ID)))).to.equal("type-range");
    expect(codeOf(() => decodeBolt12Offer(offer(DESCRIPTION, ISSUER_ID, rec(2_000_000_000, [1]))))).to.equal("type-range");
    expect(codeOf(() => decodeBolt12Offer(offer(DESCRIPTION, ISSUER_ID, rec(999_999_999, [1]))))).to.equal("type-range");
    expect(codeOf(() => decodeBolt12Offer(offer(DESCRIPTION, ISSUER_ID, rec(1_000_000_002, [1]))))).to.equal("unknown-even-type");
    expect(codeOf(() => decodeBolt12Offer(offer(DESCRIPTION, ISSUER_ID, rec(24, [1]))))).to.equal("unknown-even-type");
    expect(codeOf(() => decodeBolt12Offer(offer(DESCRIPTION, ISSUER_ID, rec(25, [1]), rec(1_999_999_999, []))))).to.equal("decoded");
  });

  it("refuses non-minimal BigSize and tu64 encodings, repeated types, and a length past the data", () => {
    expect(codeOf(() => decodeBolt12Offer(offer([0xfd, 0x00, 0x0a, 12, ...utf8("Test vectors")], ISSUER_ID)))).to.equal("tlv");
    expect(codeOf(() => decodeBolt12Offer(offer(rec(8, [0x00, 0x01]), DESCRIPTION, ISSUER_ID)))).to.equal("field");
    expect(codeOf(() => decodeBolt12Offer(offer(rec(8, new Array<number>(9).fill(1)), DESCRIPTION, ISSUER_ID)))).to.equal("field");
    expect(codeOf(() => decodeBolt12Offer(offer(DESCRIPTION, DESCRIPTION, ISSUER_ID)))).to.equal("tlv");
    expect(codeOf(() => decodeBolt12Offer(offer(DESCRIPTION, [22, 34, ...KEY])))).to.equal("tlv");
  });

  it("refuses bad string encodings: non-zero padding, a checksum-like tail of non-bech32 characters, a wrong prefix", () => {
    const good = offer(DESCRIPTION, ISSUER_ID);
    expect(codeOf(() => decodeBolt12Offer(good))).to.equal("decoded");
    // the last character carries padding bits: flip one of them
    const last = "qpzry9x8gf2tvdw0s3jn54khce6mua7l".indexOf(good.at(-1)!);
    const nonZeroPadding = good.slice(0, -1) + "qpzry9x8gf2tvdw0s3jn54khce6mua7l"[last ^ 1];
    expect(codeOf(() => decodeBolt12Offer(nonZeroPadding))).to.equal("encoding");
    expect(codeOf(() => decodeBolt12Offer(`${good}b`))).to.equal("encoding");
    expect(codeOf(() => decodeBolt12Offer(good.replace(/^lno1/, "lni1")))).to.equal("encoding");
    expect(codeOf(() => decodeBolt12Offer(offer(DESCRIPTION, ISSUER_ID.slice(0, 20))))).to.equal("tlv"); // truncated
    expect(codeOf(() => decodeBolt12Offer(offer(DESCRIPTION, rec(22, BAD_KEY))))).to.equal("field");
    expect(codeOf(() => decodeBolt12Offer(`${good.slice(0, 20)} ${good.slice(20)}`))).to.equal("encoding"); // whitespace without +
  });
});
