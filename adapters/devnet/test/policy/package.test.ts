import { expect } from "chai";
import { DevnetNode, PolicyError } from "../../src/node/devnet-node.js";
import { P2A_SCRIPT, TestKey, buildTx, fund, refusal, type Coin } from "../node/tx-kit.js";

describe("devnet policy: packages, P2A anchors and ephemeral dust", function () {
  let node: DevnetNode;
  const alice = new TestKey("pkg-alice");
  const bob = new TestKey("pkg-bob");
  before(() => {
    node = new DevnetNode({ seed: "package-test" });
  });

  /** An Ark-exit-like parent: v3, zero fee, one real output and a zero-value P2A anchor. */
  function zeroFeeParent(coin: Coin, anchorValue = 0n, fee = 0n): ReturnType<typeof buildTx> {
    return buildTx({
      version: 3,
      inputs: [coin],
      outputs: [{ script: bob.tr.script, amount: coin.amount - anchorValue - fee }, { script: P2A_SCRIPT, amount: anchorValue }],
    });
  }

  function cpfpChild(parent: ReturnType<typeof buildTx>, funding: Coin, fee: bigint): ReturnType<typeof buildTx> {
    return buildTx({
      version: 3,
      inputs: [{ txid: parent.txid, vout: 1, amount: 0n, script: P2A_SCRIPT }, funding],
      outputs: [{ script: alice.wpkh.script, amount: funding.amount - fee }],
    });
  }

  it("refuses a zero-fee v3 parent alone, and accepts it with a CPFP child spending its anchor", () => {
    const parent = zeroFeeParent(fund(node, alice, 100_000n));
    expect(refusal(() => node.submitTransaction(parent.hex)).reason).to.equal("min relay fee not met");
    const [alone] = node.testMempoolAccept([parent.hex]);
    expect(alone).to.deep.include({ allowed: false, rejectReason: "min relay fee not met" });

    const child = cpfpChild(parent, fund(node, alice, 20_000n), 2_000n);
    const result = node.submitPackage([parent.hex, child.hex]);
    expect(result.packageMsg).to.equal("success");
    const mempool = node.getRawMempool();
    expect(mempool).to.include(parent.txid);
    expect(mempool).to.include(child.txid);
    const parentResult = Object.values(result.txResults).find((r) => r.txid === parent.txid)!;
    const expectedRate = 2000 / (parent.vsize + child.vsize);
    expect(parentResult.fees!.baseSat).to.equal(0n);
    expect(parentResult.fees!.effectiveFeerateSatPerVb).to.be.closeTo(expectedRate, 1e-9);
    expect(parentResult.fees!.effectiveIncludes).to.have.length(2);
    expect(node.getMempoolEntry(child.txid)!.ancestorFeesSat).to.equal(2000n);

    // the miner takes the package, parent first
    const [hash] = node.mine(1);
    const txids = node.getBlock(hash!)!.txids;
    expect(txids.indexOf(parent.txid)).to.be.greaterThan(0);
    expect(txids.indexOf(child.txid)).to.equal(txids.indexOf(parent.txid) + 1);
  });

  it("refuses a package whose feerate is still below the minimum", () => {
    const parent = zeroFeeParent(fund(node, alice, 100_000n));
    const child = cpfpChild(parent, fund(node, alice, 20_000n), 150n);
    const result = node.submitPackage([parent.hex, child.hex]);
    expect(result.packageMsg).to.equal("package-fee-too-low");
    // each reports why it failed on its own, as bitcoind does when the joint feerate falls short
    expect(Object.values(result.txResults).map((r) => r.error)).to.deep.equal([`min relay fee not met, 0 < ${parent.vsize}`, "bad-txns-inputs-missingorspent"]);
    expect(node.getRawMempool()).to.not.include(parent.txid);
  });

  it("requires the child to spend the parent's ephemeral dust", () => {
    const parent = zeroFeeParent(fund(node, alice, 100_000n));
    const funding = fund(node, alice, 20_000n);
    const ignoresAnchor = buildTx({
      version: 3,
      inputs: [parent.coin(0, bob, true), funding],
      outputs: [{ script: alice.wpkh.script, amount: 100_000n + 20_000n - 3_000n }],
    });
    const result = node.submitPackage([parent.hex, ignoresAnchor.hex]);
    expect(result.packageMsg).to.equal("unspent-dust");
    const childResult = Object.values(result.txResults).find((r) => r.txid === ignoresAnchor.txid)!;
    expect(childResult.error).to.match(/^missing-ephemeral-spends, tx .* did not spend parent's ephemeral dust$/);
    expect(result.txResults[Object.keys(result.txResults)[0]!]!.error).to.match(/^min relay fee not met/);
    expect(node.getRawMempool()).to.not.include(parent.txid);
  });

  it("requires every later child to spend the parent's dust too, even once another child has", () => {
    const coin = fund(node, alice, 100_000n);
    const parent = buildTx({
      version: 2,
      inputs: [coin],
      outputs: [{ script: alice.wpkh.script, amount: 100_000n }, { script: P2A_SCRIPT, amount: 0n }],
    });
    const funding = fund(node, alice, 20_000n);
    const first = buildTx({
      version: 2,
      inputs: [{ txid: parent.txid, vout: 1, amount: 0n, script: P2A_SCRIPT }, funding],
      outputs: [{ script: alice.wpkh.script, amount: 17_000n }],
    });
    expect(node.submitPackage([parent.hex, first.hex]).packageMsg).to.equal("success");
    const second = buildTx({ version: 2, inputs: [parent.coin(0, alice)], outputs: [{ script: bob.wpkh.script, amount: 99_000n }] });
    const r = refusal(() => node.submitTransaction(second.hex));
    expect(r.reason).to.equal("missing-ephemeral-spends");
  });

  it("refuses dust on a transaction that pays a fee", () => {
    const parent = zeroFeeParent(fund(node, alice, 100_000n), 0n, 500n);
    const child = cpfpChild(parent, fund(node, alice, 20_000n), 2_000n);
    const result = node.submitPackage([parent.hex, child.hex]);
    expect(result.packageMsg).to.equal("transaction failed");
    expect(Object.values(result.txResults).map((r) => r.error)).to.deep.equal(["dust, tx with dust output must be 0-fee", "bad-txns-inputs-missingorspent"]);
  });

  it("applies TRUC rules inside a package", () => {
    const parent = zeroFeeParent(fund(node, alice, 1_000_000n));
    const funding = fund(node, alice, 2_000_000n);
    const bigChild = buildTx({
      version: 3,
      inputs: [{ txid: parent.txid, vout: 1, amount: 0n, script: P2A_SCRIPT }, funding],
      outputs: Array.from({ length: 30 }, () => ({ script: bob.tr.script, amount: 60_000n })),
    });
    const result = node.submitPackage([parent.hex, bigChild.hex]);
    // as Core answers: the package message names the rule, each transaction keeps its own result
    expect(result.packageMsg).to.match(/^TRUC-violation, version=3 child tx .* is too big/);
    expect(Object.values(result.txResults).map((r) => r.error)).to.deep.equal([`min relay fee not met, 0 < ${Object.values(result.txResults)[0]!.vsize}`, "bad-txns-inputs-missingorspent"]);
  });

  it("throws for packages that are not a child with its parents, and reports other malformed ones", () => {
    const a = buildTx({ inputs: [fund(node, alice, 10_000n)], outputs: [{ script: bob.wpkh.script, amount: 9_000n }] });
    const b = buildTx({ inputs: [fund(node, alice, 10_000n)], outputs: [{ script: bob.wpkh.script, amount: 9_000n }] });
    expect(() => node.submitPackage([a.hex, b.hex])).to.throw(PolicyError, /package topology disallowed/);
    const parent = buildTx({ inputs: [fund(node, alice, 10_000n)], outputs: [{ script: alice.wpkh.script, amount: 9_000n }] });
    const child = buildTx({ inputs: [parent.coin(0, alice)], outputs: [{ script: bob.wpkh.script, amount: 8_000n }] });
    // unsorted: the last one is not the child of the others
    expect(() => node.submitPackage([child.hex, parent.hex])).to.throw(PolicyError, /package topology disallowed/);
    expect(node.testMempoolAccept([child.hex, parent.hex]).map((r) => r.packageError)).to.deep.equal(["package-not-sorted", "package-not-sorted"]);
    // two parents spending the same coin: well shaped, but conflicting
    const shared = fund(node, alice, 10_000n);
    const p1 = buildTx({ inputs: [shared], outputs: [{ script: alice.wpkh.script, amount: 9_000n }] });
    const p2 = buildTx({ inputs: [shared], outputs: [{ script: alice.tr.script, amount: 9_000n }] });
    const both = buildTx({ inputs: [p1.coin(0, alice), p2.coin(0, alice, true)], outputs: [{ script: bob.wpkh.script, amount: 17_000n }] });
    const result = node.submitPackage([p1.hex, p2.hex, both.hex]);
    expect(result.packageMsg).to.equal("conflict-in-package");
    expect(Object.values(result.txResults).map((r) => r.error)).to.deep.equal(["unevaluated", "unevaluated", "unevaluated"]);
    expect(node.getRawMempool()).to.not.include(p1.txid);
  });

  it("tests a package with testmempoolaccept one by one, without package feerates, keeping nothing", () => {
    const parent = zeroFeeParent(fund(node, alice, 100_000n));
    const child = cpfpChild(parent, fund(node, alice, 20_000n), 2_000n);
    const [p, c] = node.testMempoolAccept([parent.hex, child.hex]);
    expect(p).to.deep.include({ txid: parent.txid, allowed: false, rejectReason: "min relay fee not met" });
    expect(c!.allowed).to.equal(undefined);
    const fine = buildTx({ inputs: [fund(node, alice, 10_000n)], outputs: [{ script: alice.wpkh.script, amount: 9_000n }] });
    const fineChild = buildTx({ inputs: [fine.coin(0, alice)], outputs: [{ script: bob.wpkh.script, amount: 8_000n }] });
    expect(node.testMempoolAccept([fine.hex, fineChild.hex]).map((r) => r.allowed)).to.deep.equal([true, true]);
    // a refused child leaves its valid parent without a verdict, as bitcoind does
    const greedyChild = buildTx({ inputs: [fine.coin(0, alice)], outputs: [{ script: bob.wpkh.script, amount: 8_000n }, { script: P2A_SCRIPT, amount: 0n }, { script: P2A_SCRIPT, amount: 0n }] });
    const [fp, gc] = node.testMempoolAccept([fine.hex, greedyChild.hex]);
    expect(fp!.allowed).to.equal(undefined);
    expect(gc).to.deep.include({ allowed: false, rejectReason: "dust" });
    // a missing input reads `missing-inputs` in testmempoolaccept
    const orphan = buildTx({ inputs: [{ ...fine.coin(0, alice), txid: "cd".repeat(32) }], outputs: [{ script: bob.wpkh.script, amount: 8_000n }] });
    expect(node.testMempoolAccept([orphan.hex])[0]).to.deep.include({ allowed: false, rejectReason: "missing-inputs" });
    expect(node.getRawMempool()).to.not.include(fine.txid);
  });

  it("reports transactions already in the mempool as accepted in a package", () => {
    const parent = buildTx({ version: 3, inputs: [fund(node, alice, 50_000n)], outputs: [{ script: alice.wpkh.script, amount: 49_000n }] });
    node.submitTransaction(parent.hex);
    const child = buildTx({ version: 3, inputs: [parent.coin(0, alice)], outputs: [{ script: bob.wpkh.script, amount: 48_000n }] });
    const result = node.submitPackage([parent.hex, child.hex]);
    expect(result.packageMsg).to.equal("success");
    expect(Object.values(result.txResults).every((r) => r.error === undefined)).to.equal(true);
    expect(node.getRawMempool()).to.include(child.txid);
  });
});
