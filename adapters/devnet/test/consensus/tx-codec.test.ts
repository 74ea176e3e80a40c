/** Transaction codec: exact round trips, only typed errors on bad bytes, and agreement with bitcoinjs-lib on ids and sizes. */
import { Transaction } from "bitcoinjs-lib";
import { expect } from "chai";
import fc from "fast-check";
import { fromHex, toHex } from "../../src/consensus/bytes.js";
import { ConsensusError } from "../../src/consensus/errors.js";
import { decodeTx, encodeTx, txVsize, txWeight, txid, wtxid, type Tx } from "../../src/consensus/tx.js";
import { loadCoreVectors } from "./core-vectors.js";

const bytes = (max: number) => fc.uint8Array({ maxLength: max });

const txArb: fc.Arbitrary<Tx> = fc.record({
  version: fc.nat({ max: 0xffffffff }),
  inputs: fc.array(fc.record({
    prevTxid: fc.uint8Array({ minLength: 32, maxLength: 32 }),
    prevVout: fc.nat({ max: 0xffffffff }),
    scriptSig: bytes(300),
    sequence: fc.nat({ max: 0xffffffff }),
    witness: fc.array(bytes(80), { maxLength: 4 }),
  }), { minLength: 1, maxLength: 4 }),
  outputs: fc.array(fc.record({
    value: fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }),
    scriptPubKey: bytes(300),
  }), { maxLength: 4 }),
  locktime: fc.nat({ max: 0xffffffff }),
});

/** Every transaction in Core's tx_valid/tx_invalid/sighash files, as hex. */
function coreTransactions(): string[] {
  const out: string[] = [];
  for (const file of ["tx_valid.json", "tx_invalid.json"]) {
    for (const row of loadCoreVectors(file) as unknown[][]) if (Array.isArray(row[0])) out.push(row[1] as string);
  }
  for (const row of (loadCoreVectors("sighash.json") as unknown[][]).slice(1)) out.push(row[0] as string);
  return out;
}

function expectConsensusErrorOrExactRoundTrip(data: Uint8Array): void {
  let tx: Tx;
  try {
    tx = decodeTx(data);
  } catch (e) {
    expect(e).to.be.instanceOf(ConsensusError);
    return;
  }
  expect(toHex(encodeTx(tx))).to.equal(toHex(data));
}

describe("consensus transaction codec", () => {
  it("decodes what it encodes, field for field (with and without witness)", () => {
    fc.assert(fc.property(txArb, (tx) => {
      expect(decodeTx(encodeTx(tx))).to.deep.equal(tx);
      const stripped = decodeTx(encodeTx(tx, false));
      expect(stripped.inputs.every((i) => i.witness.length === 0)).to.equal(true);
      expect(toHex(encodeTx(stripped))).to.equal(toHex(encodeTx(tx, false)));
    }), { numRuns: 300 });
  });

  it("throws only ConsensusError on random bytes, and re-encodes exactly whatever it accepts", () => {
    fc.assert(fc.property(bytes(400), (data) => expectConsensusErrorOrExactRoundTrip(data)), { numRuns: 2000 });
    // Random bytes behind a plausible header reach deeper into the parser.
    fc.assert(fc.property(bytes(300), fc.constantFrom("01000000", "0200000000", "020000000001"), (data, head) => {
      const framed = new Uint8Array([...fromHex(head), ...data]);
      expectConsensusErrorOrExactRoundTrip(framed);
    }), { numRuns: 2000 });
  });

  it("rejects every strict prefix of a valid transaction with ConsensusError", () => {
    fc.assert(fc.property(txArb, fc.nat(), (tx, cut) => {
      const full = encodeTx(tx);
      const prefix = full.subarray(0, cut % full.length);
      expect(() => decodeTx(prefix)).to.throw(ConsensusError);
    }), { numRuns: 500 });
  });

  it("rejects trailing bytes, non-canonical sizes and superfluous witness flags", () => {
    const tx = fromHex((loadCoreVectors("tx_valid.json") as unknown[][]).find((r) => Array.isArray(r[0]))![1] as string);
    expect(() => decodeTx(new Uint8Array([...tx, 0]))).to.throw(ConsensusError).with.property("code", "TX_DECODE_TRAILING");
    // one input, one output, encoded with a 3-byte input count
    const noncanonical = fromHex("01000000" + "fd0100" + "00".repeat(36) + "00" + "ffffffff" + "01" + "00".repeat(8) + "00" + "00000000");
    expect(() => decodeTx(noncanonical)).to.throw(ConsensusError).with.property("code", "TX_DECODE_NONCANONICAL");
    // segwit marker and flag but every witness stack empty
    const superfluous = fromHex("01000000" + "0001" + "01" + "00".repeat(36) + "00" + "ffffffff" + "01" + "00".repeat(8) + "00" + "00" + "00000000");
    expect(() => decodeTx(superfluous)).to.throw(ConsensusError).with.property("code", "TX_DECODE_SUPERFLUOUS_WITNESS");
    const unknownFlag = fromHex("01000000" + "0002" + "01" + "00".repeat(36) + "00" + "ffffffff" + "01" + "00".repeat(8) + "00" + "00000000");
    expect(() => decodeTx(unknownFlag)).to.throw(ConsensusError).with.property("code", "TX_DECODE_UNKNOWN_FLAG");
  });

  it("agrees with bitcoinjs-lib on txid, wtxid, weight and vsize for every transaction in Core's vector files", () => {
    const hexes = coreTransactions();
    expect(hexes.length).to.be.greaterThan(700);
    let segwit = 0;
    for (const hex of hexes) {
      const ours = decodeTx(fromHex(hex));
      const theirs = Transaction.fromHex(hex);
      expect(txid(ours), hex).to.equal(theirs.getId());
      // bitcoinjs-lib reports a coinbase's wtxid as zero (its value in the witness commitment); ours is the hash.
      if (!theirs.isCoinbase()) expect(wtxid(ours), hex).to.equal(toHex(Uint8Array.from(theirs.getHash(true)).reverse()));
      if (!theirs.hasWitnesses()) expect(wtxid(ours), hex).to.equal(txid(ours));
      expect(txWeight(ours), hex).to.equal(theirs.weight());
      expect(txVsize(ours), hex).to.equal(theirs.virtualSize());
      if (theirs.hasWitnesses()) segwit++;
    }
    expect(segwit).to.be.greaterThan(10);
  });

  it("charges 20 vbytes per sigop when sigops dominate the size", () => {
    const tx = decodeTx(fromHex(coreTransactions()[0]!));
    expect(txVsize(tx, 0)).to.equal(Math.ceil(txWeight(tx) / 4));
    expect(txVsize(tx, 1000)).to.equal(5000);
  });
});
