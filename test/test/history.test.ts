import { expect } from "chai";
import WebSocket from "ws";
import { regtestWallet } from "../src/shared-devnet.js";
import { cleanup, startDaemon, type Daemon } from "../src/daemon-process.js";

let REGTEST: Record<string, unknown>;
before(async () => { REGTEST = await regtestWallet(); });
const CONFIG = { plugins: ["@tender/plugin-wallet", "@tender/plugin-notifications", "@tender/plugin-history", "@tender/e2e/example-plugin"] };
const ADDR = "bcrt1p8wpt9v4frpf3tkn0srd97pksgsxc5hs52lafxwru9kgeephvs7rqjeprhg";

interface Movement { id: number; metadata?: Record<string, unknown>; time: { created_at: string; updated_at: string; completed_at?: string } }

describe("history (barkd's /history routes and Movement JSON)", function () {
  this.timeout(60_000);
  let d: Daemon;
  before(async () => {
    d = await startDaemon({ config: CONFIG });
    expect((await d.api("POST", "/api/v1/wallet/create", { body: REGTEST })).status).to.equal(200);
  });
  after(async () => { await d.stop(); cleanup(d.datadir); });

  const record = async (kind: "send" | "receive", method: { type: string; value: string }, amount_sat = 1000) =>
    (await d.api("POST", "/api/v1/example/movements", { body: { kind, amount_sat, method } })).json as Movement;

  it("lists movements newest first on /history and the deprecated aliases", async () => {
    await record("receive", { type: "bitcoin", value: ADDR }, 5000);
    await record("send", { type: "custom", value: "coffee" }, 300);
    await record("send", { type: "bitcoin", value: ADDR.toUpperCase() }, 700);
    for (const path of ["/api/v1/history", "/api/v1/wallet/movements", "/api/v1/wallet/history"]) {
      const r = await d.api("GET", path);
      expect(r.status).to.equal(200);
      expect((r.json as Movement[]).map((m) => m.id)).to.deep.equal([3, 2, 1]);
    }
  });

  it("filters by payment method (type and value together), oldest first, comparing canonical forms", async () => {
    const r = await d.api("GET", `/api/v1/history?type=bitcoin&value=${ADDR.toUpperCase()}`);
    expect((r.json as Movement[]).map((m) => m.id)).to.deep.equal([1, 3]);
    expect(((await d.api("GET", "/api/v1/history?type=custom&value=coffee")).json as Movement[]).map((m) => m.id)).to.deep.equal([2]);
  });

  it("refuses half a filter, an unknown type and an unparseable value with 400", async () => {
    const half = await d.api("GET", "/api/v1/history?type=bitcoin");
    expect(half.status).to.equal(400);
    expect(half.json).to.deep.equal({ message: "`type` and `value` must be supplied together" });
    const unknown = await d.api("GET", "/api/v1/history?type=iban&value=x");
    expect(unknown.json).to.deep.equal({ message: "bad request: invalid payment method: unknown payment method type: iban" });
    const bad = await d.api("GET", "/api/v1/history?type=bitcoin&value=nope");
    expect(bad.status).to.equal(400);
  });

  it("merge-patches metadata, bumps updated_at, announces movement-updated, and drops empty metadata", async () => {
    const ticket = (await d.api("GET", "/api/v1/notifications/ws/ticket")).json as string;
    const ws = new WebSocket(`ws://127.0.0.1:${d.port}/api/v1/notifications/ws?ticket=${ticket}`);
    const frames: { type: string; movement: Movement }[] = [];
    ws.on("message", (data) => frames.push(JSON.parse(String(data))));
    await new Promise((r) => ws.on("open", r));

    const before = ((await d.api("GET", "/api/v1/history")).json as Movement[]).find((m) => m.id === 2)!;
    await new Promise((r) => setTimeout(r, 5));
    let r = await d.api("POST", "/api/v1/history/2/metadata", { body: { note: "for alice", tags: { a: 1, b: 2 } } });
    expect(r.status).to.equal(200);
    expect(r.text).to.equal("");
    r = await d.api("POST", "/api/v1/history/2/metadata", { body: { tags: { a: null } }, headers: { "content-type": "application/merge-patch+json" } });
    expect(r.status).to.equal(200);
    let m = ((await d.api("GET", "/api/v1/history")).json as Movement[]).find((x) => x.id === 2)!;
    expect(m.metadata).to.deep.equal({ note: "for alice", tags: { b: 2 } });
    expect(Date.parse(m.time.updated_at)).to.be.greaterThan(Date.parse(before.time.updated_at));
    await d.api("POST", "/api/v1/history/2/metadata", { body: ["not", "an", "object"] });
    m = ((await d.api("GET", "/api/v1/history")).json as Movement[]).find((x) => x.id === 2)!;
    expect(m).to.not.have.property("metadata");

    const end = Date.now() + 3000;
    while (frames.length < 3 && Date.now() < end) await new Promise((res) => setTimeout(res, 20));
    expect(frames.map((f) => [f.type, f.movement.id])).to.deep.equal([["movement-updated", 2], ["movement-updated", 2], ["movement-updated", 2]]);
    ws.close();
  });

  it("answers 500 for an unknown movement id and a plain 400 for a non-u32 id", async () => {
    const r = await d.api("POST", "/api/v1/history/999/metadata", { body: {} });
    expect(r.status).to.equal(500);
    expect(r.json).to.deep.equal({ message: "Failed to update movement metadata: movement 999 not found" });
    const bad = await d.api("POST", "/api/v1/history/abc/metadata", { body: {} });
    expect(bad.status).to.equal(400);
    expect(bad.headers.get("content-type")).to.match(/^text\/plain/);
  });
});
