import { expect } from "chai";
import { startDevnet, type Devnet } from "../../src/devnet.js";
import { TestWallet } from "@tender/core/testing";
import { esplora, esploraJson } from "./face-client.js";

describe("devnet control API (/devnet on the Esplora server)", function () {
  this.timeout(30_000);
  let devnet: Devnet;
  const who = new TestWallet("control-api");
  const post = (path: string, json: unknown) => esplora(devnet, `/devnet${path}`, { json });

  before(async () => {
    devnet = await startDevnet({ seed: "control-api" });
  });
  after(() => devnet?.stop());

  it("describes the devnet", async () => {
    const info = await esploraJson(devnet, "/devnet/info");
    expect(info).to.include({ network: "regtest", tip_height: devnet.node.tipHeight(), faucet_address: devnet.node.faucetAddress() });
  });

  it("mines blocks, to an address when given", async () => {
    const before = devnet.node.tipHeight();
    const r = JSON.parse((await post("/mine", { blocks: 3, address: who.address })).text);
    expect(r.hashes).to.have.length(3);
    expect(r.tip_height).to.equal(before + 3);
    const cb = await esploraJson(devnet, `/block/${r.hashes[0]}/txids`);
    const tx = await esploraJson(devnet, `/tx/${cb[0]}`);
    expect(tx.vout.some((o: { scriptpubkey_address?: string }) => o.scriptpubkey_address === who.address)).to.equal(true);
    expect((await post("/mine", { blocks: -1 })).status).to.equal(400);
  });

  it("pays from the faucet into the mempool", async () => {
    const r = await post("/faucet", { address: who.address, amount_sat: 42_000 });
    expect(r.status).to.equal(200);
    const { txid } = JSON.parse(r.text);
    expect(await esploraJson(devnet, `/tx/${txid}/status`)).to.deep.equal({ confirmed: false });
    expect((await post("/faucet", { address: who.address, amount_sat: 0 })).status).to.equal(400);
    expect((await post("/faucet", { address: "bc1qmainnet", amount_sat: 1000 })).status).to.equal(400);
  });

  it("sets fee estimates that both faces then report", async () => {
    const r = await post("/fee-estimates", { "1": 40, "6": 8 });
    expect(r.status).to.equal(200);
    const fees = await esploraJson(devnet, "/fee-estimates");
    expect(fees["1"]).to.equal(40);
    expect(fees["6"]).to.equal(8);
    expect((await post("/fee-estimates", { "1": -3 })).status).to.equal(400);
    expect((await post("/fee-estimates", {})).status).to.equal(400);
  });

  it("evicts a transaction from the mempool", async () => {
    const { txid } = JSON.parse((await post("/faucet", { address: who.address, amount_sat: 10_000 })).text);
    const r = JSON.parse((await post("/evict", { txid })).text);
    expect(r.removed).to.include(txid);
    expect((await esplora(devnet, `/tx/${txid}`)).status).to.equal(404);
    expect((await post("/evict", { txid: "aa".repeat(32) })).status).to.equal(400);
  });

  it("replaces a mempool transaction by a confirmed conflict", async () => {
    const { txid } = JSON.parse((await post("/faucet", { address: who.address, amount_sat: 11_000 })).text);
    const r = await post("/replace-confirmed", { txid });
    expect(r.status).to.equal(200);
    const out = JSON.parse(r.text);
    expect(out.removed).to.include(txid);
    expect(out.block_hash).to.equal(devnet.node.tipHash());
    expect((await esploraJson(devnet, `/tx/${out.conflict_txid}/status`)).confirmed).to.equal(true);
    expect((await esplora(devnet, `/tx/${txid}`)).status).to.equal(404);
  });
});
