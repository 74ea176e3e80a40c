import { expect } from "chai";
import { DevnetNode } from "../../src/node/devnet-node.js";
import { TestKey, buildTx, fund, refusal, type Coin } from "../node/tx-kit.js";

describe("devnet policy: unconfirmed chain limits and duplicates", function () {
  const alice = new TestKey("limits-alice");

  it("accepts a chain of 25 unconfirmed transactions and refuses the 26th with `too-long-mempool-chain`", () => {
    const node = new DevnetNode({ seed: "limits-test", premineBlocks: 101 });
    let coin: Coin = fund(node, alice, 1_000_000n);
    for (let i = 0; i < 25; i++) {
      const tx = buildTx({ inputs: [coin], outputs: [{ script: alice.wpkh.script, amount: coin.amount - 200n }] });
      node.submitTransaction(tx.hex);
      coin = tx.coin(0, alice);
    }
    expect(node.getMempoolEntry(coin.txid)!.ancestorCount).to.equal(25);
    const tooLong = buildTx({ inputs: [coin], outputs: [{ script: alice.wpkh.script, amount: coin.amount - 200n }] });
    const r = refusal(() => node.submitTransaction(tooLong.hex));
    expect(r.reason).to.equal("too-long-mempool-chain");
    expect(r.debug).to.equal("too many unconfirmed ancestors [limit: 25]");
    // one block later the chain is confirmed and the spend goes in
    node.mine(1);
    expect(node.submitTransaction(tooLong.hex)).to.equal(tooLong.txid);
  });

  it("returns the txid for a transaction already in the mempool, refuses a coinbase and one already confirmed", () => {
    const node = new DevnetNode({ seed: "dupes-test", premineBlocks: 101 });
    const coin = fund(node, alice, 50_000n);
    const tx = buildTx({ inputs: [coin], outputs: [{ script: alice.tr.script, amount: 49_000n }] });
    expect(node.submitTransaction(tx.hex)).to.equal(tx.txid);
    expect(node.submitTransaction(tx.hex)).to.equal(tx.txid);
    expect(node.testMempoolAccept([tx.hex])[0]).to.deep.include({ allowed: false, rejectReason: "txn-already-in-mempool" });
    node.mine(1);
    expect(refusal(() => node.submitTransaction(tx.hex)).reason).to.equal("txn-already-known");
    const coinbase = node.getTransaction(node.getBlock(node.tipHash())!.txids[0]!)!;
    expect(refusal(() => node.submitTransaction(coinbase.raw)).reason).to.equal("coinbase");
  });
});
