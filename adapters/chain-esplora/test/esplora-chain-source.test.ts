import { expect } from "chai";
import { ChainSourceProtocolError, ChainSourceRejectedError, ChainSourceUnavailableError } from "@tender/core";
import { EsploraChainSource } from "../src/index.js";
import { parseRejection } from "../src/esplora-rejection.js";
import { fakeServer } from "@tender/core/testing";

const FAST = { attempts: 3, initialDelayMs: 5, maxDelayMs: 20, factor: 2 };
const TXID = "ab".repeat(32);

describe("EsploraChainSource against a scripted server", () => {
  it("extracts bitcoind's reason and code from Esplora's 400 bodies", () => {
    expect(parseRejection('sendrawtransaction RPC error: {"code":-26,"message":"min relay fee not met, 0 < 110"}')).to.deep.equal({ reason: "min relay fee not met, 0 < 110", code: -26 });
    expect(parseRejection("sendrawtransaction RPC error: txn-already-in-mempool")).to.deep.equal({ reason: "txn-already-in-mempool" });
    expect(parseRejection("Invalid hex string")).to.deep.equal({ reason: "Invalid hex string" });
  });

  it("keeps a script failure's whole text in both Bitcoin Core wordings (master's one pass, Core 29's two)", () => {
    const master = "mempool-script-verify-flag-failed (Invalid Schnorr signature), input 0 of " + "cd".repeat(32) + " (wtxid " + "ef".repeat(32) + "), spending " + TXID + ":1";
    const core29 = "mandatory-script-verify-flag-failed (Script evaluated without error but finished with a false/empty top stack element)";
    for (const message of [master, core29, "non-mandatory-script-verify-flag (NOPx reserved for soft-fork upgrades)"]) {
      expect(parseRejection(`sendrawtransaction RPC error: ${JSON.stringify({ code: -26, message })}`)).to.deep.equal({ reason: message, code: -26 });
    }
  });

  it("retries 5xx answers with backoff, then succeeds", async () => {
    let n = 0;
    const server = await fakeServer(() => (++n < 3 ? { status: 503, body: "busy" } : { status: 200, body: "123" }));
    try {
      const source = new EsploraChainSource({ url: server.url, retry: FAST });
      expect(await source.getBlockHash(5)).to.equal("123");
      expect(server.hits.map((h) => h.path)).to.deep.equal(["/block-height/5", "/block-height/5", "/block-height/5"]);
    } finally {
      await server.close();
    }
  });

  it("reports a source that keeps failing with 5xx as unavailable, after every attempt", async () => {
    const server = await fakeServer(() => ({ status: 502, body: "bad gateway" }));
    try {
      const source = new EsploraChainSource({ url: server.url, retry: FAST });
      const err = await source.getTxStatus(TXID).then(() => null, (e: unknown) => e);
      expect(err).to.be.instanceOf(ChainSourceUnavailableError);
      expect((err as ChainSourceUnavailableError).kind).to.equal("server-error");
      expect(server.hits).to.have.length(3);
    } finally {
      await server.close();
    }
  });

  it("does not retry a rejected broadcast and surfaces its reason", async () => {
    const server = await fakeServer(() => ({ status: 400, body: 'sendrawtransaction RPC error: {"code":-26,"message":"dust"}' }));
    try {
      const source = new EsploraChainSource({ url: `${server.url}/api/`, retry: FAST });
      const err = await source.broadcast("0200").then(() => null, (e: unknown) => e);
      expect(err).to.be.instanceOf(ChainSourceRejectedError);
      expect((err as ChainSourceRejectedError).reason).to.equal("dust");
      expect((err as ChainSourceRejectedError).code).to.equal(-26);
      expect(server.hits).to.deep.equal([{ method: "POST", path: "/api/tx", body: "0200" }]);
    } finally {
      await server.close();
    }
  });

  it("treats 404 as not found and malformed JSON as a protocol error", async () => {
    const server = await fakeServer((req) => (req.url?.endsWith("/status") ? { status: 200, body: "{oops" } : { status: 404, body: "Transaction not found" }));
    try {
      const source = new EsploraChainSource({ url: server.url, retry: FAST });
      expect(await source.getTx(TXID)).to.equal(null);
      const err = await source.getTxStatus(TXID).then(() => null, (e: unknown) => e);
      expect(err).to.be.instanceOf(ChainSourceProtocolError);
    } finally {
      await server.close();
    }
  });

  it("pages through confirmed history with /txs/chain/:last_seen", async () => {
    const confirmed = (i: number) => ({ txid: i.toString(16).padStart(64, "0"), status: { confirmed: true, block_height: 100 - i, block_hash: "cd".repeat(32), block_time: 1 } });
    const server = await fakeServer((req) => {
      if (req.url === `/address/bcrt1qpagingaddress0/txs`) return { status: 200, body: JSON.stringify(Array.from({ length: 25 }, (_, i) => confirmed(i + 1))), type: "application/json" };
      if (req.url === `/address/bcrt1qpagingaddress0/txs/chain/${confirmed(25).txid}`) return { status: 200, body: JSON.stringify([confirmed(26)]), type: "application/json" };
      return { status: 404, body: "" };
    });
    try {
      const source = new EsploraChainSource({ url: server.url, retry: FAST });
      const history = await source.getScriptHistory({ address: "bcrt1qpagingaddress0" });
      expect(history).to.have.length(26);
      expect(history[25]!.txid).to.equal(confirmed(26).txid);
    } finally {
      await server.close();
    }
  });

  it("sends URL credentials as basic auth and keeps them out of its label and messages", async () => {
    const server = await fakeServer((req) => ({ status: req.headers.authorization === `Basic ${Buffer.from("user:topsecret").toString("base64")}` ? 503 : 200, body: "x" }));
    try {
      const source = new EsploraChainSource({ url: server.url.replace("http://", "http://user:topsecret@"), retry: FAST });
      expect(source.label).to.equal(server.url);
      const err = (await source.getBlockHash(1).then(() => null, (e: unknown) => e)) as Error;
      expect(err).to.be.instanceOf(ChainSourceUnavailableError);
      expect(err.message).to.include(server.url).and.not.include("topsecret");
    } finally {
      await server.close();
    }
  });
});
