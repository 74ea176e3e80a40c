/** Time locks: nLockTime finality, BIP-68 sequence locks, coinbase maturity. */
import { expect } from "chai";
import { ConsensusError } from "../../src/consensus/errors.js";
import { calculateSequenceLocks, checkCoinbaseMaturity, isFinalTx, sequenceLocksSatisfied } from "../../src/consensus/locks.js";
import type { Tx } from "../../src/consensus/tx.js";

const TYPE_FLAG = 1 << 22;
const DISABLE = 0x80000000;

function tx(locktime: number, sequences: number[], version = 2): Tx {
  return {
    version, locktime,
    inputs: sequences.map((sequence, i) => ({ prevTxid: new Uint8Array(32).fill(i + 1), prevVout: 0, scriptSig: new Uint8Array(0), sequence, witness: [] })),
    outputs: [{ value: 1n, scriptPubKey: new Uint8Array(0) }],
  };
}

describe("isFinalTx", () => {
  it("treats locktime 0 as final", () => {
    expect(isFinalTx(tx(0, [0]), 1, 0)).to.equal(true);
  });

  it("compares height locks with the block height, strictly", () => {
    expect(isFinalTx(tx(100, [0]), 101, 0)).to.equal(true);
    expect(isFinalTx(tx(100, [0]), 100, 0)).to.equal(false);
  });

  it("compares time locks (≥ 500000000) with the block time, strictly", () => {
    expect(isFinalTx(tx(500_000_100, [0]), 10, 500_000_101)).to.equal(true);
    expect(isFinalTx(tx(500_000_100, [0]), 10_000_000, 500_000_100)).to.equal(false);
  });

  it("ignores an unmet locktime when every input's sequence is final", () => {
    expect(isFinalTx(tx(100, [0xffffffff, 0xffffffff]), 50, 0)).to.equal(true);
    expect(isFinalTx(tx(100, [0xffffffff, 0xfffffffe]), 50, 0)).to.equal(false);
  });
});

describe("BIP-68 sequence locks", () => {
  it("holds a height-relative lock until coin height + n", () => {
    const t = tx(0, [10]);
    expect(calculateSequenceLocks(t, [100], [0])).to.deep.equal({ minHeight: 109, minTime: -1 });
    expect(sequenceLocksSatisfied(t, [100], [0], 109, 0)).to.equal(false);
    expect(sequenceLocksSatisfied(t, [100], [0], 110, 0)).to.equal(true);
  });

  it("holds a time-relative lock in 512-second units from the MTP before the coin's block", () => {
    const t = tx(0, [TYPE_FLAG | 2]);
    expect(calculateSequenceLocks(t, [100], [1000])).to.deep.equal({ minHeight: -1, minTime: 2023 });
    expect(sequenceLocksSatisfied(t, [100], [1000], 500, 2023)).to.equal(false);
    expect(sequenceLocksSatisfied(t, [100], [1000], 500, 2024)).to.equal(true);
  });

  it("takes the strictest input and skips inputs with the disable flag", () => {
    const t = tx(0, [5, 20, DISABLE | 1000]);
    expect(calculateSequenceLocks(t, [200, 190, 0], [0, 0, 0]).minHeight).to.equal(209);
  });

  it("does not apply to version 1 transactions", () => {
    expect(sequenceLocksSatisfied(tx(0, [50], 1), [100], [0], 101, 0)).to.equal(true);
    expect(sequenceLocksSatisfied(tx(0, [50], 2), [100], [0], 101, 0)).to.equal(false);
  });
});

describe("checkCoinbaseMaturity", () => {
  it("refuses a coinbase spend before 100 confirmations and allows it at 100", () => {
    expect(() => checkCoinbaseMaturity(10, 109)).to.throw(ConsensusError).with.property("code", "bad-txns-premature-spend-of-coinbase");
    expect(() => checkCoinbaseMaturity(10, 110)).not.to.throw();
  });
});
