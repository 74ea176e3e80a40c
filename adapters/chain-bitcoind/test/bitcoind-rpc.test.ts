import { expect } from "chai";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ChainSourceInvalidRequestError, ChainSourceProtocolError, ChainSourceRejectedError, ChainSourceUnavailableError } from "@tender/core";
import { BitcoindChainSource, BitcoindRpc, BitcoindRpcError } from "../src/index.js";
import { fakeServer } from "@tender/core/testing";

const FAST = { attempts: 3, initialDelayMs: 5, maxDelayMs: 20, factor: 2 };
const json = (v: unknown) => ({ status: 200, body: JSON.stringify(v), type: "application/json" });
const basic = (pair: string) => `Basic ${Buffer.from(pair).toString("base64")}`;

describe("bitcoind JSON-RPC client against a scripted server", () => {
  let dir: string;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), "tender-rpc-test-"));
  });
  after(() => rm(dir, { recursive: true, force: true }));

  it("retries while bitcoind is warming up (-28), then returns the result", async () => {
    let n = 0;
    const server = await fakeServer((_req, body) => {
      const { id } = JSON.parse(body) as { id: number };
      return ++n < 3 ? { status: 500, body: JSON.stringify({ result: null, error: { code: -28, message: "Loading block index…" }, id }) } : json({ result: 812, error: null, id });
    });
    try {
      const rpc = new BitcoindRpc(server.url, { url: server.url, auth: { user: "u", password: "p" }, retry: FAST });
      expect(await rpc.call("getblockcount")).to.equal(812);
      expect(server.hits).to.have.length(3);
    } finally {
      await server.close();
    }
  });

  const OLD_COOKIE = `__cookie__:${"a1".repeat(32)}`;
  const NEW_COOKIE = `__cookie__:${"b2".repeat(32)}`;

  it("re-reads a rotated cookie file once after a 401", async () => {
    const cookie = join(dir, ".cookie");
    await writeFile(cookie, OLD_COOKIE);
    const server = await fakeServer((req, body) => {
      if (req.headers.authorization !== basic(NEW_COOKIE)) return { status: 401, body: "" };
      return json({ result: "ok", error: null, id: (JSON.parse(body) as { id: number }).id });
    });
    try {
      const rpc = new BitcoindRpc(server.url, { url: server.url, auth: { cookieFile: cookie }, retry: FAST });
      const first = await rpc.call("ping").then(() => null, (e: unknown) => e);
      expect(first).to.be.instanceOf(ChainSourceProtocolError);
      expect((first as Error).message).to.match(/authentication failed/);
      await writeFile(cookie, `${NEW_COOKIE}\n`);
      expect(await rpc.call("ping")).to.equal("ok");
    } finally {
      await server.close();
    }
  });

  it("never sends a file that is not a bitcoind cookie, and says so", async () => {
    let asked = 0;
    const server = await fakeServer(() => { asked++; return json({ result: "ok", error: null, id: 1 }); });
    try {
      for (const contents of ["root:x:0:0:root:/root:/bin/bash\n", "user:password", "__cookie__:short", `__cookie__:${"zz".repeat(32)}`]) {
        const cookie = join(dir, "not-a-cookie");
        await writeFile(cookie, contents);
        const rpc = new BitcoindRpc(server.url, { url: server.url, auth: { cookieFile: cookie }, retry: { ...FAST, attempts: 1 } });
        const err = await rpc.call("getblockcount").then(() => null, (e: unknown) => e);
        expect(err, contents).to.be.instanceOf(ChainSourceUnavailableError);
        expect((err as Error).message, contents).to.match(/does not hold a bitcoind cookie \(__cookie__:<64 hex digits>\)/);
      }
      expect(asked).to.equal(0);
    } finally {
      await server.close();
    }
  });

  it("reports a missing cookie file as an unavailable node", async () => {
    const rpc = new BitcoindRpc("http://127.0.0.1:1", { url: "http://127.0.0.1:1", auth: { cookieFile: join(dir, "absent", ".cookie") }, retry: { ...FAST, attempts: 1 } });
    const err = await rpc.call("getblockcount").then(() => null, (e: unknown) => e);
    expect(err).to.be.instanceOf(ChainSourceUnavailableError);
    expect((err as Error).message).to.match(/cookie file .*\.cookie is not readable/);
  });

  it("matches batch replies to calls by id, whatever their order, and keeps per-call errors", async () => {
    const server = await fakeServer((_req, body) => {
      const calls = JSON.parse(body) as Array<{ id: number; method: string }>;
      return json(calls.map((c) => (c.method === "bad" ? { result: null, error: { code: -5, message: "nope" }, id: c.id } : { result: c.method, error: null, id: c.id })).reverse());
    });
    try {
      const rpc = new BitcoindRpc(server.url, { url: server.url, auth: { user: "u", password: "p" }, retry: FAST });
      const out = await rpc.batch([{ method: "a", params: [] }, { method: "bad", params: [] }, { method: "c", params: [] }]);
      expect(out[0]).to.deep.equal({ ok: true, result: "a" });
      expect(out[1]!.ok).to.equal(false);
      expect(!out[1]!.ok && out[1]!.error).to.be.instanceOf(BitcoindRpcError).and.include({ code: -5, rpcMessage: "nope" });
      expect(out[2]).to.deep.equal({ ok: true, result: "c" });
    } finally {
      await server.close();
    }
  });

  it("turns sendrawtransaction errors into rejections, once, and never leaks the password", async () => {
    const server = await fakeServer((_req, body) => ({ status: 500, body: JSON.stringify({ result: null, error: { code: -26, message: "dust" }, id: (JSON.parse(body) as { id: number }).id }) }));
    try {
      const source = new BitcoindChainSource({ url: server.url, auth: { user: "u", password: "hunter2" }, retry: FAST });
      const err = await source.broadcast("0200").then(() => null, (e: unknown) => e);
      expect(err).to.be.instanceOf(ChainSourceRejectedError);
      expect(err).to.include({ reason: "dust", code: -26 });
      expect((err as Error).message).to.not.include("hunter2");
      expect(server.hits).to.have.length(1);
    } finally {
      await server.close();
    }
  });

  it("turns a script failure into a rejection in both Bitcoin Core wordings (master's one pass, Core 29's two)", async () => {
    const messages = [
      `mempool-script-verify-flag-failed (Invalid Schnorr signature), input 0 of ${"cd".repeat(32)} (wtxid ${"ef".repeat(32)}), spending ${"ab".repeat(32)}:1`,
      "mandatory-script-verify-flag-failed (Invalid Schnorr signature)",
      "non-mandatory-script-verify-flag (NOPx reserved for soft-fork upgrades)",
    ];
    let next = 0;
    const server = await fakeServer((_req, body) => ({ status: 500, body: JSON.stringify({ result: null, error: { code: -26, message: messages[next++] }, id: (JSON.parse(body) as { id: number }).id }) }));
    try {
      const source = new BitcoindChainSource({ url: server.url, auth: { user: "u", password: "p" }, retry: FAST });
      for (const message of messages) {
        const err = await source.broadcast("0200").then(() => null, (e: unknown) => e);
        expect(err).to.be.instanceOf(ChainSourceRejectedError);
        expect(err).to.include({ reason: message, code: -26 });
      }
    } finally {
      await server.close();
    }
  });

  it("retries HTTP 5xx without a JSON-RPC body as a transient failure", async () => {
    const server = await fakeServer(() => ({ status: 503, body: "Work queue depth exceeded" }));
    try {
      const rpc = new BitcoindRpc(server.url, { url: server.url, auth: { user: "u", password: "p" }, retry: FAST });
      const err = await rpc.call("getblockcount").then(() => null, (e: unknown) => e);
      expect(err).to.be.instanceOf(ChainSourceUnavailableError).and.include({ kind: "server-error", attempts: 3 });
    } finally {
      await server.close();
    }
  });

  it("refuses a URL that is not http(s)", () => {
    expect(() => new BitcoindChainSource({ url: "ftp://x", auth: { user: "u", password: "p" } })).to.throw(ChainSourceInvalidRequestError);
  });
});
