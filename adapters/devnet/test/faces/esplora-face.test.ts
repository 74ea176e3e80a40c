import { expect } from "chai";
import { startDevnet, type Devnet } from "../../src/devnet.js";
import { TestWallet } from "@tender/core/testing";
import { merkleRootFromProof } from "../../src/esplora/merkle-proof.js";
import { esplora, esploraJson } from "./face-client.js";

// Field names as Blockstream's esplora (electrs) serves them.
const TX_KEYS = ["txid", "version", "locktime", "vin", "vout", "size", "weight", "fee", "status"];
const VIN_KEYS = ["txid", "vout", "prevout", "scriptsig", "scriptsig_asm", "witness", "is_coinbase", "sequence"];
const VOUT_KEYS = ["scriptpubkey", "scriptpubkey_asm", "scriptpubkey_type", "scriptpubkey_address", "value"];
const BLOCK_KEYS = ["id", "height", "version", "timestamp", "tx_count", "size", "weight", "merkle_root", "previousblockhash", "mediantime", "nonce", "bits", "difficulty"];
const STATUS_KEYS = ["confirmed", "block_height", "block_hash", "block_time"];
const STATS_KEYS = ["funded_txo_count", "funded_txo_sum", "spent_txo_count", "spent_txo_sum", "tx_count"];

