import { expect } from "chai";
import { cleanup, startDaemon, tempDatadir, type ApiResponse, type Daemon } from "../src/daemon-process.js";
import { CAROL_MNEMONIC, boardToDaemon, createBody, ok, startArkDevnet, type DevnetWithArk, type Movement, type VtxoInfo } from "./ark-harness.js";

const CONFIG = {
  plugins: ["@tender/plugin-wallet", "@tender/plugin-notifications", "@tender/plugin-history", "@tender/plugin-chain", "@tender/plugin-ark", "@tender/e2e/example-plugin"],
  pluginConfig: { notifications: { waitTimeoutMs: 300 } },
};

/** Follows `Tender-Next-Cursor` from the first page of `path` (with `limit`, after `from`) to the last; returns every page. */
async function allPages<T>(d: Daemon, path: string, limit: number, from?: string): Promise<{ pages: T[][]; responses: ApiResponse[] }> {
  const pages: T[][] = [];
  const responses: ApiResponse[] = [];
  const sep = path.includes("?") ? "&" : "?";
  let url = `${path}${sep}limit=${limit}${from ? `&cursor=${encodeURIComponent(from)}` : ""}`;
  for (let i = 0; i < 100; i++) {
    const r = await d.api("GET", url);
    expect(r.status, r.text).to.equal(200);
    pages.push(r.json as T[]);
    responses.push(r);
    const next = r.headers.get("tender-next-cursor");
    if (!next) return { pages, responses };
    expect(r.headers.get("link")).to.match(/^<\/api\/v1\/[^>]+cursor=[^>]+>; rel="next"$/);
    url = `${path}${sep}limit=${limit}&cursor=${encodeURIComponent(next)}`;
  }
  throw new Error("no last page");
}

