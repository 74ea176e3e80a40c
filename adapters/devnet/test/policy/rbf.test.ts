import { expect } from "chai";
import { DevnetNode } from "../../src/node/devnet-node.js";
import { formatMoney } from "../../src/policy/rbf.js";
import { TestKey, buildTx, fund, refusal } from "../node/tx-kit.js";

describe("devnet policy: replacement (BIP-125 rules, full RBF)", function () {
  let node: DevnetNode;
  const alice = new TestKey("rbf-alice");
  const bob = new TestKey("rbf-bob");
  before(() => {
    node = new DevnetNode({ seed: "rbf-test" });
  });

  it("replaces a transaction by one paying a higher fee and feerate, evicting the original", () => {
    const coin = fund(node, alice, 100_000n);
    const original = buildTx({ inputs: [coin], outputs: [{ script: bob.wpkh.script, amount: 99_000n }] });
    node.submitTransaction(original.hex);
    const removed: string[] = [];
    node.on("removed", (txids, why) => why === "replaced" && removed.push(...txids));
    const replacement = buildTx({ inputs: [coin], outputs: [{ script: bob.wpkh.script, amount: 98_000n }] });
    expect(node.submitTransaction(replacement.hex)).to.equal(replacement.txid);
    expect(node.getRawMempool()).to.include(replacement.txid);
    expect(node.getRawMempool()).to.not.include(original.txid);
    expect(removed).to.deep.equal([original.txid]);
  });

  it("refuses a replacement that does not raise the feerate, or does not pay for its own relay", () => {
    const coin = fund(node, alice, 100_000n);
    const original = buildTx({ inputs: [coin], outputs: [{ script: bob.wpkh.script, amount: 99_000n }] });
    node.submitTransaction(original.hex);
    const same = buildTx({ inputs: [coin], outputs: [{ script: alice.wpkh.script, amount: 99_000n }] });
    const r = refusal(() => node.submitTransaction(same.hex));
    expect(r.reason).to.equal("insufficient fee");
    expect(r.debug).to.match(/new feerate .* <= old feerate/);
    // higher feerate, but the extra fee (1 sat) is below 1 sat/vB × its size
    const plusOne = buildTx({ inputs: [coin], outputs: [{ script: alice.wpkh.script, amount: 98_999n }] });
    expect(refusal(() => node.submitTransaction(plusOne.hex)).debug).to.match(/not enough additional fees to relay/);
    expect(node.getRawMempool()).to.include(original.txid);
  });

  it("refuses a replacement paying less than the original and its descendants together", () => {
    const coin = fund(node, alice, 100_000n);
    const parent = buildTx({ inputs: [coin], outputs: [{ script: alice.wpkh.script, amount: 99_000n }] });
    const child = buildTx({ inputs: [parent.coin(0, alice)], outputs: [{ script: bob.wpkh.script, amount: 80_000n }] });
    node.submitTransaction(parent.hex);
    node.submitTransaction(child.hex);
    const replacement = buildTx({ inputs: [coin], outputs: [{ script: bob.wpkh.script, amount: 95_000n }] });
    expect(refusal(() => node.submitTransaction(replacement.hex)).debug).to.match(/less fees than conflicting txs; 0.00005 < 0.0002$/);
    const rich = buildTx({ inputs: [coin], outputs: [{ script: bob.wpkh.script, amount: 79_000n }] });
    node.submitTransaction(rich.hex);
    expect(node.getRawMempool()).to.not.include(child.txid);
  });

  it("refuses a replacement that adds an unconfirmed input, or spends the transaction it replaces", () => {
    const coin = fund(node, alice, 100_000n);
    const other = fund(node, bob, 50_000n);
    const unrelated = buildTx({ inputs: [other], outputs: [{ script: bob.wpkh.script, amount: 49_000n }] });
    node.submitTransaction(unrelated.hex);
    const original = buildTx({ inputs: [coin], outputs: [{ script: alice.wpkh.script, amount: 99_000n }] });
    node.submitTransaction(original.hex);
    const addsUnconfirmed = buildTx({ inputs: [coin, unrelated.coin(0, bob)], outputs: [{ script: alice.wpkh.script, amount: 140_000n }] });
    expect(refusal(() => node.submitTransaction(addsUnconfirmed.hex)).reason).to.equal("replacement-adds-unconfirmed");
    const spendsOriginal = buildTx({ inputs: [coin, original.coin(0, alice)], outputs: [{ script: alice.wpkh.script, amount: 190_000n }] });
    expect(refusal(() => node.submitTransaction(spendsOriginal.hex)).reason).to.equal("bad-txns-spends-conflicting-tx");
  });

  it("without full RBF, refuses to replace a non-signalling transaction with `txn-mempool-conflict`", () => {
    const strict = new DevnetNode({ seed: "rbf-strict", fullRbf: false, premineBlocks: 101 });
    const coin = fund(strict, alice, 100_000n);
    const final = buildTx({ inputs: [{ ...coin, sequence: 0xffffffff }], outputs: [{ script: bob.wpkh.script, amount: 99_000n }] });
    strict.submitTransaction(final.hex);
    expect(strict.getMempoolEntry(final.txid)!.bip125Replaceable).to.equal(false);
    const replacement = buildTx({ inputs: [coin], outputs: [{ script: bob.wpkh.script, amount: 90_000n }] });
    expect(refusal(() => strict.submitTransaction(replacement.hex)).reason).to.equal("txn-mempool-conflict");
    const coin2 = fund(strict, alice, 100_000n);
    const signalling = buildTx({ inputs: [coin2], outputs: [{ script: bob.wpkh.script, amount: 99_000n }] });
    strict.submitTransaction(signalling.hex);
    expect(strict.getMempoolEntry(signalling.txid)!.bip125Replaceable).to.equal(true);
    const replacement2 = buildTx({ inputs: [coin2], outputs: [{ script: bob.wpkh.script, amount: 90_000n }] });
    expect(strict.submitTransaction(replacement2.hex)).to.equal(replacement2.txid);
  });
});

describe("devnet policy: Core's money formatting in replacement messages", function () {
  it("trims trailing zeros down to two decimals", () => {
    expect(formatMoney(5000n)).to.equal("0.00005");
    expect(formatMoney(100_000_000n)).to.equal("1.00");
    expect(formatMoney(123_456_789n)).to.equal("1.23456789");
    expect(formatMoney(0n)).to.equal("0.00");
  });
});
