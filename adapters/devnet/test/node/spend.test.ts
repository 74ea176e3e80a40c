import { expect } from "chai";
import { DevnetNode, PolicyError } from "../../src/node/devnet-node.js";
import { TestKey, buildTx, fund, patchOutputAmount, refusal } from "./tx-kit.js";

describe("devnet node: faucet, spends and lookups", function () {
  let node: DevnetNode;
  const alice = new TestKey("alice");
  const bob = new TestKey("bob");
  before(() => {
    node = new DevnetNode({ seed: "spend-test" });
  });

  it("faucet pays an address into the mempool, and mining confirms it", () => {
    const txid = node.faucet(alice.wpkh.address, 250_000n);
    expect(node.getRawMempool()).to.include(txid);
    const pending = node.utxosForScript(alice.wpkh.address);
    expect(pending).to.have.length(1);
    expect(pending[0]!.status.confirmed).to.equal(false);
    expect(node.scriptStats(alice.wpkh.address).mempool.fundedTxoSumSat).to.equal(250_000n);
    node.mine(1);
    expect(node.getRawMempool()).to.not.include(txid);
    const confirmed = node.utxosForScript(alice.wpkh.address);
    expect(confirmed.map((u) => [u.txid, u.amountSat, u.status.confirmed])).to.deep.equal([[txid, 250_000n, true]]);
    expect(node.scriptStats(alice.wpkh.address).chain.fundedTxoSumSat).to.equal(250_000n);
  });

  it("accepts a signed P2WPKH spend and a P2TR key-path spend, with fees and prevouts reported", () => {
    const coin = fund(node, alice, 100_000n);
    const tx = buildTx({ inputs: [coin], outputs: [{ script: bob.tr.script, amount: 99_000n }] });
    expect(node.submitTransaction(tx.hex)).to.equal(tx.txid);
    const info = node.getTransaction(tx.txid)!;
    expect(info.feeSat).to.equal(1000n);
    expect(info.vin[0]!.prevout!.amountSat).to.equal(100_000n);
    expect(info.vin[0]!.prevout!.address).to.equal(alice.wpkh.address);
    expect(info.vout[0]!.address).to.equal(bob.tr.address);
    expect(info.vout[0]!.scriptType).to.equal("v1_p2tr");
    node.mine(1);
    const trSpend = buildTx({ inputs: [tx.coin(0, bob, true)], outputs: [{ script: alice.wpkh.script, amount: 98_000n }] });
    expect(node.submitTransaction(trSpend.hex)).to.equal(trSpend.txid);
    expect(node.getOutspend(tx.txid, 0)).to.deep.include({ spent: true, txid: trSpend.txid, vin: 0 });
    // bob's script: funded once (confirmed), spent once (in the mempool)
    const stats = node.scriptStats(bob.tr.address);
    expect([stats.chain.fundedTxoCount, stats.chain.fundedTxoSumSat, stats.chain.spentTxoCount, stats.chain.txCount]).to.deep.equal([1, 99_000n, 0, 1]);
    expect([stats.mempool.spentTxoCount, stats.mempool.spentTxoSumSat, stats.mempool.txCount]).to.deep.equal([1, 99_000n, 1]);
    node.mine(1);
    const after = node.scriptStats(bob.tr.address);
    expect([after.chain.spentTxoSumSat, after.chain.txCount, after.mempool.txCount]).to.deep.equal([99_000n, 2, 0]);
  });

  it("refuses a double spend of a confirmed-spent coin and of a missing coin", () => {
    const coin = fund(node, alice, 50_000n);
    const first = buildTx({ inputs: [coin], outputs: [{ script: bob.wpkh.script, amount: 49_000n }] });
    node.submitTransaction(first.hex);
    node.mine(1);
    const second = buildTx({ inputs: [coin], outputs: [{ script: alice.wpkh.script, amount: 48_000n }] });
    expect(refusal(() => node.submitTransaction(second.hex)).reason).to.equal("bad-txns-inputs-missingorspent");
    const ghost = buildTx({ inputs: [{ ...coin, txid: "ab".repeat(32) }], outputs: [{ script: bob.wpkh.script, amount: 1000n }] });
    expect(refusal(() => node.submitTransaction(ghost.hex)).reason).to.equal("bad-txns-inputs-missingorspent");
    expect(() => node.mineTransactions([second.hex])).to.throw(PolicyError, "bad-txns-inputs-missingorspent");
  });

  it("refuses a transaction with a bad signature in one pass under the standard flags, as Core master words it", () => {
    const coin = fund(node, alice, 40_000n);
    const bad = buildTx({ inputs: [coin], outputs: [{ script: bob.wpkh.script, amount: 39_000n }], corruptSignature: true });
    const wtxid = (hex: string): string => node.testMempoolAccept([hex])[0]!.wtxid;
    // a wrong ECDSA signature fails NULLFAIL (a standard flag) before the script ends false
    const ecdsa = refusal(() => node.submitTransaction(bad.hex));
    expect(ecdsa.reason).to.equal("mempool-script-verify-flag-failed (Signature must be zero for failed CHECK(MULTI)SIG operation)");
    expect(ecdsa.debug).to.equal(`input 0 of ${bad.txid} (wtxid ${wtxid(bad.hex)}), spending ${coin.txid}:${coin.vout}`);
    expect(ecdsa.message).to.equal(`${ecdsa.reason}, ${ecdsa.debug}`);
    const trCoin = fund(node, alice, 40_000n, { taproot: true });
    const badTr = buildTx({ inputs: [trCoin], outputs: [{ script: bob.wpkh.script, amount: 39_000n }], corruptSignature: true });
    const schnorr = refusal(() => node.submitTransaction(badTr.hex));
    expect(schnorr.reason).to.equal("mempool-script-verify-flag-failed (Invalid Schnorr signature)");
    expect(schnorr.debug).to.equal(`input 0 of ${badTr.txid} (wtxid ${wtxid(badTr.hex)}), spending ${trCoin.txid}:${trCoin.vout}`);
    // a block carrying it is refused by block validation, in its own words, and the chain does not move
    const tip = node.tipHash();
    expect(() => node.mineTransactions([bad.hex])).to.throw(/mandatory-script-verify-flag-failed \(Script evaluated without error but finished with a false\/empty top stack element\)/);
    expect(node.tipHash()).to.equal(tip);
  });

  it("names the failing input and the coin it spends when a later input fails", () => {
    const good = fund(node, alice, 20_000n);
    const other = fund(node, alice, 20_000n, { taproot: true });
    // input 1 spends alice's taproot output by key path with 64 bytes that are no signature
    const forgedInput = { txid: other.txid, vout: other.vout, amount: other.amount, script: other.script, witness: [new Uint8Array(64).fill(1)] };
    const forged = buildTx({ inputs: [good, forgedInput], outputs: [{ script: bob.wpkh.script, amount: 39_000n }] });
    const r = refusal(() => node.submitTransaction(forged.hex));
    expect(r.reason).to.equal("mempool-script-verify-flag-failed (Invalid Schnorr signature)");
    expect(r.debug).to.match(new RegExp(`^input 1 of ${forged.txid} \\(wtxid [0-9a-f]{64}\\), spending ${other.txid}:${other.vout}$`));
  });

  it("words script failures as Core 29 did when asked (scriptFailureWording: core-29)", () => {
    const old = new DevnetNode({ seed: "spend-test-core29", scriptFailureWording: "core-29" });
    const coin = fund(old, alice, 40_000n);
    const bad = buildTx({ inputs: [coin], outputs: [{ script: bob.wpkh.script, amount: 39_000n }], corruptSignature: true });
    // two passes: the mandatory flags alone see the script end false
    const r = refusal(() => old.submitTransaction(bad.hex));
    expect(r).to.deep.include({
      reason: "mandatory-script-verify-flag-failed (Script evaluated without error but finished with a false/empty top stack element)",
      message: "mandatory-script-verify-flag-failed (Script evaluated without error but finished with a false/empty top stack element)",
    });
    expect(r.debug).to.equal(undefined);
    const trCoin = fund(old, alice, 40_000n, { taproot: true });
    const badTr = buildTx({ inputs: [trCoin], outputs: [{ script: bob.wpkh.script, amount: 39_000n }], corruptSignature: true });
    expect(refusal(() => old.submitTransaction(badTr.hex)).reason).to.equal("mandatory-script-verify-flag-failed (Invalid Schnorr signature)");
    old.close();
  });

  it("answers gettxout for confirmed, mempool and spent outputs", () => {
    const coin = fund(node, alice, 30_000n);
    const out = node.getTxOut(coin.txid, coin.vout)!;
    expect(out.amountSat).to.equal(30_000n);
    expect(out.confirmations).to.equal(1);
    expect(out.address).to.equal(alice.wpkh.address);
    const spend = buildTx({ inputs: [coin], outputs: [{ script: bob.wpkh.script, amount: 29_000n }] });
    node.submitTransaction(spend.hex);
    expect(node.getTxOut(coin.txid, coin.vout)).to.equal(undefined);
    expect(node.getTxOut(coin.txid, coin.vout, false)!.amountSat).to.equal(30_000n);
    expect(node.getTxOut(spend.txid, 0)!.confirmations).to.equal(0);
    expect(node.getOutspends(spend.txid)).to.deep.equal([{ spent: false }]);
    expect(node.getOutspend(coin.txid, coin.vout)).to.deep.equal({ spent: true, txid: spend.txid, vin: 0, status: { confirmed: false } });
  });

  it("lists a script's history mempool-first, newest first", () => {
    const carol = new TestKey("carol");
    const a = fund(node, carol, 10_000n);
    const b = fund(node, carol, 20_000n, { mine: false });
    const history = node.historyForScript(carol.wpkh.address).map((t) => t.txid);
    expect(history).to.deep.equal([b.txid, a.txid]);
  });

  it("reports testmempoolaccept verdicts without adding anything", () => {
    const coin = fund(node, alice, 60_000n);
    const ok = buildTx({ inputs: [coin], outputs: [{ script: bob.wpkh.script, amount: 59_000n }] });
    const [res] = node.testMempoolAccept([ok.hex]);
    expect(res).to.deep.include({ txid: ok.txid, allowed: true, vsize: ok.vsize });
    expect(res!.fees!.baseSat).to.equal(1000n);
    expect(node.getRawMempool()).to.not.include(ok.txid);
    const tooRich = patchOutputAmount(ok.hex, 59_000n, 61_000n);
    const [bad] = node.testMempoolAccept([tooRich]);
    expect(bad).to.deep.include({ allowed: false, rejectReason: "bad-txns-in-belowout" });
  });

  it("rejects garbage input with typed errors, not crashes", () => {
    expect(() => node.submitTransaction("zz")).to.throw(/invalid hex/);
    expect(() => node.submitTransaction("0200000001")).to.throw(/TX decode failed/);
    expect(() => node.faucet("bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4", 1000n)).to.throw(/not a regtest address/);
    expect(node.getBlock("00".repeat(32))).to.equal(undefined);
    expect(node.blockHashAt(-1)).to.equal(undefined);
  });
});
