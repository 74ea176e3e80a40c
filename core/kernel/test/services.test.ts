import { expect } from "chai";
import {
  AsyncLock, EventBus, Kernel, NoWalletError, PluginGraphError, WalletScope, WalletSession, createLogger, defineService, defineWalletService,
  hostService, orderPlugins, type DaemonConfig, type HostService, type TenderPlugin,
} from "../src/index.js";

const quiet = createLogger({ terminalLevel: "off" });
const Greeter = defineService<{ greet(): string }>("test.greeter");
const Counter = defineWalletService<{ n: number }>("test.counter");
const Doubled = defineWalletService<{ n: number }>("test.doubled");
const plugin = (name: string, more: Partial<TenderPlugin> = {}): TenderPlugin => ({ name, version: "1.0.0", register() {}, ...more });

describe("typed services", () => {
  it("loads a consumer after the plugin providing what it consumes", () => {
    const order = orderPlugins([plugin("user", { consumes: [Greeter] }), plugin("other"), plugin("greeter", { provides: [Greeter] })]);
    expect(order.map((p) => p.name)).to.deep.equal(["greeter", "user", "other"]);
  });

  it("loads after an optional provider when it is enabled, and without it otherwise", () => {
    expect(orderPlugins([plugin("user", { optional: [Greeter] }), plugin("greeter", { provides: [Greeter] })]).map((p) => p.name))
      .to.deep.equal(["greeter", "user"]);
    expect(orderPlugins([plugin("user", { optional: [Greeter] })]).map((p) => p.name)).to.deep.equal(["user"]);
  });

  it("refuses two plugins providing the same service, naming both", () => {
    expect(() => orderPlugins([plugin("a", { provides: [Greeter] }), plugin("b", { provides: [Greeter] })]))
      .to.throw(PluginGraphError, "service test.greeter is provided by both plugin a and plugin b");
  });

  it("refuses a consumed service no enabled plugin provides, naming plugin and service", () => {
    expect(() => orderPlugins([plugin("user", { consumes: [Greeter] })]))
      .to.throw(PluginGraphError, "plugin user needs service test.greeter, which no enabled plugin provides");
  });
});

describe("wallet scope", () => {
  const setup = () => {
    const scope = new WalletScope(quiet);
    const session = new WalletSession(new EventBus(quiet), scope);
    const log: string[] = [];
    let made = 0;
    scope.register("counter", Counter, {
      create: () => { log.push("create counter"); return { n: ++made }; },
      dispose: (c) => { log.push(`dispose counter ${c.n}`); },
    });
    scope.register("doubled", Doubled, {
      create: async (ctx) => { log.push("create doubled"); return { n: (await ctx.get(Counter)).n * 2 }; },
      dispose: () => { log.push("dispose doubled"); },
    });
    return { scope, session, log };
  };
  const wallet = { fingerprint: "00000000", network: "regtest" };

  it("creates the services on wallet load and disposes of them, last first, on unload", async () => {
    const { scope, session, log } = setup();
    const doubled = scope.handle(Doubled);
    expect(doubled.current).to.equal(undefined);
    await session.load(wallet);
    expect((await doubled.get()).n).to.equal(2);
    expect(doubled.current?.n).to.equal(2);
    await session.unload();
    expect(doubled.current).to.equal(undefined);
    expect(log).to.deep.equal(["create counter", "create doubled", "dispose doubled", "dispose counter 1"]);
  });

  it("waits for the wallet's background work before disposing of its services on unload", async () => {
    const { session, log } = setup();
    await session.load(wallet);
    let release!: () => void;
    session.background(async () => {
      await new Promise<void>((r) => (release = r));
      log.push("background work done");
    });
    const unloading = session.unload();
    await new Promise((r) => setTimeout(r, 20));
    expect(log).to.not.include("dispose counter 1");
    release();
    await unloading;
    expect(log.slice(-3)).to.deep.equal(["background work done", "dispose doubled", "dispose counter 1"]);
  });

  it("makes new instances for the next wallet", async () => {
    const { scope, session } = setup();
    await session.load(wallet);
    await session.unload();
    await session.load(wallet);
    expect((await scope.handle(Counter).get()).n).to.equal(2);
  });

  it("answers 422 No wallet set without a wallet", async () => {
    const { scope } = setup();
    const err = await scope.handle(Counter).get().then(() => undefined, (e: unknown) => e);
    expect(err).to.be.instanceOf(NoWalletError);
    expect((err as NoWalletError).status).to.equal(422);
    expect((err as Error).message).to.equal("No wallet set");
  });

  it("hands a consumer the factory's error when a service could not be created", async () => {
    const scope = new WalletScope(quiet);
    scope.register("broken", Counter, { create: () => { throw new Error("chain source unreachable"); } });
    await new WalletSession(new EventBus(quiet), scope).load(wallet);
    const err = await scope.handle(Counter).get().then(() => undefined, (e: unknown) => e);
    expect((err as Error).message).to.equal("chain source unreachable");
  });

  it("refuses a second provider of a wallet service, naming both plugins", () => {
    const { scope } = setup();
    expect(() => scope.register("again", Counter, { create: () => ({ n: 0 }) }))
      .to.throw("wallet service test.counter is provided by both plugin counter and plugin again");
  });
});

