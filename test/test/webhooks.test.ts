import { expect } from "chai";
import { regtestWallet } from "../src/shared-devnet.js";
import { cleanup, startDaemon, type Daemon } from "../src/daemon-process.js";
import { sleep, until as poll, type Probe } from "../src/api-helpers.js";
import { WebhookReceiver, signatureVerifies } from "../src/webhook-receiver.js";

const RETRY_BASE_MS = 300;
const DISABLE_AFTER = 4;
const CONFIG = {
  plugins: ["@tender/plugin-wallet", "@tender/plugin-notifications", "@tender/plugin-history", "@tender/plugin-events", "@tender/e2e/example-plugin"],
  pluginConfig: {
    events: {
      deliveryPollMs: 100, sequenceIntervalMs: 200, retryBaseMs: RETRY_BASE_MS, retryMaxMs: 5_000, maxAttempts: 10,
      disableAfterFailures: DISABLE_AFTER, deliveryTimeoutMs: 2_000,
    },
  },
};

interface Webhook { id: string; url: string; event_types: string[]; description: string; enabled: boolean; consecutive_failures: number; disabled_reason: string | null; created_at: string; secret?: string }
interface Attempt { at: string; status_code: number | null; error: string | null; duration_ms: number; manual: boolean }
interface Delivery { id: number; webhook_id: string; event_cursor: string; event_type: string; status: string; attempts: number; next_attempt_at: string | null; delivered_at: string | null; attempt_log: Attempt[] }
interface LoggedEvent { cursor: string; type: string; time: string; payload: { type: string; movement: { id: number } } }

/** Polls every 50 ms (the events are sequenced every 200 ms). */
const until = <T>(what: string, probe: Probe<T>, ms = 15_000) => poll(what, probe, ms, 50);

