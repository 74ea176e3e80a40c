import { expect } from "chai";
import { startDevnet, type Devnet } from "../../src/devnet.js";
import { TestWallet } from "@tender/core/testing";
import { rpc, rpcRaw } from "./face-client.js";

// Field names as Bitcoin Core 28+ prints them.
const HEADER_KEYS = ["hash", "confirmations", "height", "version", "versionHex", "merkleroot", "time", "mediantime", "nonce", "bits", "difficulty", "chainwork", "nTx", "previousblockhash"];
const TX_KEYS = ["txid", "hash", "version", "size", "vsize", "weight", "locktime", "vin", "vout", "hex"];
const SPK_KEYS = ["asm", "desc", "hex", "address", "type"];
const ENTRY_KEYS = ["vsize", "weight", "time", "height", "descendantcount", "descendantsize", "ancestorcount", "ancestorsize", "wtxid", "chunkweight", "fees", "depends", "spentby", "bip125-replaceable", "unbroadcast"];

describe("devnet bitcoind RPC face", function () {
  this.timeout(30_000);
  let devnet: Devnet;
  const payee = new TestWallet("rpc-face-payee");
  let confirmed: string;
  let pending: string;

  before(async () => {
    devnet = await startDevnet({ seed: "rpc-face", rpcUser: { user: "alice", password: "wonderland" } });
    confirmed = devnet.node.faucet(payee.address, 150_000n);
    devnet.node.mine(1);
    pending = devnet.node.faucet(payee.address, 60_000n);
  });
  after(() => devnet?.stop());

  it("accepts the cookie and rpcuser/password, refuses anything else with 401", async () => {
    expect((await rpcRaw(devnet, { method: "getblockcount" })).status).to.equal(200);
    expect((await rpcRaw(devnet, { method: "getblockcount" }, "alice:wonderland")).status).to.equal(200);
    expect((await rpcRaw(devnet, { method: "getblockcount" }, "alice:guess")).status).to.equal(401);
    expect((await fetch(devnet.rpcUrl, { method: "POST", body: "{}" })).status).to.equal(401);
  });

  it("answers JSON-RPC 1.0 with HTTP error statuses and 2.0 with 200, and batches", async () => {
    const legacy = await rpcRaw(devnet, { id: 1, method: "nosuchmethod", params: [] });
    expect(legacy.status).to.equal(404);
    expect(JSON.parse(legacy.text)).to.deep.equal({ result: null, error: { code: -32601, message: "Method not found" }, id: 1 });
    const v2 = await rpcRaw(devnet, { jsonrpc: "2.0", id: 7, method: "getblockhash", params: [99999] });
    expect(v2.status).to.equal(200);
    expect(JSON.parse(v2.text)).to.deep.equal({ jsonrpc: "2.0", error: { code: -8, message: "Block height out of range" }, id: 7 });
    const batch = await rpcRaw(devnet, [
      { jsonrpc: "2.0", id: 1, method: "getblockcount" },
      { jsonrpc: "2.0", method: "getblockcount" },
      { jsonrpc: "1.0", id: 3, method: "getbestblockhash" },
    ]);
    const replies = JSON.parse(batch.text);
    expect(batch.status).to.equal(200);
    expect(replies).to.have.length(2);
    expect(replies[0]).to.deep.equal({ jsonrpc: "2.0", result: devnet.node.tipHeight(), id: 1 });
    expect(replies[1]).to.deep.equal({ result: devnet.node.tipHash(), error: null, id: 3 });
    const parse = await rpcRaw(devnet, "{not json");
    expect(parse.status).to.equal(500);
    expect(JSON.parse(parse.text).error.code).to.equal(-32700);
  });

  it("takes named parameters", async () => {
    const r = await rpcRaw(devnet, { id: 1, method: "getblockhash", params: { height: 0 } });
    expect(JSON.parse(r.text).result).to.equal(devnet.node.blockHashAt(0));
  });

  it("getblockchaininfo, getblockcount, getbestblockhash, getnetworkinfo", async () => {
    const info = (await rpc(devnet, "getblockchaininfo")).result;
    expect(info).to.include({ chain: "regtest", blocks: devnet.node.tipHeight(), bestblockhash: devnet.node.tipHash(), initialblockdownload: false });
    expect(Object.keys(info)).to.include.members(["headers", "difficulty", "time", "mediantime", "verificationprogress", "chainwork", "size_on_disk", "pruned", "warnings"]);
    expect((await rpc(devnet, "getblockcount")).result).to.equal(devnet.node.tipHeight());
    expect((await rpc(devnet, "getbestblockhash")).result).to.equal(devnet.node.tipHash());
    const net = (await rpc(devnet, "getnetworkinfo")).result;
    expect(net.version).to.be.at.least(280000);
    expect(Object.keys(net)).to.include.members(["version", "subversion", "protocolversion", "localservices", "relayfee", "incrementalfee", "warnings"]);
  });

  it("getblockhash, getblockheader (both forms) and getblock at verbosity 0 to 3", async () => {
    const hash = (await rpc(devnet, "getblockhash", [devnet.node.tipHeight()])).result;
    const header = (await rpc(devnet, "getblockheader", [hash])).result;
    expect(Object.keys(header)).to.include.members(HEADER_KEYS);
    expect(header).to.include({ hash, height: devnet.node.tipHeight(), confirmations: 1, bits: "207fffff", versionHex: "20000000" });
    const hex = (await rpc(devnet, "getblockheader", [hash, false])).result;
    expect(hex).to.match(/^[0-9a-f]{160}$/);
    const raw = (await rpc(devnet, "getblock", [hash, 0])).result;
    expect(raw.startsWith(hex)).to.equal(true);
    const v1 = (await rpc(devnet, "getblock", [hash])).result;
    expect(Object.keys(v1)).to.include.members([...HEADER_KEYS, "strippedsize", "size", "weight", "coinbase_tx", "tx"]);
    expect(Object.keys(v1.coinbase_tx)).to.deep.equal(["version", "locktime", "sequence", "coinbase", "witness"]);
    expect(v1.tx).to.include(confirmed);
    const v2 = (await rpc(devnet, "getblock", [hash, 2])).result;
    const tx = v2.tx.find((t: { txid: string }) => t.txid === confirmed);
    expect(Object.keys(tx)).to.include.members([...TX_KEYS, "fee"]);
    expect(tx.vin[0].prevout).to.equal(undefined);
    const v3 = (await rpc(devnet, "getblock", [hash, 3])).result;
    const withPrev = v3.tx.find((t: { txid: string }) => t.txid === confirmed);
    expect(Object.keys(withPrev.vin[0].prevout)).to.deep.equal(["generated", "height", "value", "scriptPubKey"]);
    const missing = await rpc(devnet, "getblock", ["00".repeat(32)]);
    expect(missing.error).to.deep.equal({ code: -5, message: "Block not found" });
    expect(missing.status).to.equal(500);
    expect((await rpc(devnet, "getblockheader", ["xyz"])).error?.code).to.equal(-8);
  });

  it("getrawtransaction prints Core's transaction object with 8-decimal amounts and descriptors", async () => {
    expect((await rpc(devnet, "getrawtransaction", [confirmed])).result).to.match(/^0[12]000000/);
    const r = await rpc(devnet, "getrawtransaction", [confirmed, true]);
    expect(Object.keys(r.result)).to.deep.equal([...TX_KEYS, "blockhash", "confirmations", "time", "blocktime"]);
    const out = r.result.vout.find((o: { scriptPubKey: { hex: string } }) => o.scriptPubKey.hex === payee.scriptHex);
    expect(Object.keys(out)).to.deep.equal(["value", "n", "scriptPubKey"]);
    expect(Object.keys(out.scriptPubKey)).to.deep.equal(SPK_KEYS);
    expect(out.scriptPubKey).to.include({ type: "witness_v0_keyhash", address: payee.address });
    expect(out.scriptPubKey.desc).to.match(new RegExp(`^addr\\(${payee.address}\\)#[a-z0-9]{8}$`));
    expect(out.scriptPubKey.asm).to.match(/^0 [0-9a-f]{40}$/);
    expect(r.text).to.include('"value":0.00150000');
    const mem = (await rpc(devnet, "getrawtransaction", [pending, 1])).result;
    expect(mem).to.not.have.property("blockhash");
    expect(mem).to.not.have.property("confirmations");
    const unknown = await rpc(devnet, "getrawtransaction", ["ef".repeat(32), true]);
    expect(unknown.error?.code).to.equal(-5);
    expect(unknown.error?.message).to.match(/^No such mempool or blockchain transaction/);
  });

  it("gettxout, getmempoolentry, getrawmempool and gettxspendingprevout", async () => {
    const tx = (await rpc(devnet, "getrawtransaction", [pending, true])).result;
    const n = tx.vout.findIndex((o: { scriptPubKey: { hex: string } }) => o.scriptPubKey.hex === payee.scriptHex);
    const out = (await rpc(devnet, "gettxout", [pending, n])).result;
    expect(Object.keys(out)).to.deep.equal(["bestblock", "confirmations", "value", "scriptPubKey", "coinbase"]);
    expect(out).to.include({ confirmations: 0, value: 0.0006, coinbase: false });
    expect((await rpc(devnet, "gettxout", [pending, n, false])).result).to.equal(null);
    const entry = (await rpc(devnet, "getmempoolentry", [pending])).result;
    expect(Object.keys(entry)).to.deep.equal(ENTRY_KEYS);
    expect(Object.keys(entry.fees)).to.deep.equal(["base", "modified", "ancestor", "descendant", "chunk"]);
    expect(entry.chunkweight).to.equal(entry.vsize * 4);
    expect((await rpc(devnet, "getmempoolentry", [confirmed])).error).to.deep.equal({ code: -5, message: "Transaction not in mempool" });
    expect((await rpc(devnet, "getrawmempool")).result).to.include(pending);
    const verbose = (await rpc(devnet, "getrawmempool", [true])).result;
    expect(Object.keys(verbose[pending])).to.deep.equal(ENTRY_KEYS);
    const spentInput = tx.vin[0];
    const spending = (await rpc(devnet, "gettxspendingprevout", [[{ txid: spentInput.txid, vout: spentInput.vout }, { txid: pending, vout: n }]])).result;
    expect(spending).to.deep.equal([
      { txid: spentInput.txid, vout: spentInput.vout, spendingtxid: pending },
      { txid: pending, vout: n },
    ]);
  });

  it("sendrawtransaction, testmempoolaccept and submitpackage give Core's results and error codes", async () => {
    const tx = (await rpc(devnet, "getrawtransaction", [confirmed, true])).result;
    const n = tx.vout.findIndex((o: { scriptPubKey: { hex: string } }) => o.scriptPubKey.hex === payee.scriptHex);
    const coin = { txid: confirmed, vout: n, valueSat: 150_000n };
    const noFee = payee.spend([coin], [{ address: payee.address, valueSat: 150_000n }]);
    const verdict = (await rpc(devnet, "testmempoolaccept", [[noFee.hex]])).result;
    expect(verdict[0]).to.include({ txid: noFee.txid, allowed: false });
    expect(verdict[0]["reject-reason"]).to.equal("min relay fee not met");
    const refused = await rpc(devnet, "sendrawtransaction", [noFee.hex]);
    expect(refused.error?.code).to.equal(-26);
    expect(refused.error?.message).to.match(/^min relay fee not met/);
    const good = payee.spend([coin], [{ address: payee.address, valueSat: 149_000n }]);
    const accept = (await rpc(devnet, "testmempoolaccept", [[good.hex]])).result[0];
    expect(Object.keys(accept)).to.deep.equal(["txid", "wtxid", "allowed", "vsize", "fees"]);
    expect(Object.keys(accept.fees)).to.deep.equal(["base", "effective-feerate", "effective-includes"]);
    expect((await rpc(devnet, "sendrawtransaction", [good.hex])).result).to.equal(good.txid);
    const missing = payee.spend([{ txid: "44".repeat(32), vout: 1, valueSat: 5_000n }], [{ address: payee.address, valueSat: 4_000n }]);
    expect((await rpc(devnet, "sendrawtransaction", [missing.hex])).error).to.deep.equal({ code: -25, message: "bad-txns-inputs-missingorspent" });
    expect((await rpc(devnet, "sendrawtransaction", ["zz"])).error?.code).to.equal(-22);
    devnet.node.mine(1);
    const parent = payee.spend([{ txid: good.txid, vout: 0, valueSat: 149_000n }], [{ address: payee.address, valueSat: 149_000n }], { version: 3 });
    const child = payee.spend([{ txid: parent.txid, vout: 0, valueSat: 149_000n }], [{ address: payee.address, valueSat: 146_000n }], { version: 3 });
    const pkg = (await rpc(devnet, "submitpackage", [[parent.hex, child.hex]])).result;
    expect(pkg.package_msg).to.equal("success");
    expect(Object.values(pkg["tx-results"]).map((e) => (e as { txid: string }).txid)).to.deep.equal([parent.txid, child.txid]);
    expect((await rpc(devnet, "submitpackage", [[]])).error?.code).to.equal(-8);
  });

  it("estimatesmartfee, generatetoaddress, validateaddress and getindexinfo", async () => {
    devnet.node.setFeeEstimates({ 1: 25, 6: 3 });
    const fee = await rpc(devnet, "estimatesmartfee", [6]);
    expect(fee.result).to.deep.equal({ feerate: 0.00003, blocks: 6 });
    expect(fee.text).to.include('"feerate":0.00003000');
    expect((await rpc(devnet, "estimatesmartfee", [0])).error?.code).to.equal(-8);
    const before = devnet.node.tipHeight();
    const hashes = (await rpc(devnet, "generatetoaddress", [2, payee.address])).result;
    expect(hashes).to.have.length(2);
    expect(devnet.node.tipHeight()).to.equal(before + 2);
    expect((await rpc(devnet, "generatetoaddress", [1, "bc1qnotregtest"])).error).to.deep.equal({ code: -5, message: "Error: Invalid address" });
    const valid = (await rpc(devnet, "validateaddress", [payee.address])).result;
    expect(valid).to.include({ isvalid: true, scriptPubKey: payee.scriptHex, iswitness: true, witness_version: 0 });
    expect((await rpc(devnet, "validateaddress", ["nope"])).result.isvalid).to.equal(false);
    expect((await rpc(devnet, "getindexinfo")).result).to.deep.equal({ txindex: { synced: true, best_block_height: devnet.node.tipHeight() } });
  });

  it("reports type errors and missing parameters with Core's codes", async () => {
    expect((await rpc(devnet, "getblockhash", ["1"])).error?.code).to.equal(-3);
    expect((await rpc(devnet, "getblockhash", [])).error?.code).to.equal(-1);
    expect((await rpc(devnet, "getblockcount", [1, 2])).error?.code).to.equal(-1);
  });
});
