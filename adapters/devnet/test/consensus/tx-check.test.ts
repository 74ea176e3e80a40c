/** CheckTransaction reject reasons and the input-value check, one per rule. */
import { expect } from "chai";
import { ConsensusError } from "../../src/consensus/errors.js";
import { MAX_MONEY, checkInputValues, checkTransaction } from "../../src/consensus/tx-check.js";
import type { Tx } from "../../src/consensus/tx.js";

function baseTx(): Tx {
  return {
    version: 2, locktime: 0,
    inputs: [
      { prevTxid: new Uint8Array(32).fill(1), prevVout: 0, scriptSig: new Uint8Array(0), sequence: 0xffffffff, witness: [] },
      { prevTxid: new Uint8Array(32).fill(1), prevVout: 1, scriptSig: new Uint8Array(0), sequence: 0xffffffff, witness: [] },
    ],
    outputs: [{ value: 5000n, scriptPubKey: Uint8Array.of(0x51) }],
  };
}

function code(tx: Tx): string | undefined {
  try {
    checkTransaction(tx);
    return undefined;
  } catch (e) {
    expect(e).to.be.instanceOf(ConsensusError);
    return (e as ConsensusError).code;
  }
}

describe("checkTransaction (Core's CheckTransaction)", () => {
  it("accepts an ordinary transaction", () => {
    expect(code(baseTx())).to.equal(undefined);
  });

  it("rejects no inputs and no outputs", () => {
    expect(code({ ...baseTx(), inputs: [] })).to.equal("bad-txns-vin-empty");
    expect(code({ ...baseTx(), outputs: [] })).to.equal("bad-txns-vout-empty");
  });

  it("rejects negative, too large and overflowing output values, accepting exactly MAX_MONEY", () => {
    expect(code({ ...baseTx(), outputs: [{ value: -1n, scriptPubKey: new Uint8Array(0) }] })).to.equal("bad-txns-vout-negative");
    expect(code({ ...baseTx(), outputs: [{ value: MAX_MONEY + 1n, scriptPubKey: new Uint8Array(0) }] })).to.equal("bad-txns-vout-toolarge");
    const two = [{ value: MAX_MONEY, scriptPubKey: new Uint8Array(0) }, { value: 1n, scriptPubKey: new Uint8Array(0) }];
    expect(code({ ...baseTx(), outputs: two })).to.equal("bad-txns-txouttotal-toolarge");
    expect(code({ ...baseTx(), outputs: [{ value: MAX_MONEY, scriptPubKey: new Uint8Array(0) }] })).to.equal(undefined);
  });

  it("rejects a transaction spending the same outpoint twice", () => {
    const tx = baseTx();
    tx.inputs[1]!.prevVout = 0;
    expect(code(tx)).to.equal("bad-txns-inputs-duplicate");
  });

  it("rejects a null prevout in a non-coinbase and a coinbase script outside 2..100 bytes", () => {
    const tx = baseTx();
    tx.inputs[1] = { ...tx.inputs[1]!, prevTxid: new Uint8Array(32), prevVout: 0xffffffff };
    expect(code(tx)).to.equal("bad-txns-prevout-null");
    const coinbase = (len: number): Tx => ({
      ...baseTx(),
      inputs: [{ prevTxid: new Uint8Array(32), prevVout: 0xffffffff, scriptSig: new Uint8Array(len), sequence: 0, witness: [] }],
    });
    expect(code(coinbase(1))).to.equal("bad-cb-length");
    expect(code(coinbase(101))).to.equal("bad-cb-length");
    expect(code(coinbase(2))).to.equal(undefined);
    expect(code(coinbase(100))).to.equal(undefined);
  });

  it("rejects a transaction whose stripped size exceeds the block weight", () => {
    const tx = baseTx();
    tx.outputs = [{ value: 0n, scriptPubKey: new Uint8Array(1_000_001) }];
    expect(code(tx)).to.equal("bad-txns-oversize");
  });
});

describe("checkInputValues (amounts of Core's CheckTxInputs)", () => {
  const spent = (...amounts: bigint[]) => amounts.map((amount) => ({ amount, scriptPubKey: new Uint8Array(0) }));

  it("returns the fee when inputs cover outputs", () => {
    expect(checkInputValues(baseTx(), spent(3000n, 2500n))).to.equal(500n);
  });

  it("rejects inputs worth less than the outputs and out-of-range input values", () => {
    expect(() => checkInputValues(baseTx(), spent(3000n, 1999n))).to.throw(ConsensusError).with.property("code", "bad-txns-in-belowout");
    expect(() => checkInputValues(baseTx(), spent(MAX_MONEY, 1n))).to.throw(ConsensusError)
      .with.property("code", "bad-txns-inputvalues-outofrange");
    expect(() => checkInputValues(baseTx(), spent(-1n, 9000n))).to.throw(ConsensusError)
      .with.property("code", "bad-txns-inputvalues-outofrange");
  });
});
