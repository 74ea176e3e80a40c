import { expect } from "chai";
import { arkVectors, expectVector } from "./ark-vectors.js";
import { fromHex, toHex } from "../src/encoding.js";
import { VtxoValidationError } from "../src/errors.js";
import { policyScriptPubKey } from "../src/policy.js";
import { P2A_SCRIPT } from "../src/script.js";
import { decodeTx, txid as txidOf, type Transaction } from "../src/tx.js";
import { decodeVtxo, vtxoPolicyContext, type Vtxo } from "../src/vtxo.js";
import { chainAmount, exitChain } from "../src/vtxo-exit.js";
import { sha256 } from "../src/hashes.js";
import { checkStandard, isStandardOutput, validateVtxo, validateVtxoUnsigned } from "../src/vtxo-validate.js";
import { transitionHasAllWitnesses, type GenesisItem } from "../src/vtxo-genesis.js";

const g = arkVectors.vtxo_encoding.encoding_version_2;
const vtxoNamed = (name: string): Vtxo => decodeVtxo(fromHex(g.vtxos.find((v: any) => v.name === name).hex));
const anchorTx: Transaction = decodeTx(fromHex(g.anchor_tx.hex));
const roundTx: Transaction = decodeTx(fromHex(g.round_tx.hex));

function withLastItem(v: Vtxo, f: (item: GenesisItem) => GenesisItem): Vtxo {
  const last = v.genesis.length - 1;
  return { ...v, genesis: [...v.genesis.slice(0, last), f(v.genesis[last]!)] };
}

describe("VTXO validation rules (against the chain anchor; exit standardness)", () => {
  it("a hash-locked leaf known only by its hash is not fully signed: validate refuses, validate_unsigned accepts", () => {
    const round1 = vtxoNamed("round1_vtxo");
    const hashOnly = withLastItem(round1, (item) => {
      const t = item.transition;
      if (t.kind !== "hash-locked-cosigned-v1" || t.unlock.type !== "preimage") throw new Error("expected a v1 hash-locked leaf");
      return { ...item, transition: { ...t, unlock: { type: "hash", hash: sha256(t.unlock.preimage) } } };
    });
    expect(transitionHasAllWitnesses(hashOnly.genesis.at(-1)!.transition)).to.equal(false);
    expect(() => validateVtxo(hashOnly, roundTx)).to.throw(VtxoValidationError, /missing signature or preimage/);
    expect(validateVtxoUnsigned(hashOnly, roundTx).length).to.equal(3);
    expect(exitChain(hashOnly).at(-1)!.tx.inputs[0]!.witness).to.deep.equal([]);
  });

  it("the exit witness of a hash-locked leaf is [sig, preimage, unlock script, control block]", () => {
    const round1 = vtxoNamed("round1_vtxo");
    const last = exitChain(round1).at(-1)!;
    const w = last.tx.inputs[0]!.witness;
    expect(w.length).to.equal(4);
    expectVector(toHex(w[1]!), g.vtxos.find((v: any) => v.name === "round1_vtxo").genesis[2].transition, "unlock_preimage");
    expect(toHex(w[2]!)).to.equal(toHex(last.spent.unlockLeaf!.script));
  });

  it("anchor output of the wrong amount or script is refused", () => {
    const board = vtxoNamed("board_vtxo");
    const out = anchorTx.outputs[0]!;
    const cheaper: Transaction = { ...anchorTx, outputs: [{ ...out, value: out.value - 1n }] };
    // A different anchor tx has a different txid, so it is refused before amounts are compared.
    expect(() => validateVtxo(board, cheaper)).to.throw(VtxoValidationError, /anchor transaction does not match/);
    const moreFee = withLastItem(board, (item) => ({ ...item, feeAmount: item.feeAmount + 1n }));
    expect(() => validateVtxo(moreFee, anchorTx)).to.throw(VtxoValidationError, /anchor output does not match/);
    const wrongVout = { ...board, anchorPoint: { ...board.anchorPoint, vout: 1 } };
    expect(() => validateVtxo(wrongVout, anchorTx)).to.throw(VtxoValidationError, /no output 1/);
  });

  it("an on-chain 'virtual' VTXO (no genesis) must equal its anchor output", () => {
    const board = vtxoNamed("board_vtxo");
    const ctx = vtxoPolicyContext(board);
    const script = policyScriptPubKey(board.policy, ctx);
    const tx: Transaction = { version: 2, locktime: 0, inputs: anchorTx.inputs, outputs: [{ value: board.amount, script }] };
    const anchored: Vtxo = { ...board, genesis: [], anchorPoint: { txid: txidOf(tx), vout: 0 }, point: { txid: txidOf(tx), vout: 0 } };
    expect(validateVtxo(anchored, tx)).to.deep.equal([]);
    const wrongAmount: Vtxo = { ...anchored, amount: anchored.amount + 1n };
    expect(() => validateVtxo(wrongAmount, tx)).to.throw(VtxoValidationError, /policy output/);
  });

  it("amount overflow anywhere in the chain is a validation error", () => {
    const board = vtxoNamed("board_vtxo");
    const huge = withLastItem(board, (item) => ({ ...item, otherOutputs: [{ value: (1n << 64n) - 1n, script: P2A_SCRIPT }] }));
    expect(() => chainAmount(huge)).to.throw(VtxoValidationError, /overflow/);
  });

  it("check_standard: own output first, then siblings; dust and unknown scripts are reported", () => {
    const board = vtxoNamed("board_vtxo");
    expect(checkStandard({ ...board, amount: 329n })).to.include({ where: "vtxo" });
    expect(checkStandard({ ...board, amount: 330n })).to.equal(null);
    const p2tr = fromHex(`5120${"11".repeat(32)}`);
    const dustSibling = withLastItem(board, (item) => ({ ...item, otherOutputs: [{ value: 329n, script: p2tr }] }));
    expect(checkStandard(dustSibling)).to.include({ where: 0 });
    const both = { ...dustSibling, amount: 1n };
    expect(checkStandard(both)!.where).to.equal("vtxo");
    expect(isStandardOutput({ value: 546n, script: fromHex(`76a914${"22".repeat(20)}88ac`) })).to.equal(true);
    expect(isStandardOutput({ value: 545n, script: fromHex(`76a914${"22".repeat(20)}88ac`) })).to.equal(false);
    expect(isStandardOutput({ value: 540n, script: fromHex(`a914${"22".repeat(20)}87`) })).to.equal(true);
    expect(isStandardOutput({ value: 294n, script: fromHex(`0014${"22".repeat(20)}`) })).to.equal(true);
    expect(isStandardOutput({ value: 293n, script: fromHex(`0014${"22".repeat(20)}`) })).to.equal(false);
    expect(isStandardOutput({ value: 330n, script: fromHex(`0020${"22".repeat(32)}`) })).to.equal(true);
    expect(isStandardOutput({ value: 0n, script: fromHex(`6a${"00".repeat(82)}`) })).to.equal(true);
    expect(isStandardOutput({ value: 0n, script: fromHex(`6a${"00".repeat(83)}`) })).to.equal(false);
    expect(isStandardOutput({ value: 100_000n, script: P2A_SCRIPT })).to.equal(false);
    expect(isStandardOutput({ value: 100_000n, script: fromHex("51") })).to.equal(false);
  });
});
