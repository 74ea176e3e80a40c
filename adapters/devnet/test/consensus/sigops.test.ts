/** Sigop cost (Core's GetTransactionSigOpCost) for each output type. */
import { expect } from "chai";
import { concatBytes } from "../../src/consensus/bytes.js";
import { MANDATORY_SCRIPT_VERIFY_FLAGS, ScriptFlags } from "../../src/consensus/flags.js";
import { hash160, sha256 } from "../../src/consensus/hashes.js";
import { OP } from "../../src/consensus/opcodes.js";
import { pushData } from "../../src/consensus/script.js";
import { sigOpCost } from "../../src/consensus/sigops.js";
import type { SpentOutput, Tx } from "../../src/consensus/tx.js";

const key = new Uint8Array(33).fill(2);
const multisig = concatBytes(Uint8Array.of(OP.OP_2), pushData(key), pushData(key), pushData(key), Uint8Array.of(OP.OP_3, OP.OP_CHECKMULTISIG));
const p2sh = (redeem: Uint8Array) => concatBytes(Uint8Array.of(OP.OP_HASH160, 20), hash160(redeem), Uint8Array.of(OP.OP_EQUAL));
const p2pkh = concatBytes(Uint8Array.of(OP.OP_DUP, OP.OP_HASH160, 20), new Uint8Array(20), Uint8Array.of(OP.OP_EQUALVERIFY, OP.OP_CHECKSIG));
const p2wpkhProgram = concatBytes(Uint8Array.of(0, 20), new Uint8Array(20));

function spend(scriptSig: Uint8Array, witness: Uint8Array[], outputs: Uint8Array[] = [Uint8Array.of(OP.OP_1)]): Tx {
  return {
    version: 2, locktime: 0,
    inputs: [{ prevTxid: new Uint8Array(32).fill(9), prevVout: 0, scriptSig, sequence: 0xffffffff, witness }],
    outputs: outputs.map((scriptPubKey) => ({ value: 1n, scriptPubKey })),
  };
}
const prev = (scriptPubKey: Uint8Array): SpentOutput[] => [{ amount: 10_000n, scriptPubKey }];
const flags = MANDATORY_SCRIPT_VERIFY_FLAGS;

describe("sigOpCost", () => {
  it("counts legacy sigops ×4, bare CHECKMULTISIG in outputs as 20", () => {
    expect(sigOpCost(spend(new Uint8Array(0), [], [p2pkh]), prev(Uint8Array.of(OP.OP_1)), flags)).to.equal(4);
    expect(sigOpCost(spend(new Uint8Array(0), [], [multisig]), prev(Uint8Array.of(OP.OP_1)), flags)).to.equal(80);
  });

  it("counts a P2SH redeem script accurately ×4, only with the P2SH flag", () => {
    const scriptSig = concatBytes(Uint8Array.of(OP.OP_0), pushData(new Uint8Array(71)), pushData(multisig));
    expect(sigOpCost(spend(scriptSig, []), prev(p2sh(multisig)), flags)).to.equal(12);
    expect(sigOpCost(spend(scriptSig, []), prev(p2sh(multisig)), 0)).to.equal(0);
  });

  it("counts witness sigops at weight 1: P2WPKH 1, P2WSH by its script, nested P2SH-P2WPKH 1", () => {
    expect(sigOpCost(spend(new Uint8Array(0), [new Uint8Array(71), key]), prev(p2wpkhProgram), flags)).to.equal(1);
    const p2wsh = concatBytes(Uint8Array.of(0, 32), sha256(multisig));
    expect(sigOpCost(spend(new Uint8Array(0), [new Uint8Array(0), multisig]), prev(p2wsh), flags)).to.equal(3);
    expect(sigOpCost(spend(pushData(p2wpkhProgram), [new Uint8Array(71), key]), prev(p2sh(p2wpkhProgram)), flags)).to.equal(1);
    expect(sigOpCost(spend(new Uint8Array(0), [new Uint8Array(71), key]), prev(p2wpkhProgram), ScriptFlags.P2SH)).to.equal(0);
  });

  it("counts no sigops for taproot spends", () => {
    const p2tr = concatBytes(Uint8Array.of(OP.OP_1, 32), new Uint8Array(32).fill(3));
    expect(sigOpCost(spend(new Uint8Array(0), [new Uint8Array(64)]), prev(p2tr), flags)).to.equal(0);
  });

  it("counts only the legacy sigops of a coinbase", () => {
    const coinbase: Tx = {
      version: 2, locktime: 0,
      inputs: [{ prevTxid: new Uint8Array(32), prevVout: 0xffffffff, scriptSig: Uint8Array.of(1, 1, OP.OP_CHECKSIG), sequence: 0, witness: [] }],
      outputs: [{ value: 1n, scriptPubKey: p2pkh }],
    };
    expect(sigOpCost(coinbase, [], flags)).to.equal(8);
  });
});
