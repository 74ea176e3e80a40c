import { expect } from "chai";
import { ControlError, DevnetNode } from "../../src/node/devnet-node.js";
import { TestKey, buildTx, fund } from "./tx-kit.js";

describe("devnet node: controls and events", function () {
  let node: DevnetNode;
  const alice = new TestKey("ctl-alice");
  const bob = new TestKey("ctl-bob");
  before(() => {
    node = new DevnetNode({ seed: "controls-test" });
  });

  it("evicts a transaction with its descendants", () => {
    const coin = fund(node, alice, 80_000n);
    const parent = buildTx({ inputs: [coin], outputs: [{ script: alice.wpkh.script, amount: 79_000n }] });
    const child = buildTx({ inputs: [parent.coin(0, alice)], outputs: [{ script: bob.wpkh.script, amount: 78_000n }] });
    node.submitTransaction(parent.hex);
    node.submitTransaction(child.hex);
    const removedEvents: string[][] = [];
    node.on("removed", (txids) => removedEvents.push([...txids]));
    expect(node.evict(parent.txid).sort()).to.deep.equal([parent.txid, child.txid].sort());
    expect(node.getRawMempool()).to.not.include(parent.txid);
    expect(node.getRawMempool()).to.not.include(child.txid);
    expect(removedEvents).to.have.length(1);
    // the coin is spendable again
    expect(node.submitTransaction(parent.hex)).to.equal(parent.txid);
    expect(() => node.evict("00".repeat(32))).to.throw(ControlError);
  });

  it("drops a faucet payment by mining a confirmed conflict it signs itself", () => {
    const txid = node.faucet(bob.wpkh.address, 70_000n);
    const result = node.replaceWithConfirmedConflict(txid);
    expect(node.getRawMempool()).to.not.include(txid);
    expect(node.getTransaction(txid)).to.equal(undefined);
    expect(result.removed).to.deep.equal([txid]);
    expect(node.getTxStatus(result.conflictTxid)!.blockHash).to.equal(result.blockHash);
    expect(node.tipHash()).to.equal(result.blockHash);
  });

  it("drops a faucet payment funded by unconfirmed change by double-spending its confirmed ancestor's input", () => {
    const small = new DevnetNode({ seed: "controls-chain", premineBlocks: 100 });
    const first = small.faucet(bob.wpkh.address, 10_000n);
    const second = small.faucet(bob.wpkh.address, 20_000n);
    expect(small.getMempoolEntry(second)!.depends).to.deep.equal([first]);
    const result = small.replaceWithConfirmedConflict(second);
    expect([...result.removed].sort()).to.deep.equal([first, second].sort());
    expect(small.getRawMempool()).to.deep.equal([]);
  });

  it("drops a user transaction and its child by mining a given conflicting spend", () => {
    const coin = fund(node, alice, 90_000n);
    const victim = buildTx({ inputs: [coin], outputs: [{ script: bob.wpkh.script, amount: 89_000n }] });
    const child = buildTx({ inputs: [victim.coin(0, bob)], outputs: [{ script: bob.wpkh.script, amount: 88_000n }] });
    node.submitTransaction(victim.hex);
    node.submitTransaction(child.hex);
    const conflict = buildTx({ inputs: [coin], outputs: [{ script: alice.wpkh.script, amount: 85_000n }] });
    expect(() => node.replaceWithConfirmedConflict(victim.txid)).to.throw(ControlError, /pass a signed conflicting transaction/);
    const reasons: string[] = [];
    node.on("removed", (_txids, why) => reasons.push(why));
    const result = node.replaceWithConfirmedConflict(victim.txid, conflict.hex);
    expect(reasons).to.deep.equal(["conflict"]);
    expect(result.conflictTxid).to.equal(conflict.txid);
    expect([...result.removed].sort()).to.deep.equal([victim.txid, child.txid].sort());
    expect(node.getOutspend(coin.txid, coin.vout)).to.deep.include({ spent: true, txid: conflict.txid });
    const unrelated = buildTx({ inputs: [fund(node, alice, 5000n)], outputs: [{ script: bob.wpkh.script, amount: 4000n }] });
    const other = buildTx({ inputs: [fund(node, alice, 6000n)], outputs: [{ script: bob.wpkh.script, amount: 5000n }] });
    node.submitTransaction(unrelated.hex);
    expect(() => node.replaceWithConfirmedConflict(unrelated.txid, other.hex)).to.throw(ControlError, /does not spend any input/);
  });

  it("serves settable fee estimates by confirmation target", () => {
    node.setFeeEstimates({ 1: 30, 6: 8, 144: 2 });
    expect(node.estimateFeeRate(1)).to.equal(30);
    expect(node.estimateFeeRate(3)).to.equal(30);
    expect(node.estimateFeeRate(6)).to.equal(8);
    expect(node.estimateFeeRate(1008)).to.equal(2);
    expect(node.feeEstimates()).to.deep.equal({ 1: 30, 6: 8, 144: 2 });
    expect(() => node.setFeeEstimates({ 0: 5 })).to.throw(/bad confirmation target/);
    expect(() => node.setFeeEstimates({ 2: -1 })).to.throw(/bad feerate/);
  });

  it("emits block and tx events for the faces", () => {
    const blocks: number[] = [];
    const txs: string[] = [];
    node.on("block", (b) => blocks.push(b.height));
    node.on("tx", (t) => txs.push(t));
    const txid = node.faucet(alice.wpkh.address, 12_345n);
    const h = node.tipHeight();
    node.mine(2);
    expect(txs).to.deep.equal([txid]);
    expect(blocks).to.deep.equal([h + 1, h + 2]);
  });

  it("advances the fake clock on request", () => {
    const before = node.getBlockHeader(node.tipHash())!.time;
    node.advanceTime(3600);
    node.mine(1);
    expect(node.getBlockHeader(node.tipHash())!.time).to.equal(before + 3600 + 600);
  });
});