describe("devnet Esplora face", function () {
  this.timeout(30_000);
  let devnet: Devnet;
  const payee = new TestWallet("esplora-face-payee");
  let paid: string; // confirmed faucet payment to payee
  let pending: string; // mempool faucet payment to payee

  before(async () => {
    devnet = await startDevnet({ seed: "esplora-face" });
    paid = devnet.node.faucet(payee.address, 120_000n);
    devnet.node.mine(1);
    pending = devnet.node.faucet(payee.address, 80_000n);
  });
  after(() => devnet?.stop());

  it("serves the tip as plain text", async () => {
    const height = await esplora(devnet, "/blocks/tip/height");
    expect(height.type).to.match(/^text\/plain/);
    expect(Number(height.text)).to.equal(devnet.node.tipHeight());
    expect((await esplora(devnet, "/blocks/tip/hash")).text).to.equal(devnet.node.tipHash());
  });

  it("serves blocks by height and hash with Esplora's fields", async () => {
    const hash = (await esplora(devnet, "/block-height/1")).text;
    const block = await esploraJson(devnet, `/block/${hash}`);
    expect(Object.keys(block)).to.deep.equal(BLOCK_KEYS);
    expect(block).to.include({ id: hash, height: 1, bits: 0x207fffff });
    expect(block.previousblockhash).to.equal((await esplora(devnet, "/block-height/0")).text);
    expect((await esplora(devnet, "/block-height/999999")).status).to.equal(404);
    expect((await esplora(devnet, "/block/zz")).status).to.equal(400);
    expect((await esplora(devnet, `/block/${"ab".repeat(32)}`)).status).to.equal(404);
  });

  it("serves a block's header, status, txids, transactions and raw bytes", async () => {
    const hash = devnet.node.tipHash();
    const header = (await esplora(devnet, `/block/${hash}/header`)).text;
    expect(header).to.match(/^[0-9a-f]{160}$/);
    expect(await esploraJson(devnet, `/block/${hash}/status`)).to.deep.equal({ in_best_chain: true, height: devnet.node.tipHeight(), next_best: null });
    const txids: string[] = await esploraJson(devnet, `/block/${hash}/txids`);
    expect(txids).to.include(paid);
    const txs = await esploraJson(devnet, `/block/${hash}/txs`);
    expect(txs.map((t: { txid: string }) => t.txid)).to.deep.equal(txids);
    expect(txs[0]).to.not.have.property("status");
    const raw = await fetch(`${devnet.esploraUrl}/block/${hash}/raw`);
    expect(raw.headers.get("content-type")).to.match(/octet-stream/);
    expect(Buffer.from(await raw.arrayBuffer()).subarray(0, 80).toString("hex")).to.equal(header);
  });

  it("serves a transaction with Esplora's fields, prevouts and status", async () => {
    const tx = await esploraJson(devnet, `/tx/${paid}`);
    expect(Object.keys(tx)).to.deep.equal(TX_KEYS);
    expect(Object.keys(tx.vin[0])).to.deep.equal(VIN_KEYS);
    expect(Object.keys(tx.vin[0].prevout)).to.deep.equal(VOUT_KEYS);
    const out = tx.vout.find((o: { scriptpubkey: string }) => o.scriptpubkey === payee.scriptHex);
    expect(Object.keys(out)).to.deep.equal(VOUT_KEYS);
    expect(out).to.include({ scriptpubkey_type: "v0_p2wpkh", scriptpubkey_address: payee.address, value: 120_000 });
    expect(out.scriptpubkey_asm).to.match(/^OP_0 OP_PUSHBYTES_20 [0-9a-f]{40}$/);
    expect(Object.keys(tx.status)).to.deep.equal(STATUS_KEYS);
    expect(tx.fee).to.be.greaterThan(0);
    expect(await esploraJson(devnet, `/tx/${pending}/status`)).to.deep.equal({ confirmed: false });
    expect((await esplora(devnet, `/tx/${paid}/hex`)).text).to.match(/^0[12]000000/);
    expect((await esplora(devnet, `/tx/${"cd".repeat(32)}`)).status).to.equal(404);
  });

  it("marks a coinbase input the way Esplora does", async () => {
    const txids: string[] = await esploraJson(devnet, `/block/${devnet.node.tipHash()}/txids`);
    const cb = await esploraJson(devnet, `/tx/${txids[0]}`);
    expect(cb.vin[0]).to.include({ is_coinbase: true, prevout: null, vout: 4294967295, txid: "0".repeat(64) });
  });

  it("reports outspends, one and all", async () => {
    const tx = await esploraJson(devnet, `/tx/${pending}`);
    const spent = tx.vin[0];
    const one = await esploraJson(devnet, `/tx/${spent.txid}/outspend/${spent.vout}`);
    expect(one).to.deep.equal({ spent: true, txid: pending, vin: 0, status: { confirmed: false } });
    const all = await esploraJson(devnet, `/tx/${pending}/outspends`);
    expect(all).to.have.length(tx.vout.length);
    expect(all.every((o: { spent: boolean }) => o.spent === false)).to.equal(true);
  });

  it("serves address and script-hash stats, UTXOs and history with the same content", async () => {
    const addr = await esploraJson(devnet, `/address/${payee.address}`);
    expect(Object.keys(addr)).to.deep.equal(["address", "chain_stats", "mempool_stats"]);
    expect(Object.keys(addr.chain_stats)).to.deep.equal(STATS_KEYS);
    expect(addr.chain_stats).to.include({ funded_txo_count: 1, funded_txo_sum: 120_000 });
    expect(addr.mempool_stats).to.include({ funded_txo_count: 1, funded_txo_sum: 80_000 });
    const { createHash } = await import("node:crypto");
    const scripthash = Buffer.from(createHash("sha256").update(Buffer.from(payee.scriptHex, "hex")).digest()).reverse().toString("hex");
    for (const base of [`/address/${payee.address}`, `/scripthash/${scripthash}`]) {
      const utxos = await esploraJson(devnet, `${base}/utxo`);
      expect(utxos.map((u: object) => Object.keys(u))).to.deep.equal([["txid", "vout", "status", "value"], ["txid", "vout", "status", "value"]]);
      expect(utxos.map((u: { value: number }) => u.value).sort()).to.deep.equal([120_000, 80_000].sort());
      const txs = await esploraJson(devnet, `${base}/txs`);
      expect(txs.map((t: { txid: string }) => t.txid)).to.deep.equal([pending, paid]);
      expect((await esploraJson(devnet, `${base}/txs/chain`)).map((t: { txid: string }) => t.txid)).to.deep.equal([paid]);
      expect(await esploraJson(devnet, `${base}/txs/chain/${paid}`)).to.deep.equal([]);
      expect((await esploraJson(devnet, `${base}/txs/mempool`)).map((t: { txid: string }) => t.txid)).to.deep.equal([pending]);
    }
    expect(await esploraJson(devnet, `/scripthash/${"00".repeat(32)}/utxo`)).to.deep.equal([]);
    expect((await esplora(devnet, "/address/tb1qnotregtest/utxo")).status).to.equal(400);
  });

  it("broadcasts a transaction and explains a refusal as Esplora does", async () => {
    const coin = { txid: paid, vout: (await esploraJson(devnet, `/tx/${paid}`)).vout.findIndex((o: { scriptpubkey: string }) => o.scriptpubkey === payee.scriptHex), valueSat: 120_000n };
    const noFee = payee.spend([coin], [{ address: payee.address, valueSat: 120_000n }]);
    const refused = await esplora(devnet, "/tx", { body: noFee.hex });
    expect(refused.status).to.equal(400);
    expect(refused.text).to.match(/^sendrawtransaction RPC error: \{"code":-26,"message":"min relay fee not met/);
    const ok = payee.spend([coin], [{ address: payee.address, valueSat: 119_000n }]);
    const sent = await esplora(devnet, "/tx", { body: ok.hex });
    expect(sent).to.include({ status: 200, text: ok.txid });
    expect(await esploraJson(devnet, "/mempool/txids")).to.include(ok.txid);
    const garbage = await esplora(devnet, "/tx", { body: "00ff" });
    expect(garbage.status).to.equal(400);
  });

  it("accepts a package on POST /txs/package with Core's submitpackage result", async () => {
    devnet.node.mine(1); // a TRUC parent may not spend an unconfirmed non-v3 output
    const utxos = await esploraJson(devnet, `/address/${payee.address}/utxo`);
    const u = utxos.find((x: { txid: string }) => x.txid === pending);
    const parent = payee.spend([{ txid: u.txid, vout: u.vout, valueSat: BigInt(u.value) }], [{ address: payee.address, valueSat: BigInt(u.value) }], { version: 3 });
    const child = payee.spend([{ txid: parent.txid, vout: 0, valueSat: BigInt(u.value) }], [{ address: payee.address, valueSat: BigInt(u.value) - 3_000n }], { version: 3 });
    const r = await esplora(devnet, "/txs/package", { body: JSON.stringify([parent.hex, child.hex]) });
    expect(r.status).to.equal(200);
    const result = JSON.parse(r.text);
    expect(Object.keys(result)).to.deep.equal(["package_msg", "tx-results", "replaced-transactions"]);
    expect(result.package_msg).to.equal("success");
    const entries = Object.values(result["tx-results"]) as Array<Record<string, unknown>>;
    expect(entries.map((e) => e.txid)).to.deep.equal([parent.txid, child.txid]);
    expect(Object.keys(entries[1]!)).to.include.members(["txid", "vsize", "fees"]);
    expect(r.text).to.match(/"base":0\.0000\d{4}/);
    expect((await esplora(devnet, "/txs/package", { body: "nope" })).status).to.equal(400);
  });

  it("serves fee estimates for Esplora's targets and a mempool summary", async () => {
    const fees = await esploraJson(devnet, "/fee-estimates");
    expect(Object.keys(fees)).to.include.members(["1", "2", "3", "6", "25", "144", "504", "1008"]);
    expect(Object.values(fees).every((v) => typeof v === "number" && v > 0)).to.equal(true);
    const mempool = await esploraJson(devnet, "/mempool");
    expect(Object.keys(mempool)).to.deep.equal(["count", "vsize", "total_fee", "fee_histogram"]);
    expect(mempool.count).to.equal(devnet.node.getRawMempool().length);
    expect(await esploraJson(devnet, "/mempool/txids")).to.have.members(devnet.node.getRawMempool());
  });

  it("proves a confirmed transaction's inclusion with a merkle branch that reaches the block's root", async () => {
    devnet.node.mine(1);
    for (let i = 0; i < 4; i++) devnet.node.faucet(new TestWallet(`merkle-${i}`).address, 10_000n + BigInt(i));
    const [hash] = devnet.node.mine(1);
    const txids: string[] = await esploraJson(devnet, `/block/${hash}/txids`);
    expect(txids.length).to.equal(5); // odd: the last hash pairs with itself
    const block = await esploraJson(devnet, `/block/${hash}`);
    for (const txid of txids) {
      const proof = await esploraJson(devnet, `/tx/${txid}/merkle-proof`);
      expect(Object.keys(proof)).to.deep.equal(["block_height", "merkle", "pos"]);
      expect(proof.pos).to.equal(txids.indexOf(txid));
      expect(merkleRootFromProof(txid, proof.merkle, proof.pos)).to.equal(block.merkle_root);
    }
    const unconfirmed = devnet.node.faucet(payee.address, 5_000n);
    expect((await esplora(devnet, `/tx/${unconfirmed}/merkle-proof`)).status).to.equal(404);
  });
});
