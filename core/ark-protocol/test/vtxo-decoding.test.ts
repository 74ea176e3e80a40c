import { expect } from "chai";
import fc from "fast-check";
import { arkVectors, compareVector, expectVector } from "./ark-vectors.js";
import { arbServerVtxo, arbVtxo, arbGenesisItem } from "./arbitraries.js";
import { ByteReader, ByteWriter, fromHex, readOptionalSha256, readTxOut, toHex, writeOptionalSha256 } from "../src/encoding.js";
import { ProtocolDecodeError } from "../src/errors.js";
import { readOptionalPubkey, writeOptionalPubkey } from "../src/keys.js";
import { readOptionalSignature, readTransition, writeOptionalSignature } from "../src/vtxo-genesis.js";
import { decodeBareVtxo, decodeGenesis, decodeServerVtxo, decodeVtxo, encodeBareVtxo, encodeGenesis, encodeVtxo } from "../src/vtxo.js";
import { decodeTx } from "../src/tx.js";

const v2 = arkVectors.vtxo_encoding.encoding_version_2.vtxos;
const boardHex: string = v2[0].hex;

function onlyTypedErrors(fn: () => unknown): void {
  try {
    fn();
  } catch (e) {
    if (!(e instanceof ProtocolDecodeError)) throw e;
  }
}

