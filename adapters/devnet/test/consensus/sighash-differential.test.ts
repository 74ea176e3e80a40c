/** BIP-143 and BIP-341 signature hashes agree with bitcoinjs-lib's independent implementation on random transactions. */
import { Transaction } from "bitcoinjs-lib";
import { expect } from "chai";
import fc from "fast-check";
import { toHex } from "../../src/consensus/bytes.js";
import { PrecomputedTxData, segwitV0Sighash, taprootSighash } from "../../src/consensus/sighash.js";
import { encodeTx, type SpentOutput, type Tx } from "../../src/consensus/tx.js";

const bytes = (min: number, max: number) => fc.uint8Array({ minLength: min, maxLength: max });

const txWithSpent = fc.record({
  version: fc.nat({ max: 0xffffffff }),
  locktime: fc.nat({ max: 0xffffffff }),
  inputs: fc.array(fc.record({
    prevTxid: bytes(32, 32), prevVout: fc.nat({ max: 0xffffffff }), scriptSig: bytes(0, 40),
    sequence: fc.nat({ max: 0xffffffff }), witness: fc.constant([] as Uint8Array[]),
    amount: fc.bigInt({ min: 0n, max: 2_100_000_000_000_000n }), spk: bytes(0, 60),
  }), { minLength: 1, maxLength: 4 }),
  outputs: fc.array(fc.record({ value: fc.bigInt({ min: 0n, max: 2_100_000_000_000_000n }), scriptPubKey: bytes(0, 60) }), { minLength: 1, maxLength: 4 }),
}).map((r) => {
  const tx: Tx = {
    version: r.version, locktime: r.locktime, outputs: r.outputs,
    inputs: r.inputs.map(({ prevTxid, prevVout, scriptSig, sequence, witness }) => ({ prevTxid, prevVout, scriptSig, sequence, witness })),
  };
  const spent: SpentOutput[] = r.inputs.map((i) => ({ amount: i.amount, scriptPubKey: i.spk }));
  return { tx, spent };
});

describe("sighash differential against bitcoinjs-lib", () => {
  it("BIP-143 hashes match for every input, hash type and script code", () => {
    fc.assert(fc.property(txWithSpent, fc.nat(), fc.integer({ min: 0, max: 255 }), bytes(0, 80), ({ tx, spent }, pick, hashType, scriptCode) => {
      const index = pick % tx.inputs.length;
      const theirs = Transaction.fromHex(toHex(encodeTx(tx)));
      const ours = segwitV0Sighash(new PrecomputedTxData(tx, spent), index, scriptCode, spent[index]!.amount, hashType);
      expect(toHex(ours)).to.equal(toHex(theirs.hashForWitnessV0(index, scriptCode, spent[index]!.amount, hashType)));
    }), { numRuns: 300 });
  });

  it("BIP-341/342 hashes match for key path, script path and annex, under every valid hash type", () => {
    const hashTypes = fc.constantFrom(0x00, 0x01, 0x02, 0x03, 0x81, 0x82, 0x83);
    const annexArb = fc.option(bytes(0, 40).map((b) => Uint8Array.of(0x50, ...b)), { nil: undefined });
    const leafArb = fc.option(bytes(32, 32), { nil: undefined });
    // bitcoinjs-lib sizes its message buffer for 34-byte (P2TR) spent scripts, so spent scripts are P2TR here.
    const p2trSpent = txWithSpent.chain(({ tx, spent }) => fc.array(bytes(32, 32), { minLength: spent.length, maxLength: spent.length })
      .map((keys) => ({ tx, spent: spent.map((s, i) => ({ amount: s.amount, scriptPubKey: Uint8Array.of(0x51, 0x20, ...keys[i]!) })) })));
    fc.assert(fc.property(p2trSpent, fc.nat(), hashTypes, annexArb, leafArb, ({ tx, spent }, pick, hashType, annex, leaf) => {
      const index = pick % tx.inputs.length;
      fc.pre((hashType & 3) !== 3 || index < tx.outputs.length);
      const theirs = Transaction.fromHex(toHex(encodeTx(tx))).hashForWitnessV1(
        index, spent.map((s) => s.scriptPubKey), spent.map((s) => s.amount), hashType, leaf, annex,
      );
      const tapscript = leaf === undefined ? undefined : { leafHash: leaf, codeSeparatorPos: 0xffffffff };
      const ours = taprootSighash(new PrecomputedTxData(tx, spent), index, hashType, annex, tapscript);
      expect(ours && toHex(ours)).to.equal(toHex(theirs));
    }), { numRuns: 300 });
  });

  it("refuses undefined taproot hash types and SIGHASH_SINGLE without a matching output", () => {
    fc.assert(fc.property(txWithSpent, fc.integer({ min: 0, max: 255 }), ({ tx, spent }, hashType) => {
      const valid = hashType <= 3 || (hashType >= 0x81 && hashType <= 0x83);
      expect(taprootSighash(new PrecomputedTxData(tx, spent), 0, hashType, undefined) !== undefined).to.equal(valid);
    }), { numRuns: 200 });
    const single = fc.sample(txWithSpent, 1)[0]!;
    single.tx.inputs.push({ ...single.tx.inputs[0]! });
    single.spent.push(single.spent[0]!);
    single.tx.outputs = single.tx.outputs.slice(0, 1);
    expect(taprootSighash(new PrecomputedTxData(single.tx, single.spent), 1, 0x03, undefined)).to.equal(undefined);
  });
});
