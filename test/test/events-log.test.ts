import { expect } from "chai";
import { regtestWallet } from "../src/shared-devnet.js";
import { cleanup, startDaemon, type Daemon } from "../src/daemon-process.js";
import { sleep, until as poll, type Probe } from "../src/api-helpers.js";
import { openNotificationSocket, type NotificationSocket } from "../src/notification-socket.js";
import { checkAgainstBarkdSchema } from "../src/barkd-schemas.js";

/** The plugins of these tests: the event log next to the notifications, history and the example plugin (which records real movements). */
export const EVENTS_CONFIG = {
  plugins: ["@tender/plugin-wallet", "@tender/plugin-notifications", "@tender/plugin-history", "@tender/plugin-events", "@tender/e2e/example-plugin"],
  pluginConfig: { notifications: { waitTimeoutMs: 1500 }, events: { sequenceIntervalMs: 200 } },
};

interface LoggedEvent { cursor: string; type: string; time: string; payload: { type: string; movement: { id: number; metadata?: Record<string, unknown> } } }
interface EventPage { events: LoggedEvent[]; next_cursor: string; has_more: boolean }
interface WaitResponse { notifications: { type: string; movement: { id: number } }[]; last_pushed_at: string | null; last_cursor?: string }

/** Polls every 50 ms (the events are sequenced every 200 ms). */
const until = <T>(what: string, probe: Probe<T>, ms = 10_000) => poll(what, probe, ms, 50);

async function addMovement(d: Daemon, amount = 1000): Promise<number> {
  const r = await d.api("POST", "/api/v1/example/movements", {
    body: { kind: "receive", amount_sat: amount, method: { type: "custom", value: "events-test" } },
  });
  expect(r.status, r.text).to.equal(200);
  return (r.json as { id: number }).id;
}

async function patchMovement(d: Daemon, id: number, note: string): Promise<void> {
  const r = await d.api("POST", `/api/v1/history/${id}/metadata`, { body: { note } });
  expect(r.status, r.text).to.equal(200);
}

async function events(d: Daemon, query = ""): Promise<EventPage> {
  const r = await d.api("GET", `/api/v1/events${query}`);
  expect(r.status, r.text).to.equal(200);
  return r.json as EventPage;
}

/** Waits until the log holds `n` events and returns them. */
const logged = (d: Daemon, n: number) =>
  until(`${n} logged events`, async () => { const p = await events(d, "?limit=1000"); return p.events.length >= n ? p.events : undefined; });

async function openWs(d: Daemon, after?: string): Promise<NotificationSocket> {
  const ticket = (await d.api("GET", "/api/v1/notifications/ws/ticket")).json as string;
  return openNotificationSocket(d, `ticket=${ticket}${after === undefined ? "" : `&after=${after}`}`);
}