describe("cursor pagination of GET /history and GET /wallet/vtxos", function () {
  this.timeout(240_000);
  let devnet: DevnetWithArk;
  let d: Daemon;
  const datadir = tempDatadir("tenderd-pages-");

  const addMovement = (amount: number) =>
    ok<Movement>(d, "POST", "/api/v1/example/movements", { kind: "receive", amount_sat: amount, method: { type: "custom", value: `order-${amount}` } });

  before(async () => {
    devnet = await startArkDevnet("pagination-e2e");
    d = await startDaemon({ datadir, config: CONFIG });
    await ok(d, "POST", "/api/v1/wallet/create", createBody(devnet, CAROL_MNEMONIC));
    for (let i = 1; i <= 7; i++) await addMovement(1_000 * i);
    const vtxos: string[] = [];
    for (const amount of [50_000n, 60_000n, 70_000n]) vtxos.push(await boardToDaemon(d, devnet, CAROL_MNEMONIC, amount));
    await ok(d, "POST", "/api/v1/wallet/import-vtxo", { vtxos });
  });
  after(async () => {
    await d?.stop();
    cleanup(datadir);
    await devnet?.stop();
  });

  it("without limit or cursor both answer barkd's whole list and no page headers", async () => {
    for (const path of ["/api/v1/history", "/api/v1/wallet/vtxos"]) {
      const r = await d.api("GET", path);
      expect(r.status).to.equal(200);
      expect(r.headers.get("tender-next-cursor"), path).to.equal(null);
      expect(r.headers.get("link"), path).to.equal(null);
    }
    expect((await ok<Movement[]>(d, "GET", "/api/v1/history")).length).to.be.greaterThanOrEqual(7);
    expect((await ok<VtxoInfo[]>(d, "GET", "/api/v1/wallet/vtxos")).length).to.equal(3);
  });

  it("pages of /history follow the cursor to the last page (no cursor there) and add up to the whole list, newest first", async () => {
    const whole = await ok<Movement[]>(d, "GET", "/api/v1/history");
    const { pages } = await allPages<Movement>(d, "/api/v1/history", 3);
    expect(pages.map((p) => p.length)).to.deep.equal(whole.map((_, i) => i).filter((i) => i % 3 === 0).map((i) => Math.min(3, whole.length - i)));
    expect(pages.flat()).to.deep.equal(whole);
  });

  it("pages of /history filtered by payment method keep barkd's oldest-first order", async () => {
    await addMovement(3_000);
    const path = "/api/v1/history?type=custom&value=order-3000";
    const whole = await ok<Movement[]>(d, "GET", path);
    expect(whole.length).to.equal(2);
    const { pages } = await allPages<Movement>(d, path, 1);
    expect(pages.map((p) => p.map((m) => m.id))).to.deep.equal(whole.map((m) => [m.id]));
  });

  it("a movement added between two pages neither repeats nor skips one of the others", async () => {
    const before = await ok<Movement[]>(d, "GET", "/api/v1/history");
    const first = await d.api("GET", "/api/v1/history?limit=2");
    const cursor = first.headers.get("tender-next-cursor")!;
    const added = await addMovement(99_000);
    const rest = await allPages<Movement>(d, "/api/v1/history", 2, cursor);
    const seen = [...(first.json as Movement[]), ...rest.pages.flat()];
    expect(seen.map((m) => m.id)).to.deep.equal(before.map((m) => m.id));
    expect(seen.some((m) => m.id === added.id)).to.equal(false);
  });

  it("pages of /wallet/vtxos (and with all=true) add up to the whole list in its order", async () => {
    for (const path of ["/api/v1/wallet/vtxos", "/api/v1/wallet/vtxos?all=true"]) {
      const whole = await ok<VtxoInfo[]>(d, "GET", path);
      const { pages } = await allPages<VtxoInfo>(d, path, 2);
      expect(pages.map((p) => p.length), path).to.deep.equal([2, 1]);
      expect(pages.flat(), path).to.deep.equal(whole);
    }
  });

  it("a bad limit or cursor is a 400 with a JSON message, and changes nothing", async () => {
    const history = await ok<Movement[]>(d, "GET", "/api/v1/history");
    const vtxos = await ok<VtxoInfo[]>(d, "GET", "/api/v1/wallet/vtxos");
    const vtxoCursor = (await d.api("GET", "/api/v1/wallet/vtxos?limit=1")).headers.get("tender-next-cursor")!;
    const bad = [
      ["/api/v1/history?limit=0", /invalid limit/], ["/api/v1/history?limit=1001", /invalid limit/], ["/api/v1/history?limit=-1", /invalid limit/],
      ["/api/v1/history?limit=abc", /invalid limit/], ["/api/v1/history?limit=1.5", /invalid limit/], ["/api/v1/history?limit=", /invalid limit/],
      ["/api/v1/history?cursor=not-a-cursor", /invalid cursor/], ["/api/v1/history?cursor=%25%25", /invalid cursor/],
      [`/api/v1/history?cursor=${vtxoCursor}`, /invalid cursor/],
      ["/api/v1/wallet/vtxos?limit=0", /invalid limit/], ["/api/v1/wallet/vtxos?cursor=e30", /invalid cursor/],
    ] as const;
    for (const [path, message] of bad) {
      const r = await d.api("GET", path);
      expect(r.status, path).to.equal(400);
      expect((r.json as { message: string }).message, path).to.match(message);
    }
    expect(await ok<Movement[]>(d, "GET", "/api/v1/history")).to.deep.equal(history);
    expect(await ok<VtxoInfo[]>(d, "GET", "/api/v1/wallet/vtxos")).to.deep.equal(vtxos);
  });

  it("a cursor taken before a restart (and before a SIGKILL) still gives the next page", async () => {
    const whole = await ok<Movement[]>(d, "GET", "/api/v1/history");
    const first = await d.api("GET", "/api/v1/history?limit=4");
    const cursor = first.headers.get("tender-next-cursor")!;
    const vfirst = await d.api("GET", "/api/v1/wallet/vtxos?limit=1");
    const vcursor = vfirst.headers.get("tender-next-cursor")!;
    const vwhole = await ok<VtxoInfo[]>(d, "GET", "/api/v1/wallet/vtxos");

    await d.stop();
    d = await startDaemon({ datadir, config: CONFIG });
    expect((await d.api("GET", `/api/v1/history?limit=4&cursor=${cursor}`)).json).to.deep.equal(whole.slice(4, 8));

    await d.kill9();
    d = await startDaemon({ datadir, config: CONFIG });
    expect((await d.api("GET", `/api/v1/history?limit=4&cursor=${cursor}`)).json).to.deep.equal(whole.slice(4, 8));
    expect((await d.api("GET", `/api/v1/wallet/vtxos?limit=5&cursor=${vcursor}`)).json).to.deep.equal(vwhole.slice(1));
  });

  it("the served OpenAPI document lists limit and cursor and the next-page headers", async () => {
    const doc = (await d.api("GET", "/api-docs/openapi.json", { token: null })).json as {
      paths: Record<string, Record<string, { parameters?: { name: string; in: string }[]; responses: Record<string, { headers?: Record<string, unknown> }> }>>;
    };
    for (const path of ["/api/v1/history", "/api/v1/wallet/vtxos"]) {
      const op = doc.paths[path]!.get!;
      expect(op.parameters!.filter((p) => p.in === "query").map((p) => p.name), path).to.include.members(["limit", "cursor"]);
      expect(Object.keys(op.responses["200"]!.headers ?? {}), path).to.include.members(["Tender-Next-Cursor", "Link"]);
    }
  });
});