describe("AsyncLock", () => {
  it("runs sections one at a time in call order, past a failing one", async () => {
    const lock = new AsyncLock();
    const seen: string[] = [];
    const slow = lock.run(async () => { seen.push("a start"); await new Promise((r) => setTimeout(r, 20)); seen.push("a end"); });
    const failing = lock.run(async () => { seen.push("b"); throw new Error("b failed"); });
    const last = lock.run(() => { seen.push("c"); return 3; });
    await slow;
    await failing.catch(() => undefined);
    expect(await last).to.equal(3);
    expect(seen).to.deep.equal(["a start", "a end", "b", "c"]);
  });
});

describe("kernel: services in register()", () => {
  const config = (): DaemonConfig => ({
    datadir: "/nonexistent", port: 0, host: "127.0.0.1", allowedOrigins: [], exposeMnemonic: false, noAuth: false,
    dangerouslyAllowRemoteNoAuth: false, verbose: false, quiet: true, pluginConfig: {}, databaseSchema: "tender",
  });
  const load = (plugins: TenderPlugin[], hostServices: HostService[] = []) =>
    new Kernel({ config: config(), plugins, logger: quiet, authToken: undefined, hostServices }).load();

  it("hands a consumer the provider's value, and a host service like any other", async () => {
    const Clock = defineService<{ now(): number }>("test.clock");
    let greeted = "";
    let now = 0;
    await load([
      plugin("user", { consumes: [Greeter, Clock], register(ctx) { greeted = ctx.get(Greeter).greet(); now = ctx.get(Clock).now(); } }),
      plugin("greeter", { provides: [Greeter], register(ctx) { ctx.provide(Greeter, { greet: () => "hello" }); } }),
    ], [hostService(Clock, { now: () => 42 })]);
    expect([greeted, now]).to.deep.equal(["hello", 42]);
  });

  it("unloading the wallet aborts a scheduled task's run under way and waits for it before the wallet's services go", async () => {
    // the wallet's delete closed its database while a task's query was under way (it hung on PostgreSQL)
    const log: string[] = [];
    let kernel!: Kernel;
    kernel = new Kernel({
      config: config(), logger: quiet, authToken: undefined,
      plugins: [plugin("tasks", {
        provides: [Counter],
        register(ctx) {
          ctx.provideForWallet(Counter, { create: () => ({ n: 1 }), dispose: () => { log.push("dispose counter"); } });
          ctx.task({
            name: "tasks.sync", intervalMs: 5,
            run: async (signal) => {
              if (!kernel.wallet.isLoaded) return;
              log.push("run began");
              await new Promise<void>((resolve) => signal.addEventListener("abort", () => setTimeout(resolve, 30)));
              log.push("run ended");
            },
          });
        },
      })],
    });
    await kernel.load();
    await kernel.wallet.load({ fingerprint: "00000000", network: "regtest" });
    kernel.scheduler.start();
    try {
      while (!log.includes("run began")) await new Promise((r) => setTimeout(r, 5));
      await kernel.wallet.unload();
      expect(log).to.deep.equal(["run began", "run ended", "dispose counter"]);
      // the task keeps its schedule: its next runs find no wallet
      const runs = kernel.scheduler.stats("tasks.sync")!.runs;
      await new Promise((r) => setTimeout(r, 30));
      expect(kernel.scheduler.stats("tasks.sync")!.runs).to.be.greaterThan(runs);
      expect(log).to.have.length(3);
    } finally {
      await kernel.scheduler.stop();
    }
  });

  it("refuses a plugin providing a service it did not declare, or declaring one it does not provide", async () => {
    const undeclared = await load([plugin("sneaky", { register(ctx) { ctx.provide(Greeter, { greet: () => "" }); } })]).catch((e: Error) => e);
    expect((undeclared as Error).message).to.equal("plugin sneaky provides service test.greeter without declaring it in provides");
    const missing = await load([plugin("lazy", { provides: [Greeter] })]).catch((e: Error) => e);
    expect((missing as Error).message).to.equal("plugin lazy declares service test.greeter in provides but did not provide it");
  });

  it("refuses a plugin asking for a service it did not declare, and answers undefined for a missing optional one", async () => {
    const undeclared = await load([plugin("greeter", { provides: [Greeter], register(ctx) { ctx.provide(Greeter, { greet: () => "" }); } }),
      plugin("rude", { register(ctx) { ctx.get(Greeter); } })]).catch((e: Error) => e);
    expect((undeclared as Error).message).to.equal("plugin rude asks for service test.greeter without declaring it in consumes or optional");
    let found: unknown = "unset";
    await load([plugin("maybe", { optional: [Greeter], register(ctx) { found = ctx.find(Greeter); } })]);
    expect(found).to.equal(undefined);
  });

  it("refuses a host service and a plugin providing the same service, naming both", async () => {
    const both = await load([plugin("greeter", { provides: [Greeter], register(ctx) { ctx.provide(Greeter, { greet: () => "" }); } })],
      [hostService(Greeter, { greet: () => "host" })]).catch((e: Error) => e);
    expect((both as Error).message).to.equal("service test.greeter is provided by both the host and plugin greeter");
  });
});
