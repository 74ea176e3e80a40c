import { expect } from "chai";
import { createHash } from "node:crypto";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  ActionEngine, AuthToken, BadRequestError, IdempotencyLayer, Kernel, WalletNotificationRaised, definePlugin, silentLogger, z, type DatabaseLocation,
} from "../src/index.js";
import { recordIdOf, requestHashOf } from "../src/idempotency/idempotency-store.js";
import { onBothDatabases, startKernelOverHttp, stopKernelOverHttp, type SuiteLocation } from "./kernel-suite.js";

/** Test routes: a counter (each run is visible), a payment that starts an action and a movement, a slow request, a refusal. */
function routesPlugin(state: { runs: number; release?: () => void; nextMovement: number }) {
  return definePlugin({
    name: "idem-test",
    version: "1.0.0",
    register(ctx) {
      const engine = ctx.container.resolve(ActionEngine);
      engine.define<{ movementId: number; paymentHash: string }>({
        kind: "test.pay", firstStep: "pay",
        steps: { pay: async (s) => ({ done: true, state: s }) },
      });
      engine.define<{ movementId: number }>({
        kind: "test.hang", firstStep: "wait",
        steps: { wait: async () => ({ waitMs: 3_600_000 }) },
      });
      ctx.route({
        method: "post", path: "/api/v1/count", operationId: "count", body: z.object({ n: z.number() }),
        responses: { 200: { description: "counted" } },
        handler: ({ body }) => ({ runs: ++state.runs, n: body.n }),
      });
      ctx.route({
        method: "post", path: "/api/v1/pay", operationId: "pay", body: z.object({ amount_sat: z.number() }),
        responses: { 200: { description: "paid" } },
        handler: async () => {
          state.runs++;
          const movementId = state.nextMovement++;
          await engine.start("test.pay", { movementId, paymentHash: "ab".repeat(32) });
          ctx.events.emit(WalletNotificationRaised, { type: "movement-created", movement: { id: movementId } });
          return { message: "Payment sent successfully" };
        },
      });
      ctx.route({
        method: "post", path: "/api/v1/slow", operationId: "slow",
        responses: { 200: { description: "slow" } },
        handler: () => new Promise((resolve) => { state.release = () => resolve({ runs: ++state.runs }); }),
      });
      ctx.route({
        method: "post", path: "/api/v1/refuse", operationId: "refuse",
        responses: { 400: { description: "refused" } },
        handler: () => { state.runs++; throw new BadRequestError(`refused run ${state.runs}`); },
      });
      ctx.route({
        method: "get", path: "/api/v1/read", operationId: "read",
        responses: { 200: { description: "a read" } },
        handler: () => ({ runs: state.runs }),
      });
    },
  });
}