describe("encoding edge cases (vector group `encoding_edge_cases`, bark's `ark::encode`)", () => {
  const cases = arkVectors.encoding_edge_cases.cases;

  it("compact size: minimal encodings round-trip; non-minimal forms are rejected", () => {
    const ex = cases[0].examples;
    compareVector(cases[0], "provenance_examples", (kind: string) => expect(["reference", "derived_checked", "derived"]).to.include(kind));
    for (const n of Object.keys(ex)) {
      expectVector(toHex(new ByteWriter().compactSize(BigInt(n)).finish()), ex, n);
      expect(new ByteReader(fromHex(ex[n])).compactSize()).to.equal(BigInt(n));
    }
    for (const bad of ["fd1000", "fe00010000", "ffffffffff00000000"]) {
      expect(() => new ByteReader(fromHex(bad)).compactSize(), bad).to.throw(ProtocolDecodeError, /non-minimal/);
    }
  });

  it("trailing bytes after a full VTXO are rejected (binary and hex)", () => {
    expect(() => decodeVtxo(fromHex(boardHex + "00"))).to.throw(ProtocolDecodeError, /trailing bytes/);
    expect(() => decodeVtxo(fromHex(boardHex + "0"))).to.throw(ProtocolDecodeError);
  });

  it("a bare encoding is not a full VTXO unless point == anchor; a full one decodes as bare", () => {
    expect(() => decodeVtxo(fromHex(v2[0].bare_hex))).to.throw(ProtocolDecodeError, /without genesis/);
    const full = decodeVtxo(fromHex(boardHex));
    const onAnchor = { ...full, genesis: [], point: full.anchorPoint };
    expect(decodeVtxo(encodeBareVtxo(onAnchor))).to.deep.equal(onAnchor);
    expect(() => decodeVtxo(encodeVtxo({ ...full, point: full.anchorPoint }))).to.throw(ProtocolDecodeError, /cannot have genesis/);
    const { genesis: _g, ...bare } = full;
    expect(decodeBareVtxo(fromHex(boardHex))).to.deep.equal(bare);
  });

  it("genesis item with output_idx >= nb_outputs is rejected", () => {
    const full = decodeVtxo(fromHex(boardHex));
    const bytes = encodeGenesis(full.genesis);
    // count(1) ‖ transition(132) ‖ nb_outputs ‖ output_idx …
    const at = 1 + 132;
    expect(bytes[at]).to.equal(1);
    const bad = Uint8Array.from(bytes);
    bad[at + 1] = 1;
    expect(() => decodeGenesis(bad)).to.throw(ProtocolDecodeError, /output_idx/);
    bad[at] = 0;
    bad[at + 1] = 0;
    expect(() => decodeGenesis(bad)).to.throw(ProtocolDecodeError, /zero outputs/);
  });

  it("cosigned transition with an empty pubkey list is rejected", () => {
    // The vector is a rejection: its bytes must be refused for the reason it names.
    compareVector(cases[4], "hex", (hex: string) => expect(() => readTransition(new ByteReader(fromHex(hex)))).to.throw(ProtocolDecodeError, /empty pubkey list/));
  });

  it("arkoor transition tap tweak >= curve order is rejected", () => {
    const arkoorHex: string = v2[1].genesis[1].transition.encoded_hex;
    const bytes = fromHex(arkoorHex);
    const tweakAt = 2 + 33;
    bytes.fill(0xff, tweakAt, tweakAt + 32);
    expect(() => readTransition(new ByteReader(bytes))).to.throw(ProtocolDecodeError, /not a valid secp256k1 scalar/);
  });

  it("optional values: signature none = 64 zeros, pubkey none = 0x00, sha256 = 0x00 | 0x01‖32", () => {
    expect(toHex(writeOptionalSignature(new ByteWriter(), null).finish())).to.equal("00".repeat(64));
    expect(readOptionalSignature(new ByteReader(new Uint8Array(64)))).to.equal(null);
    expect(toHex(writeOptionalPubkey(new ByteWriter(), null).finish())).to.equal("00");
    expect(readOptionalPubkey(new ByteReader(Uint8Array.of(0)))).to.equal(null);
    const pk = fromHex(v2[0].server_pubkey);
    expectVector(toHex(readOptionalPubkey(new ByteReader(writeOptionalPubkey(new ByteWriter(), pk).finish()))!), v2[0], "server_pubkey");
    expect(toHex(writeOptionalSha256(new ByteWriter(), null).finish())).to.equal("00");
    const h = new Uint8Array(32).fill(9);
    expect(toHex(readOptionalSha256(new ByteReader(writeOptionalSha256(new ByteWriter(), h).finish()))!)).to.equal(toHex(h));
    expect(() => readOptionalSha256(new ByteReader(Uint8Array.of(2)))).to.throw(ProtocolDecodeError);
  });

  it("TxOut scriptPubKey longer than 100 bytes is rejected", () => {
    const ok = new ByteWriter().u64(1n).varBytes(new Uint8Array(100)).finish();
    expect(readTxOut(new ByteReader(ok)).script.length).to.equal(100);
    const bad = new ByteWriter().u64(1n).varBytes(new Uint8Array(101)).finish();
    expect(() => readTxOut(new ByteReader(bad))).to.throw(ProtocolDecodeError, /maximum length/);
  });

  it("a genesis with 257 items (count fd0101) round-trips", () => {
    const full = decodeVtxo(fromHex(boardHex));
    const many = { ...full, genesis: Array.from({ length: 257 }, () => full.genesis[0]!) };
    const bytes = encodeVtxo(many);
    const countAt = 2 + 8 + 4 + 33 + 2 + 36;
    expectVector(toHex(bytes.slice(countAt, countAt + 3)), cases[8], "count_hex");
    expect(toHex(encodeVtxo(decodeVtxo(bytes)))).to.equal(toHex(bytes));
  });

  it("heights and deltas above MAX_BLOCK_HEIGHT / MAX_BLOCK_DELTA are rejected", () => {
    const bytes = fromHex(boardHex);
    const hi = Uint8Array.from(bytes);
    hi.set([0xff, 0xff, 0xff, 0x1f], 10); // expiry_height = 0x1fffffff > 499,934,467
    expect(() => decodeVtxo(hi)).to.throw(ProtocolDecodeError, /height/);
    const d = Uint8Array.from(bytes);
    d.set([0x00, 0x40], 2 + 8 + 4 + 33); // exit_delta = 16384
    expect(() => decodeVtxo(d)).to.throw(ProtocolDecodeError, /delta/);
  });
});