describe("webhooks (tender extension), end to end with a local receiver", function () {
  this.timeout(120_000);
  let d: Daemon;
  let rx: WebhookReceiver;
  before(async () => {
    rx = await new WebhookReceiver().start();
    d = await startDaemon({ config: CONFIG });
    expect((await d.api("POST", "/api/v1/wallet/create", { body: await regtestWallet() })).status).to.equal(200);
  });
  after(async () => {
    await d.stop();
    cleanup(d.datadir);
    await rx.stop();
  });

  const addMovement = async () => {
    const r = await d.api("POST", "/api/v1/example/movements", { body: { kind: "receive", amount_sat: 1234, method: { type: "custom", value: "webhook-test" } } });
    expect(r.status, r.text).to.equal(200);
    return (r.json as { id: number }).id;
  };
  const createHook = async (body: Record<string, unknown>) => {
    const r = await d.api("POST", "/api/v1/webhooks", { body });
    expect(r.status, r.text).to.equal(200);
    return r.json as Webhook & { secret: string };
  };
  const getHook = async (id: string) => (await d.api("GET", `/api/v1/webhooks/${id}`)).json as Webhook;
  const deliveries = async (id: string) => (await d.api("GET", `/api/v1/webhooks/${id}/deliveries`)).json as Delivery[];
  const requestsTo = (path: string) => rx.requests.filter((r) => r.path === path);

  it("registers a webhook with its secret shown once, lists it without the secret, refuses non-http URLs, needs the token", async () => {
    const w = await createHook({ url: rx.url("/registered"), event_types: ["movement-updated"], description: "shop backend" });
    expect(w.secret).to.match(/^whsec_[0-9a-f]{64}$/);
    expect(w).to.include({ url: rx.url("/registered"), description: "shop backend", enabled: true, consecutive_failures: 0, disabled_reason: null });
    expect(w.event_types).to.deep.equal(["movement-updated"]);
    const listed = (await d.api("GET", "/api/v1/webhooks")).json as Webhook[];
    const mine = listed.find((x) => x.id === w.id)!;
    expect(mine).to.not.have.property("secret");
    expect(await getHook(w.id)).to.not.have.property("secret");
    expect(JSON.stringify(listed)).to.not.include(w.secret);
    for (const url of ["ftp://example.com/x", "not a url", "/relative"]) {
      const r = await d.api("POST", "/api/v1/webhooks", { body: { url } });
      expect(r.status, url).to.equal(400);
    }
    // a body that does not match the schema is refused as every JSON body is (barkd's 422)
    expect((await d.api("POST", "/api/v1/webhooks", { body: { url: rx.url(), event_types: ["nope"] } })).status).to.equal(422);
    for (const [m, p] of [["GET", "/api/v1/webhooks"], ["POST", "/api/v1/webhooks"], ["DELETE", `/api/v1/webhooks/${w.id}`], ["GET", `/api/v1/webhooks/${w.id}/deliveries`]] as const) {
      expect((await d.api(m, p, { token: null, ...(m === "POST" ? { body: { url: rx.url() } } : {}) })).status, `${m} ${p}`).to.equal(401);
    }
    const del = await d.api("DELETE", `/api/v1/webhooks/${w.id}`);
    expect(del.json).to.deep.equal({ deleted: true });
    expect((await d.api("GET", `/api/v1/webhooks/${w.id}`)).status).to.equal(404);
    expect((await d.api("DELETE", `/api/v1/webhooks/${w.id}`)).status).to.equal(404);
  });

  it("never keeps a new webhook's secret as a stored Idempotency-Key answer: a keyed retry registers another webhook, it is not a replay", async () => {
    const keyed = () => d.api("POST", "/api/v1/webhooks", { body: { url: rx.url("/keyed") }, headers: { "Idempotency-Key": "register-keyed-hook" } });
    const first = await keyed();
    const retry = await keyed();
    expect([first.status, retry.status]).to.deep.equal([200, 200]);
    expect(retry.headers.get("Idempotent-Replayed")).to.equal(null);
    const [a, b] = [first.json as Webhook & { secret: string }, retry.json as Webhook & { secret: string }];
    expect(b.id).to.not.equal(a.id);
    expect(b.secret).to.not.equal(a.secret);
    for (const w of [a, b]) expect((await d.api("DELETE", `/api/v1/webhooks/${w.id}`)).status).to.equal(200);
  });

  it("answers only the owner token: an API key, even an admin one, gets 403 on every webhook route; a read key replays the events", async () => {
    const key = await d.api("POST", "/api/v1/keys", { body: { name: "ops", scopes: ["read", "receive", "send", "admin"] } });
    expect(key.status, key.text).to.equal(200);
    const admin = (key.json as { secret: string }).secret;
    const w = await createHook({ url: rx.url("/owner-only") });
    const routes: [string, string, unknown?][] = [
      ["GET", "/api/v1/webhooks"], ["POST", "/api/v1/webhooks", { url: rx.url("/by-key") }], ["GET", `/api/v1/webhooks/${w.id}`],
      ["DELETE", `/api/v1/webhooks/${w.id}`], ["POST", `/api/v1/webhooks/${w.id}/enable`], ["GET", `/api/v1/webhooks/${w.id}/deliveries`],
      ["POST", `/api/v1/webhooks/${w.id}/deliveries/1/redeliver`],
    ];
    for (const [m, p, body] of routes) {
      const r = await d.api(m, p, { token: admin, ...(body ? { body } : {}) });
      expect(r.status, `${m} ${p}: ${r.text}`).to.equal(403);
      expect(JSON.stringify(r.json)).to.not.include(w.secret);
    }
    expect(((await d.api("GET", "/api/v1/webhooks")).json as Webhook[]).map((x) => x.url)).to.deep.equal([rx.url("/owner-only")]);
    const readKey = ((await d.api("POST", "/api/v1/keys", { body: { name: "dashboard", scopes: ["read"] } })).json as { secret: string }).secret;
    expect((await d.api("GET", "/api/v1/events", { token: readKey })).status).to.equal(200);
    await d.api("DELETE", `/api/v1/webhooks/${w.id}`);
  });

  it("delivers each event as the logged event's JSON, signed so that the receiver's check with the secret passes", async () => {
    const w = await createHook({ url: rx.url("/signed") });
    const id = await addMovement();
    const [req] = await until("the delivery", () => (requestsTo("/signed").length ? requestsTo("/signed") : undefined));
    expect(req!.headers["content-type"]).to.equal("application/json");
    expect(signatureVerifies(w.secret, req!.headers["tender-signature"] as string, req!.body)).to.equal(true);
    expect(signatureVerifies(w.secret, req!.headers["tender-signature"] as string, req!.body.replace("1234", "9999"))).to.equal(false);
    expect(signatureVerifies("whsec_" + "0".repeat(64), req!.headers["tender-signature"] as string, req!.body)).to.equal(false);
    const body = JSON.parse(req!.body) as LoggedEvent;
    expect([body.type, body.payload.movement.id]).to.deep.equal(["movement-created", id]);
    const logged = ((await d.api("GET", `/api/v1/events?after=${BigInt(body.cursor) - 1n}&limit=1`)).json as { events: LoggedEvent[] }).events[0];
    expect(body).to.deep.equal(logged);
    expect(req!.headers["tender-event-cursor"]).to.equal(body.cursor);
    expect(req!.headers["tender-webhook-id"]).to.equal(w.id);
    const [dl] = await until("the delivered status", async () => { const l = await deliveries(w.id); return l[0]?.status === "delivered" ? l : undefined; });
    expect(req!.headers["tender-delivery-id"]).to.equal(String(dl!.id));
    expect(dl).to.include({ event_cursor: body.cursor, event_type: "movement-created", attempts: 1, next_attempt_at: null });
    expect(dl!.attempt_log.map((a) => [a.status_code, a.manual])).to.deep.equal([[200, false]]);
    expect(d.stderr()).to.not.include(w.secret);
    await d.api("DELETE", `/api/v1/webhooks/${w.id}`);
  });

  it("retries after the receiver answered 500, waiting longer each time, until it accepts", async () => {
    const w = await createHook({ url: rx.url("/flaky") });
    rx.answers = [500, 500, 200];
    await addMovement();
    const [dl] = await until("the delivery after two failures", async () => { const l = await deliveries(w.id); return l[0]?.status === "delivered" ? l : undefined; });
    expect(dl!.attempt_log.map((a) => a.status_code)).to.deep.equal([500, 500, 200]);
    expect(dl!.attempt_log[0]!.error).to.equal("answered 500");
    const reqs = requestsTo("/flaky");
    expect(reqs.map((r) => r.answered)).to.deep.equal([500, 500, 200]);
    expect(new Set(reqs.map((r) => r.body)).size).to.equal(1);
    const gap1 = reqs[1]!.at - reqs[0]!.at;
    const gap2 = reqs[2]!.at - reqs[1]!.at;
    expect(gap1).to.be.at.least(RETRY_BASE_MS);
    expect(gap2).to.be.at.least(2 * RETRY_BASE_MS);
    expect((await getHook(w.id)).consecutive_failures).to.equal(0);
    await d.api("DELETE", `/api/v1/webhooks/${w.id}`);
  });

  it("disables a webhook after repeated failures and sends it nothing more; enabling it resumes the deliveries pending from before", async () => {
    const w = await createHook({ url: rx.url("/down") });
    rx.fallback = 500;
    try {
      await addMovement();
      await addMovement();
      const off = await until("the webhook disabled", async () => { const h = await getHook(w.id); return h.enabled ? undefined : h; });
      expect(off.consecutive_failures).to.equal(DISABLE_AFTER);
      expect(off.disabled_reason).to.equal(`disabled after ${DISABLE_AFTER} consecutive failed delivery attempts`);
      const sent = requestsTo("/down").length;
      expect(sent).to.equal(DISABLE_AFTER);
      await addMovement();
      await sleep(1500);
      expect(requestsTo("/down").length).to.equal(sent);
      // the two events from before are still pending; the one logged while disabled gets no delivery
      const pending = (await d.api("GET", `/api/v1/webhooks/${w.id}/deliveries?status=pending`)).json as Delivery[];
      expect(pending).to.have.length(2);
    } finally {
      rx.fallback = 200;
    }
    const on = await d.api("POST", `/api/v1/webhooks/${w.id}/enable`);
    expect(on.json).to.deep.include({ enabled: true, consecutive_failures: 0, disabled_reason: null });
    const done = await until("the resumed deliveries", async () => {
      const l = await deliveries(w.id);
      return l.length === 2 && l.every((x) => x.status === "delivered") ? l : undefined;
    });
    expect(done.map((x) => x.event_cursor)).to.have.members([...new Set(requestsTo("/down").map((r) => JSON.parse(r.body).cursor as string))]);
    await d.api("DELETE", `/api/v1/webhooks/${w.id}`);
  });

  it("redelivers a delivery on request: the same event again, freshly signed, recorded as a manual attempt", async () => {
    const w = await createHook({ url: rx.url("/again") });
    await addMovement();
    const [dl] = await until("the first delivery", async () => { const l = await deliveries(w.id); return l[0]?.status === "delivered" ? l : undefined; });
    const r = await d.api("POST", `/api/v1/webhooks/${w.id}/deliveries/${dl!.id}/redeliver`);
    expect(r.status, r.text).to.equal(200);
    const after = r.json as Delivery;
    expect(after).to.include({ id: dl!.id, status: "delivered", attempts: 2 });
    expect(after.attempt_log.map((a) => [a.status_code, a.manual])).to.deep.equal([[200, false], [200, true]]);
    const reqs = requestsTo("/again");
    expect(reqs).to.have.length(2);
    expect(reqs[1]!.body).to.equal(reqs[0]!.body);
    expect(reqs[1]!.headers["tender-delivery-id"]).to.equal(String(dl!.id));
    expect(signatureVerifies(w.secret, reqs[1]!.headers["tender-signature"] as string, reqs[1]!.body)).to.equal(true);
    expect((await d.api("POST", `/api/v1/webhooks/${w.id}/deliveries/999999/redeliver`)).status).to.equal(404);
    expect((await d.api("POST", `/api/v1/webhooks/wh_nope/deliveries/${dl!.id}/redeliver`)).status).to.equal(404);
    await d.api("DELETE", `/api/v1/webhooks/${w.id}`);
  });

  it("keeps pending deliveries across a daemon restart and delivers them once the receiver is back", async () => {
    const w = await createHook({ url: rx.url("/later") });
    rx.fallback = 503;
    let movement: number;
    try {
      movement = await addMovement();
      await until("a failed attempt", async () => ((await deliveries(w.id))[0]?.attempts ? true : undefined));
      await d.kill9();
    } finally {
      rx.fallback = 200;
    }
    d = await startDaemon({ datadir: d.datadir, config: CONFIG });
    const [dl] = await until("the delivery after the restart", async () => { const l = await deliveries(w.id); return l[0]?.status === "delivered" ? l : undefined; });
    expect(dl!.attempt_log.at(-1)!.status_code).to.equal(200);
    expect(dl!.attempt_log[0]!.status_code).to.equal(503);
    const ok = requestsTo("/later").filter((r) => r.answered === 200);
    expect(ok).to.have.length(1);
    expect((JSON.parse(ok[0]!.body) as LoggedEvent).payload.movement.id).to.equal(movement!);
    expect(signatureVerifies(w.secret, ok[0]!.headers["tender-signature"] as string, ok[0]!.body)).to.equal(true);
  });
});
