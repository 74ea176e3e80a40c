import { expect } from "chai";
import {
  EventBus, Metrics, NoWalletError, Readiness, WalletLoaded, WalletLockedError, WalletReady, WalletScope, WalletSession, WalletUnloaded,
  createLogger, defineWalletService,
} from "../src/index.js";

const quiet = createLogger({ terminalLevel: "off" });
const Keys = defineWalletService<{ n: number }>("test.keys");
const wallet = { fingerprint: "00000000", network: "regtest" };

describe("a wallet whose encrypted seed is locked", () => {
  const setup = () => {
    const events = new EventBus(quiet);
    const scope = new WalletScope(quiet);
    const session = new WalletSession(events, scope);
    const log: string[] = [];
    let made = 0;
    scope.register("keys", Keys, { create: () => { log.push("create"); return { n: ++made }; }, dispose: () => { log.push("dispose"); } });
    for (const [name, ev] of [["loaded", WalletLoaded], ["ready", WalletReady], ["unloaded", WalletUnloaded]] as const) events.on(ev, () => { log.push(name); });
    return { events, scope, session, log, keys: scope.handle(Keys) };
  };

  it("is loaded but locked: no wallet service is created, none of the load events is raised, and a service asked for answers 423", async () => {
    const { session, log, keys, events } = setup();
    session.loadLocked(wallet);
    await events.drain();
    expect(session.isLoaded).to.equal(true);
    expect(session.isLocked).to.equal(true);
    expect(keys.current).to.equal(undefined);
    const err = await keys.get().catch((e: unknown) => e);
    expect(err).to.be.instanceOf(WalletLockedError);
    expect((err as WalletLockedError).status).to.equal(423);
    expect(log).to.deep.equal([]);
  });

  it("unlocking creates the services and raises loaded then ready; locking raises unloaded and disposes of them; unloading a locked wallet raises nothing", async () => {
    const { session, log, keys, events } = setup();
    session.loadLocked(wallet);
    await session.unlock();
    await events.drain();
    expect(session.isLocked).to.equal(false);
    expect((await keys.get()).n).to.equal(1);
    expect(log).to.deep.equal(["create", "loaded", "ready"]);
    await session.lock();
    expect(session.isLocked).to.equal(true);
    expect(log.slice(3)).to.deep.equal(["unloaded", "dispose"]);
    expect(await keys.get().catch((e: unknown) => e)).to.be.instanceOf(WalletLockedError);
    await session.unload();
    await events.drain();
    expect(log).to.have.length(5);
    expect(session.isLoaded).to.equal(false);
    expect(session.isLocked).to.equal(false);
    expect(await keys.get().catch((e: unknown) => e)).to.be.instanceOf(NoWalletError);
  });
});

describe("readiness checks and metrics", () => {
  it("is ready only when every check passes; a throwing check fails with a generic detail, not its error text", async () => {
    const r = new Readiness(quiet);
    r.add("one", () => ({ ok: true }));
    expect(await r.report()).to.deep.equal({ ready: true, checks: { one: { ok: true } } });
    r.add("two", () => { throw new Error("connect ECONNREFUSED 10.0.0.7:3535"); });
    expect(await r.report()).to.deep.equal({ ready: false, checks: { one: { ok: true }, two: { ok: false, detail: "check failed" } } });
    expect(() => r.add("one", () => ({ ok: true }))).to.throw("already registered");
  });

  it("labels requests by route template and reads gauges at scrape time", async () => {
    const m = new Metrics(quiet);
    m.observeRequest({ method: "GET", route: "/api/v1/wallet/vtxos/{id}", status: 200, seconds: 0.01 });
    m.observeRequest({ method: "GET", route: undefined, status: 404, seconds: 0.001 });
    let value = 3;
    m.gauge({ name: "tender_test_value", help: "a test gauge", labelNames: ["state"], collect: () => [{ labels: { state: "a" }, value }] });
    m.counter("tender_test_total", "a test counter", ["outcome"]).inc({ outcome: "ok" });
    let text = (await m.exposition()).text;
    expect(text).to.contain('tender_http_requests_total{method="GET",route="/api/v1/wallet/vtxos/{id}",status="200"} 1');
    expect(text).to.contain('tender_http_requests_total{method="GET",route="unmatched",status="404"} 1');
    expect(text).to.contain('tender_test_value{state="a"} 3');
    expect(text).to.contain('tender_test_total{outcome="ok"} 1');
    // the process's standard metrics: memory, CPU, heap and the event loop's delay
    for (const name of ["process_resident_memory_bytes", "process_cpu_seconds_total", "nodejs_heap_size_used_bytes", "nodejs_eventloop_lag_p99_seconds"]) {
      expect(text, name).to.match(new RegExp(`^${name} \\d`, "m"));
    }
    value = 5;
    text = (await m.exposition()).text;
    expect(text).to.contain('tender_test_value{state="a"} 5');
  });
});

describe("locking while a mutating request runs", () => {
  it("waits for the request to end before the wallet's services are disposed of", async () => {
    const events = new EventBus(quiet);
    const scope = new WalletScope(quiet);
    const session = new WalletSession(events, scope);
    const log: string[] = [];
    scope.register("keys", Keys, { create: () => ({ n: 1 }), dispose: () => { log.push("dispose"); } });
    session.loadLocked(wallet);
    await session.unlock();
    let finish!: () => void;
    const payment = session.track(async () => {
      const keys = await scope.handle(Keys).get();
      await new Promise<void>((r) => { finish = r; });
      log.push(`paid with ${keys.n}`);
    });
    await new Promise((r) => setImmediate(r));
    const locking = session.lock();
    await new Promise((r) => setTimeout(r, 20));
    expect(session.isLocked).to.equal(true);
    expect(log).to.deep.equal([]);
    finish();
    await Promise.all([payment, locking]);
    expect(log).to.deep.equal(["paid with 1", "dispose"]);
  });
});