function idempotencySuite(name: string, location: SuiteLocation) {
describe(`idempotency keys on mutating requests (kernel layer, ${name})`, function () {
  const dir = mkdtempSync(join(tmpdir(), "tender-idem-"));
  let loc: DatabaseLocation;
  const token = AuthToken.generate();
  const other = AuthToken.generate();
  const state = { runs: 0, nextMovement: 41 } as { runs: number; release?: () => void; nextMovement: number };
  let kernel: Kernel;
  let base: string;

  const call = (method: string, path: string, opts: { key?: string; body?: unknown; tok?: AuthToken } = {}) =>
    fetch(`${base}${path}`, {
      method,
      headers: {
        Authorization: `Bearer ${(opts.tok ?? token).encode()}`,
        ...(opts.key !== undefined ? { "Idempotency-Key": opts.key } : {}),
        ...(opts.body !== undefined ? { "content-type": "application/json" } : {}),
      },
      ...(opts.body !== undefined ? { body: JSON.stringify(opts.body) } : {}),
    });

  before(async function () {
    ({ kernel, loc, base } = await startKernelOverHttp(this, location, dir, [routesPlugin(state)], token));
  });
  after(() => stopKernelOverHttp({ kernel, loc }, dir));

  it("runs the first request once and replays its status and body to a retry with the same key and body", async () => {
    const before = state.runs;
    const first = await call("POST", "/api/v1/count", { key: "k-replay", body: { n: 1 } });
    expect(first.status).to.equal(200);
    expect(first.headers.get("idempotent-replayed")).to.equal(null);
    const firstBody = await first.json();
    const again = await call("POST", "/api/v1/count", { key: "k-replay", body: { n: 1 } });
    expect(again.status).to.equal(200);
    expect(again.headers.get("idempotent-replayed")).to.equal("true");
    expect(again.headers.get("content-type")).to.match(/^application\/json/);
    expect(await again.json()).to.deep.equal(firstBody);
    expect(state.runs, "the handler ran once").to.equal(before + 1);
  });

  it("answers 422 with a JSON message to the same key with another body or path, running nothing", async () => {
    await call("POST", "/api/v1/count", { key: "k-misuse", body: { n: 1 } });
    const before = state.runs;
    const otherBody = await call("POST", "/api/v1/count", { key: "k-misuse", body: { n: 2 } });
    expect(otherBody.status).to.equal(422);
    expect(((await otherBody.json()) as { message: string }).message).to.match(/Idempotency-Key was already used for another request \(POST \/api\/v1\/count/);
    const otherPath = await call("POST", "/api/v1/pay", { key: "k-misuse", body: { amount_sat: 1 } });
    expect(otherPath.status).to.equal(422);
    expect(state.runs).to.equal(before);
  });

  it("answers 409 to a retry while the first request still runs, then replays the first answer", async () => {
    const slow = call("POST", "/api/v1/slow", { key: "k-slow" });
    for (let i = 0; i < 50 && !state.release; i++) await new Promise((r) => setTimeout(r, 20));
    const during = await call("POST", "/api/v1/slow", { key: "k-slow" });
    expect(during.status).to.equal(409);
    expect(((await during.json()) as { message: string }).message).to.match(/still running/);
    state.release!();
    const first = await slow;
    const firstBody = await first.json();
    const after = await call("POST", "/api/v1/slow", { key: "k-slow" });
    expect([after.status, await after.json(), after.headers.get("idempotent-replayed")]).to.deep.equal([200, firstBody, "true"]);
  });

  it("stores and replays an error answer too (the handler is not run again)", async () => {
    const first = await call("POST", "/api/v1/refuse", { key: "k-refuse" });
    const firstBody = await first.json();
    const before = state.runs;
    const again = await call("POST", "/api/v1/refuse", { key: "k-refuse" });
    expect([again.status, await again.json()]).to.deep.equal([400, firstBody]);
    expect(state.runs).to.equal(before);
  });

  it("keeps each credential's keys apart", async () => {
    await call("POST", "/api/v1/count", { key: "k-scope", body: { n: 1 } });
    const before = state.runs;
    const r = await call("POST", "/api/v1/count", { key: "k-scope", body: { n: 5 }, tok: other });
    // the other token is refused by the auth guard before the layer: keys never cross credentials
    expect(r.status).to.equal(401);
    expect(state.runs).to.equal(before);
    expect(recordIdOf("a", "k")).to.not.equal(recordIdOf("b", "k"));
  });

  it("refuses a key that is empty, too long, not visible ASCII or sent twice with a 400, running nothing", async () => {
    const before = state.runs;
    for (const key of ["", "x".repeat(256), "with space"]) {
      const r = await call("POST", "/api/v1/count", { key, body: { n: 1 } });
      expect(r.status, JSON.stringify(key)).to.equal(400);
      expect(((await r.json()) as { message: string }).message).to.match(/invalid Idempotency-Key/);
    }
    const { request } = await import("node:http");
    const status = await new Promise<number>((resolve, reject) => {
      const r = request(`${base}/api/v1/count`, { method: "POST", headers: [
        "Authorization", `Bearer ${token.encode()}`, "content-type", "application/json", "Idempotency-Key", "a", "Idempotency-Key", "b",
      ] as unknown as Record<string, string> }, (res) => { res.resume(); resolve(res.statusCode!); });
      r.on("error", reject);
      r.end(JSON.stringify({ n: 1 }));
    });
    expect(status).to.equal(400);
    expect(state.runs).to.equal(before);
  });

  it("ignores the header on a read", async () => {
    const r = await call("GET", "/api/v1/read", { key: "k-read" });
    expect([r.status, r.headers.get("idempotent-replayed")]).to.deep.equal([200, null]);
  });

  it("answers the movement a payment created in Tender-Movement-Id and movement_id, and replays both", async () => {
    const r = await call("POST", "/api/v1/pay", { key: "k-pay", body: { amount_sat: 5 } });
    const body = (await r.json()) as { message: string; movement_id: number };
    expect(body.message).to.equal("Payment sent successfully");
    expect(r.headers.get("tender-movement-id")).to.equal(String(body.movement_id));
    const again = await call("POST", "/api/v1/pay", { key: "k-pay", body: { amount_sat: 5 } });
    expect([await again.json(), again.headers.get("tender-movement-id")]).to.deep.equal([body, String(body.movement_id)]);
    const unkeyed = await call("POST", "/api/v1/pay", { body: { amount_sat: 5 } });
    expect(((await unkeyed.json()) as { movement_id: number }).movement_id).to.equal(body.movement_id + 1);
  });

  it("resolves a key left running by a crash from the action it started: 409 while it runs, its outcome once it ended, never a second run", async () => {
    const layer = kernel.idempotency;
    const use = (key: string, path: string, body: unknown) => ({
      id: recordIdOf(scopeOf(token), key), scope: scopeOf(token), key, method: "POST", path, operationId: "pay",
      requestHash: requestHash("POST", path, JSON.stringify(body)),
    });
    // as a crashed daemon leaves it: the key running, linked to its action
    const done = use("k-crash-done", "/api/v1/pay", { amount_sat: 9 });
    await layer.store.begin(done);
    await kernel.database.transaction(async () => {
      await kernel.actions.start("test.pay", { movementId: 77, paymentHash: "cd".repeat(32) }, "act-done");
      await layer.store.link(done.id, "action", "act-done");
    });
    const hang = use("k-crash-hang", "/api/v1/pay", { amount_sat: 9 });
    await layer.store.begin(hang);
    await kernel.actions.start("test.hang", { movementId: 78 }, "act-hang");
    await layer.store.link(hang.id, "action", "act-hang");
    const none = use("k-crash-none", "/api/v1/pay", { amount_sat: 9 });
    await layer.store.begin(none);

    const before = state.runs;
    const r1 = await call("POST", "/api/v1/pay", { key: "k-crash-done", body: { amount_sat: 9 } });
    expect([r1.status, await r1.json(), r1.headers.get("idempotent-replayed"), r1.headers.get("tender-movement-id")]).to.deep.equal([
      // the route's operationId is barkd's Lightning `pay`, whose answer says the payment was initiated
      200, { message: "Payment initiated successfully", payment_hash: "cd".repeat(32), movement_id: 77 }, "true", "77",
    ]);
    const r2 = await call("POST", "/api/v1/pay", { key: "k-crash-hang", body: { amount_sat: 9 } });
    expect(r2.status).to.equal(409);
    expect(((await r2.json()) as { message: string }).message).to.match(/still being resolved \(action act-hang\)/);
    const r3 = await call("POST", "/api/v1/pay", { key: "k-crash-none", body: { amount_sat: 9 } });
    expect(r3.status).to.equal(500);
    expect(((await r3.json()) as { message: string }).message).to.match(/what it did is unknown/);
    expect(state.runs, "no handler ran").to.equal(before);
  });

  it("keeps answered keys for the retention and prunes them after it, never a running one", async () => {
    let now = Date.now() + 3_600_000;
    const layer = new IdempotencyLayer(kernel.database, kernel.actions, kernel.events, silentLogger, { now: () => now, retentionMs: 24 * 3600_000 });
    const mk = (key: string) => ({ id: recordIdOf("s", key), scope: "s", key, method: "POST", path: "/x", operationId: "x", requestHash: "h" });
    await layer.store.complete(mk("old"), { status: 200, contentType: "application/json", body: Buffer.from("{}"), movementIds: [] });
    await layer.store.begin(mk("stuck"));
    await kernel.actions.start("test.hang", { movementId: 1 }, "act-stuck");
    await layer.store.link(mk("stuck").id, "action", "act-stuck");
    now += 23 * 3600_000;
    await layer.upkeep();
    expect(await layer.store.find(mk("old").id), "kept within 24 h").to.not.equal(null);
    now += 2 * 3600_000;
    const { pruned } = await layer.upkeep();
    expect(pruned).to.be.greaterThan(0);
    expect(await layer.store.find(mk("old").id), "pruned after 24 h").to.equal(null);
    expect((await layer.store.find(mk("stuck").id))?.state, "a running key stays").to.equal("running");
  });
});
}

onBothDatabases("idem", idempotencySuite);

function scopeOf(t: AuthToken): string {
  return createHash("sha256").update("idempotency-scope\0").update(`Bearer ${t.encode()}`, "utf8").digest("hex");
}
function requestHash(method: string, path: string, body: string): string {
  return requestHashOf(method, path, Buffer.from(body, "utf8"));
}
