import { expect } from "chai";
import { regtestWallet } from "../src/shared-devnet.js";
import { cleanup, startDaemon, type Daemon } from "../src/daemon-process.js";
import { checkAgainstBarkdSchema } from "../src/barkd-schemas.js";
import { openNotificationSocket, type NotificationSocket } from "../src/notification-socket.js";

let REGTEST: Record<string, unknown>;
before(async () => { REGTEST = await regtestWallet(); });
const WITH_EXAMPLE = {
  plugins: ["@tender/plugin-wallet", "@tender/plugin-notifications", "@tender/plugin-history", "@tender/e2e/example-plugin"],
  pluginConfig: { notifications: { waitTimeoutMs: 400 } },
};

interface WaitResponse { notifications: { type: string; movement?: { id: number } }[]; last_pushed_at: string | null }

const openWs = (d: Daemon, ticket: string): Promise<NotificationSocket> => openNotificationSocket(d, `ticket=${ticket}`);

const until = async (cond: () => boolean, ms = 5000) => {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error("condition not reached");
    await new Promise((r) => setTimeout(r, 20));
  }
};

describe("notifications (websocket ticket and long-poll), end to end through a plugin's events", function () {
  this.timeout(60_000);
  let d: Daemon;
  before(async () => {
    d = await startDaemon({ config: WITH_EXAMPLE });
    expect((await d.api("POST", "/api/v1/wallet/create", { body: REGTEST })).status).to.equal(200);
  });
  after(async () => { await d.stop(); cleanup(d.datadir); });

  const notify = async (count: number, kind: "created" | "updated" = "created") =>
    (await d.api("POST", "/api/v1/example/notify", { body: { count, kind } })).json as number[];

  it("issues single-use 64-hex tickets as a JSON string, behind the token", async () => {
    const r = await d.api("GET", "/api/v1/notifications/ws/ticket");
    expect(r.status).to.equal(200);
    expect(r.headers.get("content-type")).to.match(/application\/json/);
    expect(r.json).to.be.a("string").and.match(/^[0-9a-f]{64}$/);
    const unauth = await d.api("GET", "/api/v1/notifications/ws/ticket", { token: null });
    expect(unauth.status).to.equal(401);
    expect(unauth.json).to.deep.equal({ message: "missing auth token" });
  });

  it("pushes movement notifications as text frames to a ticketed websocket, in order", async () => {
    const ticket = (await d.api("GET", "/api/v1/notifications/ws/ticket")).json as string;
    const { ws, frames } = await openWs(d, ticket);
    const ids = await notify(3);
    const upd = await notify(1, "updated");
    await until(() => frames.length === 4);
    const seen = frames as { type: string; movement: { id: number } }[];
    expect(seen.map((f) => [f.type, f.movement.id])).to.deep.equal([
      ...ids.map((id) => ["movement-created", id]),
      ["movement-updated", upd[0]],
    ]);
    for (const f of seen) checkAgainstBarkdSchema("WalletNotification", f);
    ws.close();
  });

  it("refuses a used or unknown ticket with 401 and a missing ticket with a plain 400", async () => {
    const ticket = (await d.api("GET", "/api/v1/notifications/ws/ticket")).json as string;
    const first = await openWs(d, ticket);
    first.ws.close();
    let err = "";
    await openWs(d, ticket).catch((e: Error) => { err = e.message; });
    expect(err).to.equal("status 401");
    await openWs(d, "00".repeat(32)).catch((e: Error) => { err = e.message; });
    expect(err).to.equal("status 401");
    const plain = await fetch(`${d.base}/api/v1/notifications/ws`);
    expect(plain.status).to.equal(400);
    expect(plain.headers.get("content-type")).to.match(/^text\/plain/);
  });

  it("long-polls: returns the buffer at once, then only notifications strictly later than `since`", async () => {
    const all = (await d.api("GET", "/api/v1/notifications/wait")).json as WaitResponse;
    expect(all.notifications.length).to.be.greaterThan(0);
    expect(all.last_pushed_at).to.match(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/);
    const since = all.last_pushed_at!;

    const waiting = d.api("GET", `/api/v1/notifications/wait?since=${since}`);
    await new Promise((r) => setTimeout(r, 100));
    const ids = await notify(2);
    const got = (await waiting).json as WaitResponse;
    expect(got.notifications.map((n) => n.movement!.id)).to.deep.equal(ids.slice(0, got.notifications.length));
    expect(got.notifications.length).to.be.greaterThan(0);

    const rest = (await d.api("GET", `/api/v1/notifications/wait?since=${since}`)).json as WaitResponse;
    expect(rest.notifications.map((n) => n.movement!.id)).to.deep.equal(ids);
    const none = (await d.api("GET", `/api/v1/notifications/wait?since=${rest.last_pushed_at}`)).json as WaitResponse;
    expect(none).to.deep.equal({ notifications: [], last_pushed_at: rest.last_pushed_at });
  });

  it("echoes `since` in UTC on timeout and rejects a malformed `since` with a plain 400 before auth", async () => {
    const r = (await d.api("GET", "/api/v1/notifications/wait?since=2099-01-01T02:00:00%2B02:00")).json as WaitResponse;
    expect(r).to.deep.equal({ notifications: [], last_pushed_at: "2099-01-01T00:00:00.000000Z" });
    const bad = await d.api("GET", "/api/v1/notifications/wait?since=yesterday", { token: null });
    expect(bad.status).to.equal(400);
    expect(bad.headers.get("content-type")).to.match(/^text\/plain/);
    const unauth = await d.api("GET", "/api/v1/notifications/wait", { token: null });
    expect(unauth.status).to.equal(401);
  });

  it("rejects an impossible `since` date with a plain 400 instead of rolling it over", async () => {
    for (const since of ["2026-02-30T00:00:00Z", "2026-00-10T00:00:00Z", "2026-01-01T24:00:00Z"]) {
      const r = await d.api("GET", `/api/v1/notifications/wait?since=${since}`);
      expect(r.status, since).to.equal(400);
      expect(r.headers.get("content-type"), since).to.match(/^text\/plain/);
    }
  });

  it("sends channel-lagging to a subscriber that falls behind", async () => {
    const ticket = (await d.api("GET", "/api/v1/notifications/ws/ticket")).json as string;
    const { ws, frames } = await openWs(d, ticket);
    ws.pause(); // stop reading: the server's queue fills up
    await notify(1000);
    ws.resume();
    await until(() => frames.some((f) => (f as { type: string }).type === "channel-lagging"), 10_000);
    expect(frames.length).to.be.lessThan(1000);
    ws.close();
  });

  it("runs the example plugin's task and stores its entity through its own migration", async () => {
    const t1 = ((await d.api("GET", "/api/v1/example/ticks")).json as { ticks: number }).ticks;
    await new Promise((r) => setTimeout(r, 200));
    const t2 = ((await d.api("GET", "/api/v1/example/ticks")).json as { ticks: number }).ticks;
    expect(t2).to.be.greaterThan(t1);
    await d.api("POST", "/api/v1/example/notes", { body: { text: "first" } });
    expect((await d.api("GET", "/api/v1/example/notes")).json).to.deep.equal([{ id: 1, text: "first" }]);
  });

  it("closes websockets and empties the buffer when the wallet is deleted", async () => {
    const ticket = (await d.api("GET", "/api/v1/notifications/ws/ticket")).json as string;
    const { closed } = await openWs(d, ticket);
    const fp = ((await d.api("GET", "/api/v1/wallet")).json as { fingerprint: string }).fingerprint;
    const waiting = d.api("GET", `/api/v1/notifications/wait?since=2099-01-01T00:00:00Z`);
    await new Promise((r) => setTimeout(r, 50));
    await d.api("DELETE", "/api/v1/wallet", { body: { dangerous: true, fingerprint: fp } });
    expect(await closed).to.equal(1000);
    const w = await waiting;
    expect(w.status).to.equal(422);
    expect(w.json).to.deep.equal({ message: "No wallet set" });
    // a websocket opened without a wallet is accepted and closed at once
    const t2 = (await d.api("GET", "/api/v1/notifications/ws/ticket")).json as string;
    const second = await openWs(d, t2);
    expect(await second.closed).to.equal(1000);
  });
});