describe("durable event log (tender extension), end to end", function () {
  this.timeout(120_000);
  let wallet: Record<string, unknown>;
  let d: Daemon;
  before(async () => {
    wallet = await regtestWallet();
    d = await startDaemon({ config: EVENTS_CONFIG });
    expect((await d.api("POST", "/api/v1/wallet/create", { body: wallet })).status).to.equal(200);
  });
  after(async () => { await d.stop(); cleanup(d.datadir); });
  const restart = async (how: "stop" | "kill9") => {
    await (how === "stop" ? d.stop() : d.kill9());
    d = await startDaemon({ datadir: d.datadir, config: EVENTS_CONFIG });
  };

  it("replays every movement change in cursor order, with barkd's notification as payload, and pages with limit", async () => {
    const a = await addMovement(d);
    const b = await addMovement(d, 2000);
    await patchMovement(d, a, "first");
    const all = await logged(d, 3);
    expect(all.map((e) => [e.cursor, e.type, e.payload.movement.id])).to.deep.equal([
      ["1", "movement-created", a], ["2", "movement-created", b], ["3", "movement-updated", a],
    ]);
    const history = (await d.api("GET", "/api/v1/history")).json as { id: number }[];
    expect(all[2]!.payload.movement).to.deep.equal(history.find((m) => m.id === a));
    for (const e of all) {
      expect(e.payload.type).to.equal(e.type);
      checkAgainstBarkdSchema("WalletNotification", e.payload);
      expect(Date.parse(e.time)).to.be.closeTo(Date.now(), 60_000);
    }
    const first = await events(d, "?limit=2");
    expect(first.events.map((e) => e.cursor)).to.deep.equal(["1", "2"]);
    expect(first).to.include({ has_more: true, next_cursor: "2" });
    const rest = await events(d, `?after=${first.next_cursor}&limit=2`);
    expect(rest.events.map((e) => e.cursor)).to.deep.equal(["3"]);
    expect(rest).to.include({ has_more: false, next_cursor: "3" });
    expect(await events(d, "?after=3")).to.deep.equal({ events: [], next_cursor: "3", has_more: false });
  });

  it("replays the same log after a restart and after a SIGKILL right after a movement was answered", async () => {
    const before = (await events(d, "?limit=1000")).events;
    await restart("stop");
    expect((await events(d, "?limit=1000")).events).to.deep.equal(before);
    const c = await addMovement(d, 3000);
    await restart("kill9");
    const after = await logged(d, before.length + 1);
    expect(after.slice(0, before.length)).to.deep.equal(before);
    expect(after[before.length]).to.deep.include({ cursor: String(before.length + 1), type: "movement-created" });
    expect(after[before.length]!.payload.movement.id).to.equal(c);
  });

  it("answers a malformed cursor or limit with a plain 400, caps limit at 1000, and requires the token", async () => {
    const zero = await events(d, "?limit=0");
    expect(zero).to.deep.equal({ events: [], next_cursor: "0", has_more: true });
    expect((await events(d, "?limit=5000")).events.length).to.be.greaterThan(0);
    expect(await events(d, `?after=${2n ** 64n - 1n}`)).to.deep.equal({ events: [], next_cursor: String(2n ** 63n - 1n), has_more: false });
    for (const q of ["?after=abc", "?after=-1", "?after=", "?limit=x", `?after=${2n ** 64n}`]) {
      const r = await d.api("GET", `/api/v1/events${q}`);
      expect(r.status, q).to.equal(400);
      expect(r.headers.get("content-type"), q).to.match(/^text\/plain/);
    }
    expect((await d.api("GET", "/api/v1/events", { token: null })).status).to.equal(401);
  });

  it("long-polls with `after`: answers what followed the cursor at once, otherwise waits for the next change, across a restart", async () => {
    const last = (await events(d, "?limit=1000")).next_cursor;
    const missed = await addMovement(d);
    await restart("stop");
    const r = (await d.api("GET", `/api/v1/notifications/wait?after=${last}`)).json as WaitResponse;
    expect(r.notifications.map((n) => [n.type, n.movement.id])).to.deep.equal([["movement-created", missed]]);
    expect(r.last_cursor).to.equal(String(BigInt(last) + 1n));
    const waiting = d.api("GET", `/api/v1/notifications/wait?after=${r.last_cursor}`);
    await sleep(200);
    await patchMovement(d, missed, "while waiting");
    const next = (await waiting).json as WaitResponse;
    expect(next.notifications.map((n) => [n.type, n.movement.id])).to.deep.equal([["movement-updated", missed]]);
    expect(next.last_cursor).to.equal(String(BigInt(last) + 2n));
    const timeout = (await d.api("GET", `/api/v1/notifications/wait?after=${next.last_cursor}`)).json as WaitResponse;
    expect(timeout).to.deep.equal({ notifications: [], last_pushed_at: null, last_cursor: next.last_cursor });
  });

  it("resumes a websocket from its last cursor across a restart: the missed events, then new ones live, none twice", async () => {
    const start = (await events(d, "?limit=1000")).next_cursor;
    const first = await openWs(d, start);
    const m1 = await addMovement(d);
    await until("the live event", () => (first.frames.length === 1 ? true : undefined));
    const seen = first.frames as LoggedEvent[];
    expect(seen[0]).to.deep.include({ cursor: String(BigInt(start) + 1n), type: "movement-created" });
    const lastSeen = seen[0]!.cursor;
    first.ws.close();
    await first.closed;
    const m2 = await addMovement(d);
    await patchMovement(d, m1, "missed");
    await restart("stop");
    const m3 = await addMovement(d);
    const resumed = await openWs(d, lastSeen);
    await until("the missed events", () => (resumed.frames.length === 3 ? true : undefined));
    const m4 = await addMovement(d);
    await until("the live event after the replay", () => (resumed.frames.length === 4 ? true : undefined));
    await sleep(300);
    const frames = resumed.frames as LoggedEvent[];
    expect(frames.map((f) => [f.type, f.payload.movement.id])).to.deep.equal([
      ["movement-created", m2], ["movement-updated", m1], ["movement-created", m3], ["movement-created", m4],
    ]);
    expect(frames.map((f) => f.cursor)).to.deep.equal([1n, 2n, 3n, 4n].map((i) => String(BigInt(lastSeen) + i)));
    resumed.ws.close();
    let err = "";
    await openWs(d, "abc").catch((e: Error) => { err = e.message; });
    expect(err).to.equal("status 400");
  });

  it("keeps barkd's behaviour for clients that send no cursor: notification frames from the connection on, barkd's long-poll", async () => {
    const plain = await openWs(d);
    const before = (await d.api("GET", "/api/v1/notifications/wait")).json as WaitResponse;
    expect(before).to.not.have.property("last_cursor");
    const id = await addMovement(d);
    await until("the notification frame", () => (plain.frames.length === 1 ? true : undefined));
    const frame = plain.frames[0] as { type: string; movement: { id: number } };
    checkAgainstBarkdSchema("WalletNotification", frame);
    expect([frame.type, frame.movement.id]).to.deep.equal(["movement-created", id]);
    expect(frame).to.not.have.property("cursor");
    const since = before.last_pushed_at ?? "2000-01-01T00:00:00Z";
    const after = (await d.api("GET", `/api/v1/notifications/wait?since=${since}`)).json as WaitResponse;
    expect(after.notifications.map((n) => n.movement.id)).to.include(id);
    expect(after).to.not.have.property("last_cursor");
    plain.ws.close();
  });
});

describe("event log retention (tender extension)", function () {
  this.timeout(60_000);
  it("prunes events older than the retention in the background, keeping the newest cursor", async () => {
    const config = { ...EVENTS_CONFIG, pluginConfig: { ...EVENTS_CONFIG.pluginConfig, events: { retentionDays: 1 / 86_400, pruneIntervalMs: 200, sequenceIntervalMs: 200 } } };
    const d = await startDaemon({ config });
    try {
      expect((await d.api("POST", "/api/v1/wallet/create", { body: await regtestWallet() })).status).to.equal(200);
      await addMovement(d);
      await addMovement(d);
      await logged(d, 2);
      const left = await until("the pruning", async () => { const e = (await events(d)).events; return e.length === 1 ? e : undefined; });
      expect(left.map((e) => e.cursor)).to.deep.equal(["2"]);
      await addMovement(d);
      const after = await logged(d, 2);
      expect(after.map((e) => e.cursor)).to.deep.equal(["2", "3"]);
    } finally {
      await d.stop();
      cleanup(d.datadir);
    }
  });
});