describe("VTXO decoding properties (fast-check)", () => {
  it("round trip: encode → decode → encode is the identity for user and server VTXOs", () => {
    fc.assert(
      fc.property(arbVtxo(), (v) => {
        const bytes = encodeVtxo(v);
        const back = decodeVtxo(bytes);
        expect(back).to.deep.equal(v);
        expect(toHex(encodeVtxo(back))).to.equal(toHex(bytes));
      }),
      { numRuns: 60 },
    );
    fc.assert(
      fc.property(arbServerVtxo(), (v) => {
        expect(decodeServerVtxo(encodeVtxo(v))).to.deep.equal(v);
      }),
      { numRuns: 60 },
    );
  });

  it("version 1 round trip for fee-less genesis", () => {
    fc.assert(
      fc.property(arbVtxo(), (v) => {
        const feeless = { ...v, genesis: v.genesis.map((g) => ({ ...g, feeAmount: 0n })) };
        expect(decodeVtxo(encodeVtxo(feeless, 1))).to.deep.equal(feeless);
      }),
      { numRuns: 30 },
    );
  });

  it("split genesis: bare + separately stored genesis re-join to the same VTXO", () => {
    fc.assert(
      fc.property(fc.array(arbGenesisItem(), { maxLength: 4 }), (items) => {
        expect(decodeGenesis(encodeGenesis(items))).to.deep.equal(items);
      }),
      { numRuns: 50 },
    );
  });

  it("random bytes never crash a decoder: they decode or throw ProtocolDecodeError", () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 400 }), (bytes) => {
        onlyTypedErrors(() => decodeVtxo(bytes));
        onlyTypedErrors(() => decodeServerVtxo(bytes));
        onlyTypedErrors(() => decodeBareVtxo(bytes));
        onlyTypedErrors(() => decodeGenesis(bytes));
        onlyTypedErrors(() => decodeTx(bytes));
      }),
      { numRuns: 1500 },
    );
  });

  it("random bytes behind a valid version/amount header only throw ProtocolDecodeError", () => {
    const header = fromHex(boardHex).slice(0, 2 + 8 + 4 + 33 + 2 + 36);
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 300 }), (tail) => {
        const bytes = Uint8Array.from([...header, ...tail]);
        onlyTypedErrors(() => decodeVtxo(bytes));
        onlyTypedErrors(() => decodeServerVtxo(bytes));
      }),
      { numRuns: 800 },
    );
  });

  it("every truncation of every reference VTXO throws ProtocolDecodeError", () => {
    for (const group of ["encoding_version_2", "encoding_version_1"]) {
      for (const vv of arkVectors.vtxo_encoding[group].vtxos) {
        const bytes = fromHex(vv.hex);
        for (let n = 0; n < bytes.length; n++) expect(() => decodeVtxo(bytes.slice(0, n))).to.throw(ProtocolDecodeError);
      }
    }
  });

  it("single-byte mutations of reference VTXOs decode or throw ProtocolDecodeError, never anything else", () => {
    const all = v2.map((vv: any) => fromHex(vv.hex));
    fc.assert(
      fc.property(fc.nat({ max: all.length - 1 }), fc.nat(), fc.integer({ min: 1, max: 255 }), (which, pos, x) => {
        const bytes = Uint8Array.from(all[which]!);
        bytes[pos % bytes.length]! ^= x;
        onlyTypedErrors(() => decodeVtxo(bytes));
      }),
      { numRuns: 1500 },
    );
  });

  it("a huge declared genesis count is rejected before any allocation", () => {
    const head = fromHex(boardHex).slice(0, 2 + 8 + 4 + 33 + 2 + 36);
    const bytes = Uint8Array.from([...head, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f]);
    expect(() => decodeVtxo(bytes)).to.throw(ProtocolDecodeError, /exceeds remaining input/);
  });
});
