import { expect } from "chai";
import { mkdtempSync, rmSync, appendFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DatadirError, DevnetNode } from "../../src/node/devnet-node.js";
import { P2A_SCRIPT, TestKey, buildTx, fund } from "./tx-kit.js";

describe("devnet node: persistence and determinism", function () {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), "devnet-node-"));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it("restarts from its datadir with the same tip, UTXO set, balances, mempool and fee estimates", () => {
    const alice = new TestKey("persist-alice");
    const first = new DevnetNode({ seed: "persist", datadir: dir });
    const coin = fund(first, alice, 75_000n);
    const pending = buildTx({ inputs: [coin], outputs: [{ script: alice.tr.script, amount: 74_000n }] });
    first.submitTransaction(pending.hex);
    first.setFeeEstimates({ 2: 7 });
    const tip = first.tipHash();
    const height = first.tipHeight();
    const faucetUtxos = first.utxosForScript(first.faucetAddress()).map((u) => `${u.txid}:${u.vout}:${u.amountSat}`);
    first.close();

    const second = new DevnetNode({ seed: "persist", datadir: dir });
    expect(second.tipHash()).to.equal(tip);
    expect(second.tipHeight()).to.equal(height);
    expect(second.utxosForScript(second.faucetAddress()).map((u) => `${u.txid}:${u.vout}:${u.amountSat}`)).to.deep.equal(faucetUtxos);
    expect(second.getTxOut(coin.txid, coin.vout, false)!.amountSat).to.equal(75_000n);
    expect(second.getRawMempool()).to.deep.equal([pending.txid]);
    expect(second.feeEstimates()).to.deep.equal({ 2: 7 });
    // and it keeps working: the pending spend confirms on the restarted chain
    second.mine(1);
    expect(second.getTxStatus(pending.txid)!.confirmed).to.equal(true);
    expect(second.utxosForScript(alice.tr.address).map((u) => u.amountSat)).to.deep.equal([74_000n]);
    second.close();
  });

  it("keeps a zero-fee parent and its CPFP child across a restart", () => {
    const alice = new TestKey("persist-pkg");
    const first = new DevnetNode({ seed: "persist-pkg", datadir: dir, premineBlocks: 101 });
    const coin = fund(first, alice, 50_000n);
    const funding = fund(first, alice, 20_000n);
    const parent = buildTx({ version: 3, inputs: [coin], outputs: [{ script: alice.tr.script, amount: 50_000n }, { script: P2A_SCRIPT, amount: 0n }] });
    const child = buildTx({
      version: 3,
      inputs: [{ txid: parent.txid, vout: 1, amount: 0n, script: P2A_SCRIPT }, funding],
      outputs: [{ script: alice.wpkh.script, amount: 17_000n }],
    });
    expect(first.submitPackage([parent.hex, child.hex]).packageMsg).to.equal("success");
    first.close();
    const second = new DevnetNode({ seed: "persist-pkg", datadir: dir });
    expect(second.getRawMempool()).to.deep.equal([parent.txid, child.txid]);
    second.close();
  });

  it("refuses a torn block file with a DatadirError", () => {
    new DevnetNode({ seed: "torn", datadir: dir, premineBlocks: 2 }).close();
    appendFileSync(join(dir, "blocks.dat"), Buffer.from([0xff, 0x00]));
    expect(() => new DevnetNode({ seed: "torn", datadir: dir })).to.throw(DatadirError);
  });

  it("builds the same chain from the same seed and calls, and a different one from another seed", () => {
    const run = (seed: string): string[] => {
      const node = new DevnetNode({ seed, premineBlocks: 101 });
      node.faucet(new TestKey("det").wpkh.address, 10_000n);
      node.mine(2);
      return [node.tipHash(), node.faucetAddress()];
    };
    const a = run("same");
    expect(run("same")).to.deep.equal(a);
    const c = run("other");
    expect(c[0]).to.not.equal(a[0]);
    expect(c[1]).to.not.equal(a[1]);
  });
});
