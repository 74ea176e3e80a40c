import { expect } from "chai";
import fc from "fast-check";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { dirname, join } from "node:path";
import * as musig2 from "@scure/btc-signer/musig2.js";
import { arbPubkey } from "./arbitraries.js";
import { fromHex, toHex } from "../src/encoding.js";
import { ProtocolDecodeError } from "../src/errors.js";
import { aggregateXOnly, keyAggUnsorted, sortPubkeys } from "../src/keys.js";
import { tweakXOnly } from "../src/taproot.js";
import { MusigError } from "../src/musig-backend.js";
import { libsecpMusig } from "../src/musig-libsecp.js";

const DIR = join(dirname(fileURLToPath(import.meta.url)), "../../../../test/vectors/bips/bip-0327");
const load = (f: string) => JSON.parse(readFileSync(join(DIR, f), "utf8"));

describe("BIP-327 KeySort and KeyAgg used for policy internal keys (official vectors)", () => {
  const agg = load("key_agg_vectors.json");
  const keys = (idx: number[]) => idx.map((i) => fromHex(agg.pubkeys[i]));

  it("key_sort_vectors: sorts by the 33-byte encoding", () => {
    const v = load("key_sort_vectors.json");
    expect(sortPubkeys(v.pubkeys.map(fromHex)).map((k) => toHex(k).toUpperCase())).to.deep.equal(v.sorted_pubkeys);
  });

  agg.valid_test_cases.forEach((c: any, i: number) => {
    it(`key_agg valid case ${i}: indices [${c.key_indices}]`, () => {
      expect(toHex(keyAggUnsorted(keys(c.key_indices)).slice(1)).toUpperCase()).to.equal(c.expected);
    });
  });

  agg.error_test_cases.forEach((c: any, i: number) => {
    if (c.tweak_indices.length === 0) {
      it(`key_agg error case ${i}: ${c.comment} → ProtocolDecodeError`, () => {
        expect(() => keyAggUnsorted(keys(c.key_indices))).to.throw(ProtocolDecodeError);
      });
    } else if (c.is_xonly[0] === true) {
      it(`key_agg error case ${i}: ${c.comment} (x-only tweak) → ProtocolDecodeError`, () => {
        const q = keyAggUnsorted(keys(c.key_indices)).slice(1);
        expect(() => tweakXOnly(q, fromHex(agg.tweaks[c.tweak_indices[0]]))).to.throw(ProtocolDecodeError, /valid secp256k1 scalar/);
      });
    } else {
      it(`key_agg error case ${i}: ${c.comment} (plain tweak, through the MuSig2 backend) → MusigError`, () => {
        expect(() => libsecpMusig.keyAgg(keys(c.key_indices), c.tweak_indices.map((t: number) => fromHex(agg.tweaks[t])), c.is_xonly)).to.throw(MusigError, /infinity/);
      });
    }
  });

  it("memoised KeyAgg and x-only tweak: a caller mutating a result does not change later results", () => {
    const pks = keys([0, 1, 2]);
    const first = keyAggUnsorted(pks);
    const expected = toHex(first);
    first.fill(0);
    expect(toHex(keyAggUnsorted(pks))).to.equal(expected);
    expect(toHex(keyAggUnsorted(keys([2, 1, 0])))).to.not.equal(expected);
    const internal = keyAggUnsorted(pks).slice(1);
    const tweak = fromHex(agg.tweaks[1]);
    const out = tweakXOnly(internal, tweak);
    const tweaked = toHex(out.outputKey);
    out.outputKey.fill(0);
    expect(toHex(tweakXOnly(internal, tweak).outputKey)).to.equal(tweaked);
  });

  it("property: sorted aggregation matches @scure/btc-signer's BIP-327 implementation", () => {
    fc.assert(
      fc.property(fc.array(arbPubkey(), { minLength: 1, maxLength: 4 }), (pks) => {
        const theirs = musig2.keyAggExport(musig2.keyAggregate(musig2.sortKeys(pks)));
        expect(toHex(aggregateXOnly(pks))).to.equal(toHex(theirs));
      }),
      { numRuns: 10 },
    );
  });
});
