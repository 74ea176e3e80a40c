import { expect } from "chai";
import { Database, silentLogger } from "@tender/core";
import { DEFAULT_EVENTS_CONFIG, retryDelayMs, type EventsConfig } from "../src/config.js";
import { EventLog } from "../src/log/event-log.js";
import { EVENTS_ENTITIES, WebhookRecord } from "../src/persistence/records.js";
import { eventsMigration } from "../src/persistence/migrations.js";
import { DeliveryWorker, type PostFn } from "../src/webhooks/delivery-worker.js";
import { verifySignature } from "../src/webhooks/signature.js";
import { WebhookStore } from "../src/webhooks/webhook-store.js";

interface Sent { url: string; headers: Record<string, string>; body: string }

describe("webhook delivery worker", () => {
  let db: Database;
  let log: EventLog;
  let store: WebhookStore;
  let worker: DeliveryWorker;
  let clock: number;
  let answers: (number | Error)[];
  let sent: Sent[];
  const cfg: EventsConfig = { ...DEFAULT_EVENTS_CONFIG, retryBaseMs: 1000, retryMaxMs: 5000, maxAttempts: 4, disableAfterFailures: 6 };

  beforeEach(async () => {
    clock = 1_700_000_000_000;
    answers = [];
    sent = [];
    db = new Database({ entities: EVENTS_ENTITIES, migrations: [eventsMigration] }, silentLogger);
    await db.open({ dialect: "sqlite", path: ":memory:" });
    log = new EventLog(db, silentLogger, () => clock);
    store = new WebhookStore(db, cfg, silentLogger, () => clock);
    log.onSequenced(async (events) => { await store.enqueue(events); });
    const post: PostFn = async (url, init) => {
      sent.push({ url, headers: init.headers, body: init.body });
      const a = answers.shift() ?? 200;
      if (a instanceof Error) throw a;
      return a;
    };
    worker = new DeliveryWorker(store, log, cfg, silentLogger, post, () => clock);
  });
  afterEach(() => db.close());

  const logEvent = async (id: number) => {
    await db.transaction(() => log.journal({ type: "movement-created", movement: { id } }));
    await log.sequence();
  };
  const deliveries = async (hook: string) => store.deliveries(hook, 100);

  it("posts each event to each webhook wanting its type, signed with the webhook's secret", async () => {
    const all = await store.create("http://127.0.0.1:1/all", [], "");
    const updatesOnly = await store.create("http://127.0.0.1:1/upd", ["movement-updated"], "");
    await logEvent(1);
    await worker.kick();
    expect(sent.map((s) => s.url)).to.deep.equal(["http://127.0.0.1:1/all"]);
    const s = sent[0]!;
    expect(verifySignature(all.secret, s.headers["Tender-Signature"]!, s.body, Math.floor(clock / 1000))).to.equal(true);
    expect(JSON.parse(s.body)).to.deep.include({ cursor: "1", type: "movement-created", payload: { type: "movement-created", movement: { id: 1 } } });
    expect(s.headers["Tender-Event-Cursor"]).to.equal("1");
    expect(s.headers["Tender-Webhook-Id"]).to.equal(all.id);
    const [d] = await deliveries(all.id);
    expect(d).to.include({ status: "delivered", attempts: 1 });
    expect(await deliveries(updatesOnly.id)).to.have.length(0);
  });

  it("retries a failed delivery after an exponential back-off and marks it failed after the last attempt", async () => {
    const w = await store.create("http://127.0.0.1:1/x", [], "");
    await logEvent(1);
    answers = [500, new Error("connect ECONNREFUSED"), 503, 500];
    const waits: number[] = [];
    for (let i = 0; i < cfg.maxAttempts; i++) {
      await worker.kick();
      const [d] = await deliveries(w.id);
      if (d!.nextAttemptAt != null) waits.push(Number(d!.nextAttemptAt) - clock);
      await worker.kick(); // not due yet: nothing is sent
      expect(sent).to.have.length(i + 1);
      clock += 10_000;
    }
    expect(waits).to.deep.equal([1, 2, 3].map((n) => retryDelayMs(cfg, n)));
    expect(waits).to.deep.equal([1000, 2000, 4000]);
    const [d] = await deliveries(w.id);
    expect(d).to.include({ status: "failed", attempts: 4 });
    expect(JSON.parse(d!.attemptLog).map((a: { status_code: number | null; error: string }) => a.status_code ?? a.error))
      .to.deep.equal([500, "connect ECONNREFUSED", 503, 500]);
  });

  it("disables a webhook after the configured number of consecutive failed attempts; a success resets the count", async () => {
    const w = await store.create("http://127.0.0.1:1/x", [], "");
    await logEvent(1);
    await logEvent(2);
    answers = [500, 200];
    await worker.kick();
    expect((await store.get(w.id))!.consecutiveFailures).to.equal(0);
    answers = Array(10).fill(500);
    for (let i = 0; i < 10; i++) {
      await logEvent(10 + i);
      await worker.kick();
      clock += 60_000;
    }
    const after = (await store.get(w.id))!;
    expect(after.enabled).to.equal(false);
    expect(after.consecutiveFailures).to.equal(cfg.disableAfterFailures);
    const count = sent.length;
    await logEvent(99);
    await worker.kick();
    expect(sent.length).to.equal(count);
    expect(await store.deliveries(w.id, 100, "pending")).to.not.have.length(0);
  });

  it("redelivers on request even when the webhook is disabled, recording a manual attempt", async () => {
    const w = await store.create("http://127.0.0.1:1/x", [], "");
    await logEvent(1);
    await worker.kick();
    const [d] = await deliveries(w.id);
    await db.em().nativeUpdate(WebhookRecord, { id: w.id }, { enabled: false });
    expect((await store.get(w.id))!.enabled).to.equal(false);
    const again = await worker.attempt(d!, true);
    expect(again).to.include({ status: "delivered", attempts: 2 });
    expect(JSON.parse(again!.attemptLog).map((a: { manual: boolean }) => a.manual)).to.deep.equal([false, true]);
    expect(sent).to.have.length(2);
    expect(sent[1]!.body).to.equal(sent[0]!.body);
  });
});
