import { expect } from "chai";
import { sha256 } from "@noble/hashes/sha2.js";
import { DevnetNode } from "../../src/node/devnet-node.js";
import { P2A_SCRIPT, TestKey, buildTx, fund, refusal } from "../node/tx-kit.js";

describe("devnet policy: fees, dust and standard scripts", function () {
  let node: DevnetNode;
  const alice = new TestKey("std-alice");
  const bob = new TestKey("std-bob");
  before(() => {
    node = new DevnetNode({ seed: "standardness-test" });
  });

  it("refuses a transaction under 1 sat/vB with `min relay fee not met` and accepts one at exactly 1 sat/vB", () => {
    const coin = fund(node, alice, 20_000n);
    const free = buildTx({ inputs: [coin], outputs: [{ script: bob.wpkh.script, amount: 20_000n }] });
    const r = refusal(() => node.submitTransaction(free.hex));
    expect(r.reason).to.equal("min relay fee not met");
    expect(r.message).to.equal(`min relay fee not met, 0 < ${free.vsize}`);
    const cheap = buildTx({ inputs: [coin], outputs: [{ script: bob.wpkh.script, amount: 20_000n - BigInt(free.vsize) + 1n }] });
    expect(refusal(() => node.submitTransaction(cheap.hex)).reason).to.equal("min relay fee not met");
    const exact = buildTx({ inputs: [coin], outputs: [{ script: bob.wpkh.script, amount: 20_000n - BigInt(free.vsize) }] });
    expect(node.submitTransaction(exact.hex)).to.equal(exact.txid);
  });

  it("refuses outputs below the dust threshold (294 sat for P2WPKH, 330 for P2TR) and accepts them at it", () => {
    const coin = fund(node, alice, 30_000n);
    const dusty = buildTx({ inputs: [coin], outputs: [{ script: bob.wpkh.script, amount: 293n }, { script: alice.wpkh.script, amount: 28_000n }] });
    expect(refusal(() => node.submitTransaction(dusty.hex))).to.deep.include({ reason: "dust", debug: "tx with dust output must be 0-fee" });
    const twoDust = buildTx({ inputs: [coin], outputs: [{ script: bob.wpkh.script, amount: 1n }, { script: bob.tr.script, amount: 1n }, { script: alice.wpkh.script, amount: 28_000n }] });
    expect(refusal(() => node.submitTransaction(twoDust.hex)).reason).to.equal("dust");
    const trDust = buildTx({ inputs: [coin], outputs: [{ script: bob.tr.script, amount: 329n }, { script: alice.wpkh.script, amount: 28_000n }] });
    expect(refusal(() => node.submitTransaction(trDust.hex)).reason).to.equal("dust");
    const atThreshold = buildTx({ inputs: [coin], outputs: [{ script: bob.wpkh.script, amount: 294n }, { script: bob.tr.script, amount: 330n }, { script: alice.wpkh.script, amount: 28_000n }] });
    expect(node.submitTransaction(atThreshold.hex)).to.equal(atThreshold.txid);
  });

  it("accepts OP_RETURN outputs and refuses non-standard output scripts and versions", () => {
    const coin = fund(node, alice, 30_000n);
    const opReturn = Uint8Array.of(0x6a, 0x04, 1, 2, 3, 4);
    const withData = buildTx({ inputs: [coin], outputs: [{ script: opReturn, amount: 0n }, { script: bob.wpkh.script, amount: 29_000n }] });
    expect(node.testMempoolAccept([withData.hex])[0]!.allowed).to.equal(true);
    const bare = buildTx({ inputs: [coin], outputs: [{ script: Uint8Array.of(0x51, 0x75), amount: 29_000n }] });
    expect(refusal(() => node.submitTransaction(bare.hex)).reason).to.equal("scriptpubkey");
    const v4 = buildTx({ version: 4, inputs: [coin], outputs: [{ script: bob.wpkh.script, amount: 29_000n }] });
    expect(refusal(() => node.submitTransaction(v4.hex)).reason).to.equal("version");
  });

  it("refuses an absurd feerate unless the caller lifts the limit", () => {
    const coin = fund(node, alice, 3_000_000n);
    const burn = buildTx({ inputs: [coin], outputs: [{ script: bob.wpkh.script, amount: 1000n }] });
    expect(refusal(() => node.submitTransaction(burn.hex)).reason).to.equal("max-fee-exceeded");
    expect(node.testMempoolAccept([burn.hex])[0]).to.deep.include({ allowed: false, rejectReason: "max-fee-exceeded" });
    expect(node.submitTransaction(burn.hex, { maxFeeRateSatPerVb: 0 })).to.equal(burn.txid);
  });

  it("refuses policy-only script failures in the mempool (Core master's wording) while a block may carry them", () => {
    // P2WSH `OP_NOP10 OP_1`: valid by consensus, refused under DISCOURAGE_UPGRADABLE_NOPS
    const witnessScript = Uint8Array.of(0xb9, 0x51);
    const p2wsh = Uint8Array.from([0x00, 0x20, ...sha256(witnessScript)]);
    const txid = node.faucet(p2wsh, 10_000n);
    node.mine(1);
    const vout = node.getTransaction(txid)!.vout.findIndex((o) => o.amountSat === 10_000n);
    const spend = buildTx({
      inputs: [{ txid, vout, amount: 10_000n, script: p2wsh, witness: [witnessScript] }],
      outputs: [{ script: bob.wpkh.script, amount: 9_000n }],
    });
    expect(refusal(() => node.submitTransaction(spend.hex)).reason).to.equal("mempool-script-verify-flag-failed (NOPx reserved for soft-fork upgrades)");
    // a block may still carry it: only mandatory flags apply there
    const hash = node.mineTransactions([spend.hex]);
    expect(node.getTxStatus(spend.txid)!.blockHash).to.equal(hash);
  });

  it("words a policy-only script failure as Core 29 did when asked (scriptFailureWording: core-29)", () => {
    const old = new DevnetNode({ seed: "standardness-test-core29", scriptFailureWording: "core-29" });
    const witnessScript = Uint8Array.of(0xb9, 0x51);
    const p2wsh = Uint8Array.from([0x00, 0x20, ...sha256(witnessScript)]);
    const txid = old.faucet(p2wsh, 10_000n);
    old.mine(1);
    const vout = old.getTransaction(txid)!.vout.findIndex((o) => o.amountSat === 10_000n);
    const spend = buildTx({
      inputs: [{ txid, vout, amount: 10_000n, script: p2wsh, witness: [witnessScript] }],
      outputs: [{ script: bob.wpkh.script, amount: 9_000n }],
    });
    const r = refusal(() => old.submitTransaction(spend.hex));
    expect(r.reason).to.equal("non-mandatory-script-verify-flag (NOPx reserved for soft-fork upgrades)");
    expect(r.debug).to.equal(undefined);
    old.close();
  });

  it("refuses spends of non-standard and future-witness outputs that a block carried", () => {
    const coin = fund(node, alice, 60_000n);
    const opTrue = Uint8Array.of(0x51);
    const v2 = Uint8Array.from([0x52, 0x20, ...new Uint8Array(32).fill(7)]);
    const odd = buildTx({ inputs: [coin], outputs: [{ script: opTrue, amount: 20_000n }, { script: v2, amount: 20_000n }, { script: alice.wpkh.script, amount: 19_000n }] });
    expect(refusal(() => node.submitTransaction(odd.hex)).reason).to.equal("scriptpubkey");
    node.mineTransactions([odd.hex]);
    const spendOpTrue = buildTx({ inputs: [{ txid: odd.txid, vout: 0, amount: 20_000n, script: opTrue }], outputs: [{ script: bob.wpkh.script, amount: 19_000n }] });
    expect(refusal(() => node.submitTransaction(spendOpTrue.hex))).to.deep.include({ reason: "bad-txns-nonstandard-inputs", debug: "input 0 script unknown" });
    const spendV2 = buildTx({ inputs: [{ txid: odd.txid, vout: 1, amount: 20_000n, script: v2 }], outputs: [{ script: bob.wpkh.script, amount: 19_000n }] });
    expect(refusal(() => node.submitTransaction(spendV2.hex))).to.deep.include({ reason: "bad-txns-nonstandard-inputs", debug: "input 0 witness program is undefined" });
    // both are valid by consensus: a block takes them
    const hash = node.mineTransactions([spendOpTrue.hex, spendV2.hex]);
    expect(node.getBlock(hash)!.txCount).to.equal(3);
  });

  it("lets a P2A anchor be spent only with an empty witness", () => {
    const coin = fund(node, alice, 50_000n);
    const anchorTx = buildTx({ inputs: [coin], outputs: [{ script: P2A_SCRIPT, amount: 500n }, { script: alice.wpkh.script, amount: 48_000n }] });
    node.submitTransaction(anchorTx.hex);
    node.mine(1);
    const anchor = { txid: anchorTx.txid, vout: 0, amount: 500n, script: P2A_SCRIPT };
    const funding = fund(node, bob, 5000n);
    const withWitness = buildTx({ inputs: [{ ...anchor, witness: [Uint8Array.of(1)] }, funding], outputs: [{ script: bob.wpkh.script, amount: 4000n }] });
    expect(refusal(() => node.submitTransaction(withWitness.hex)).reason).to.equal("bad-witness-nonstandard");
    const empty = buildTx({ inputs: [anchor, funding], outputs: [{ script: bob.wpkh.script, amount: 4000n }] });
    expect(node.submitTransaction(empty.hex)).to.equal(empty.txid);
  });
});
