import { expect } from "chai";
import { DevnetNode } from "../../src/node/devnet-node.js";
import { TestKey, buildTx, fund, refusal, type Coin } from "../node/tx-kit.js";

describe("devnet policy: TRUC (v3) topology", function () {
  let node: DevnetNode;
  const alice = new TestKey("truc-alice");
  const bob = new TestKey("truc-bob");
  before(() => {
    node = new DevnetNode({ seed: "truc-test" });
  });

  function v3Parent(coin: Coin, outputs = 1): ReturnType<typeof buildTx> {
    const each = (coin.amount - 2000n) / BigInt(outputs);
    return buildTx({ version: 3, inputs: [coin], outputs: Array.from({ length: outputs }, () => ({ script: alice.wpkh.script, amount: each })) });
  }

  it("accepts a v3 parent and one small v3 child, and refuses a v3 grandchild", () => {
    const parent = v3Parent(fund(node, alice, 100_000n));
    node.submitTransaction(parent.hex);
    const child = buildTx({ version: 3, inputs: [parent.coin(0, alice)], outputs: [{ script: alice.wpkh.script, amount: 96_000n }] });
    node.submitTransaction(child.hex);
    const grandchild = buildTx({ version: 3, inputs: [child.coin(0, alice)], outputs: [{ script: bob.wpkh.script, amount: 94_000n }] });
    const r = refusal(() => node.submitTransaction(grandchild.hex));
    expect(r.reason).to.equal("TRUC-violation");
    expect(r.debug).to.match(/would have too many ancestors/);
  });

  it("refuses a v3 child over 1000 vB and a v3 transaction over 10000 vB", () => {
    const parent = v3Parent(fund(node, alice, 1_000_000n));
    node.submitTransaction(parent.hex);
    const outputs = Array.from({ length: 30 }, () => ({ script: bob.tr.script, amount: 10_000n }));
    const bigChild = buildTx({ version: 3, inputs: [parent.coin(0, alice)], outputs });
    expect(bigChild.vsize).to.be.greaterThan(1000);
    const r = refusal(() => node.submitTransaction(bigChild.hex));
    expect([r.reason, r.debug]).to.satisfy(([reason, debug]: [string, string]) => reason === "TRUC-violation" && /child tx .* is too big/.test(debug));
    const huge = buildTx({ version: 3, inputs: [fund(node, alice, 5_000_000n)], outputs: Array.from({ length: 240 }, () => ({ script: bob.tr.script, amount: 10_000n })) });
    expect(huge.vsize).to.be.greaterThan(10_000);
    expect(refusal(() => node.submitTransaction(huge.hex)).debug).to.match(/is too big: \d+ > 10000 virtual bytes/);
  });

  it("refuses mixing v3 and non-v3 across unconfirmed parents, but not across confirmed ones", () => {
    const v3 = v3Parent(fund(node, alice, 100_000n));
    node.submitTransaction(v3.hex);
    const v2Child = buildTx({ version: 2, inputs: [v3.coin(0, alice)], outputs: [{ script: bob.wpkh.script, amount: 97_000n }] });
    expect(refusal(() => node.submitTransaction(v2Child.hex)).debug).to.match(/^non-version=3 tx .* cannot spend from version=3 tx/);
    const v2 = buildTx({ version: 2, inputs: [fund(node, alice, 100_000n)], outputs: [{ script: alice.wpkh.script, amount: 99_000n }] });
    node.submitTransaction(v2.hex);
    const v3Child = buildTx({ version: 3, inputs: [v2.coin(0, alice)], outputs: [{ script: bob.wpkh.script, amount: 98_000n }] });
    expect(refusal(() => node.submitTransaction(v3Child.hex)).debug).to.match(/^version=3 tx .* cannot spend from non-version=3 tx/);
    node.mine(1);
    expect(node.submitTransaction(v3Child.hex)).to.equal(v3Child.txid);
  });

  it("evicts a v3 sibling when a second child pays enough, and refuses one that does not", () => {
    const parent = v3Parent(fund(node, alice, 100_000n), 2);
    node.submitTransaction(parent.hex);
    const first = buildTx({ version: 3, inputs: [parent.coin(0, alice)], outputs: [{ script: bob.wpkh.script, amount: 48_000n }] });
    node.submitTransaction(first.hex);
    const cheap = buildTx({ version: 3, inputs: [parent.coin(1, alice)], outputs: [{ script: bob.wpkh.script, amount: 48_500n }] });
    expect(refusal(() => node.submitTransaction(cheap.hex)).reason).to.equal("insufficient fee (including sibling eviction)");
    const rich = buildTx({ version: 3, inputs: [parent.coin(1, alice)], outputs: [{ script: bob.wpkh.script, amount: 45_000n }] });
    node.submitTransaction(rich.hex);
    expect(node.getRawMempool()).to.include(rich.txid);
    expect(node.getRawMempool()).to.not.include(first.txid);
  });
});
