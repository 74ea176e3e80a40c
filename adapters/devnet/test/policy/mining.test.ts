import { expect } from "chai";
import { DevnetNode } from "../../src/node/devnet-node.js";
import { TestKey, buildTx, fund } from "../node/tx-kit.js";

describe("devnet policy: block assembly by ancestor feerate", function () {
  const alice = new TestKey("mine-alice");
  const bob = new TestKey("mine-bob");

  it("mines a low-fee parent ahead of a medium-fee transaction when its child pays for both", () => {
    const node = new DevnetNode({ seed: "mining-test", premineBlocks: 101 });
    const c1 = fund(node, alice, 100_000n, { mine: false });
    const c2 = fund(node, alice, 100_000n, { mine: false });
    node.mine(1);
    const parent = buildTx({ inputs: [c1], outputs: [{ script: alice.wpkh.script, amount: 100_000n - 110n }] }); // ~1 sat/vB
    const medium = buildTx({ inputs: [c2], outputs: [{ script: bob.wpkh.script, amount: 100_000n - 1_100n }] }); // ~10 sat/vB
    const child = buildTx({ inputs: [parent.coin(0, alice)], outputs: [{ script: bob.wpkh.script, amount: 100_000n - 110n - 5_000n }] }); // ~45 sat/vB
    node.submitTransaction(parent.hex);
    node.submitTransaction(medium.hex);
    node.submitTransaction(child.hex);
    expect(node.getMempoolEntry(parent.txid)!.descendantCount).to.equal(2);
    expect(node.getMempoolEntry(child.txid)!.ancestorCount).to.equal(2);
    const [hash] = node.mine(1);
    const txids = node.getBlock(hash!)!.txids;
    expect(txids.slice(1)).to.deep.equal([parent.txid, child.txid, medium.txid]);
    expect(node.getRawMempool()).to.deep.equal([]);
    // the coinbase collects subsidy plus every fee
    const coinbase = node.getTransaction(txids[0]!)!;
    expect(coinbase.vout[0]!.amountSat).to.equal(5_000_000_000n + 110n + 1_100n + 5_000n);
  });
});
