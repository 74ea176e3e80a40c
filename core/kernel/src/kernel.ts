import "reflect-metadata";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { container as rootContainer, type DependencyContainer } from "tsyringe";
import { Router, type NextFunction, type Request, type Response } from "express";
import swaggerUi from "swagger-ui-express";
import { DEFAULT_AUDIT_RETENTION_DAYS, type DaemonConfig } from "./config/daemon-config.js";
import { EventBus } from "./events/event-bus.js";
import { buildApp } from "./http/app.js";
import type { AuthToken } from "./http/auth-token.js";
import { generateOpenApi } from "./http/openapi.js";
import type { RouteDefinition } from "./http/route.js";
import { rejectUpgrade, type WebSocketRoute } from "./http/websocket.js";
import { isAllowedHost } from "./http/request-origin.js";
import type { Logger } from "./log/logger.js";
import { Database } from "./persistence/database.js";
import type { MigrationDefinition } from "./persistence/migration.js";
import type { PluginContext, TenderPlugin } from "./plugin/contract.js";
import { orderPlugins } from "./plugin/order.js";
import { Scheduler } from "./scheduler/scheduler.js";
import { AuthTokenToken, DaemonConfigToken, LoggerToken } from "./tokens.js";
import { WalletReady, WalletSession } from "./wallet/session.js";
import { ActionEngine } from "./actions/action-engine.js";
import { ActionRecord, actionIdWidthMigration, actionMigration, dropActionStepIndexMigration, unfinishedActionsMigration } from "./actions/action-record.js";
import { TENDER_VERSION } from "./version.js";
import { IdempotencyLayer } from "./idempotency/idempotency-layer.js";
import { IdempotencyLink, IdempotencyRecord, idempotencyMigration } from "./idempotency/idempotency-record.js";
import { documentIntegratorFeatures } from "./idempotency/openapi-integrator-docs.js";
import type { ServiceRef } from "./services/service-ref.js";
import { WalletScope } from "./services/wallet-scope.js";
import { ApiAccess } from "./access/api-access.js";
import { documentScopes } from "./access/openapi-scopes.js";
import { Metrics } from "./metrics/metrics.js";
import { Readiness } from "./health/readiness.js";
import { healthRoutes } from "./health/health-routes.js";
import { registerKernelHealth } from "./health/kernel-health.js";
import { registerPaymentMetrics } from "./metrics/payment-metrics.js";

/** What the kernel needs to boot. */
export interface KernelOptions {
  config: DaemonConfig;
  plugins: readonly TenderPlugin[];
  logger: Logger;
  /** `undefined` = no-auth mode. */
  authToken: AuthToken | undefined;
  /** Services the host (the daemon binary, a test) provides to the plugins: backends such as chain sources. */
  hostServices?: readonly HostService[];
}

/** Whether a request's body or answer holds a secret the idempotency layer must not hash or store (see `RouteDefinition.secretBody`, `secretAnswer`). */
function carriesSecret(route: RouteDefinition, req: Request): boolean {
  if (route.secretAnswer) return true;
  if (typeof route.secretBody !== "function") return route.secretBody === true;
  try {
    return route.secretBody(Buffer.isBuffer(req.body) ? JSON.parse(req.body.toString("utf8")) : undefined);
  } catch {
    return true; // a body that does not parse here was refused before the handler; err on the safe side
  }
}

/** A daemon-scoped service provided from outside the plugins (see {@link hostService}). */
export interface HostService {
  readonly ref: ServiceRef<unknown>;
  readonly value: unknown;
}

/** Pairs a service reference with the value the host provides for it. */
export function hostService<T>(ref: ServiceRef<T>, value: T): HostService {
  return { ref, value };
}

type Hook = () => Promise<void> | void;

/**
 * The microkernel: orders and registers plugins (load), then serves HTTP and runs the scheduler
 * (start), and shuts everything down in reverse (stop).
 */
export class Kernel {
  readonly container: DependencyContainer = rootContainer.createChildContainer();
  readonly events: EventBus;
  readonly scheduler: Scheduler;
  readonly wallet: WalletSession;
  /** The services plugins provide per loaded wallet. */
  readonly walletScope: WalletScope;
  private readonly routes: RouteDefinition[] = [];
  private readonly wsRoutes: WebSocketRoute[] = [];
  private readonly entities: Function[] = [];
  private readonly migrations: MigrationDefinition[] = [];
  private readonly startHooks: Hook[] = [];
  private readonly stopHooks: Hook[] = [];
  private server: Server | undefined;
  private openApiDoc: Record<string, unknown> | undefined;
  /** Which plugin provided each daemon-scoped service. */
  private readonly daemonProviders = new Map<string, string>();
  private loaded = false;
  /** The plugins in load order, after {@link load}. */
  plugins: TenderPlugin[] = [];
  database!: Database;
  actions!: ActionEngine;
  /** `Idempotency-Key` and the movement id of mutating answers. */
  idempotency!: IdempotencyLayer;
  /** Scoped API keys, their audit log and spending caps. */
  access!: ApiAccess;
  /** Prometheus metrics (`/metrics`); plugins add counters and gauges (resolve `Metrics` from the container). */
  readonly metrics: Metrics;
  /** Readiness checks (`/readyz`); plugins add theirs (resolve `Readiness` from the container). */
  readonly readiness: Readiness;

  constructor(private readonly opts: KernelOptions) {
    this.events = new EventBus(opts.logger.child("events"));
    this.scheduler = new Scheduler(opts.logger.child("scheduler"));
    this.walletScope = new WalletScope(opts.logger.child("wallet-scope"));
    this.wallet = new WalletSession(this.events, this.walletScope);
    // a task's run under way when the wallet unloads (delete, lock, stop) ends before its database closes
    this.wallet.addUnloadBarrier(() => this.scheduler.interrupt());
    const c = this.container;
    c.registerInstance(DaemonConfigToken, opts.config);
    c.registerInstance(LoggerToken, opts.logger);
    c.registerInstance(AuthTokenToken, opts.authToken);
    c.registerInstance(EventBus, this.events);
    c.registerInstance(Scheduler, this.scheduler);
    c.registerInstance(WalletSession, this.wallet);
    this.metrics = new Metrics(opts.logger.child("metrics"));
    this.readiness = new Readiness(opts.logger.child("readiness"));
    c.registerInstance(Metrics, this.metrics);
    c.registerInstance(Readiness, this.readiness);
  }

  /** Orders the plugins by dependency and calls each one's `register`. */
  async load(): Promise<void> {
    if (this.loaded) throw new Error("kernel already loaded");
    const host = this.opts.hostServices ?? [];
    for (const h of host) {
      if (h.ref.scope !== "daemon") throw new Error(`host service ${h.ref.id} must be daemon-scoped`);
      this.daemonProviders.set(h.ref.id, "the host");
      this.container.registerInstance(h.ref.token, h.value);
    }
    this.plugins = orderPlugins(this.opts.plugins, host.map((h) => h.ref.id));
    this.database = new Database({ entities: this.entities, migrations: this.migrations }, this.opts.logger.child("db"));
    this.container.registerInstance(Database, this.database);
    // The kernel's own table: persisted multi-step actions, resumed whenever a wallet is loaded.
    this.entities.push(ActionRecord);
    this.migrations.push(actionMigration, actionIdWidthMigration, unfinishedActionsMigration, dropActionStepIndexMigration);
    this.actions = new ActionEngine(this.database, this.opts.logger.child("actions"));
    const phases = this.metrics.histogram(
      "tender_action_phase_duration_seconds",
      "Time of each phase of the daemon's persisted actions (payments, boards, …), by action kind and phase: begin (the new action's first commit), a step's run (server calls included), record:<step> (its outcome's commit)",
      ["kind", "phase"],
    );
    this.actions.observeTimings((kind, phase, seconds) => phases.observe({ kind, phase }, seconds));
    const logSyncs = this.metrics.histogram(
      "tender_database_log_sync_duration_seconds",
      "Time to sync the wallet database's write-ahead log to disk (SQLite): each durable commit's caller waits for one, shared by the commits made meanwhile",
      [],
      [0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1],
    );
    this.database.logSyncObserver = (seconds) => logSyncs.observe({}, seconds);
    this.container.registerInstance(ActionEngine, this.actions);
    this.entities.push(IdempotencyRecord, IdempotencyLink);
    this.migrations.push(idempotencyMigration);
    this.idempotency = new IdempotencyLayer(this.database, this.actions, this.events, this.opts.logger.child("idempotency"));
    this.entities.push(...ApiAccess.entities);
    this.migrations.push(...ApiAccess.migrations);
    this.access = new ApiAccess(this.database, this.opts.logger.child("access"), this.events);
    const auditRetentionMs = (this.opts.config.auditRetentionDays ?? DEFAULT_AUDIT_RETENTION_DAYS) * 24 * 3600_000;
    this.scheduler.add({ name: "kernel.access-upkeep", intervalMs: 3600_000, initialDelayMs: 60_000, run: async () => { await this.access.upkeep(auditRetentionMs); } });
    this.scheduler.add({ name: "kernel.idempotency-upkeep", intervalMs: 10 * 60_000, initialDelayMs: 30_000, run: async () => { await this.idempotency.upkeep(); } });
    // a locked wallet resumes nothing: its actions need the keys, and run once it is unlocked
    const resume = () => (this.wallet.isLoaded && !this.wallet.isLocked && this.database.isOpen ? this.actions.resumeAll() : undefined);
    // Resuming must not hold up wallet creation, but unloading the wallet (stop, delete) waits for it.
    this.events.on(WalletReady, () => this.wallet.background(async () => resume()));
    this.scheduler.add({
      name: "kernel.actions", intervalMs: 2000, initialDelayMs: 2000,
      run: async () => { if (!this.wallet.current?.manualSync) await resume(); },
    });
    for (const plugin of this.plugins) {
      const logger = this.opts.logger.child(plugin.name);
      const declared = (list: readonly ServiceRef<unknown>[] | undefined, ref: ServiceRef<unknown>) => (list ?? []).some((r) => r.id === ref.id);
      const mayUse = (ref: ServiceRef<unknown>, how: string) => {
        if (!declared(plugin.consumes, ref) && !declared(plugin.optional, ref) && !declared(plugin.provides, ref)) {
          throw new Error(`plugin ${plugin.name} ${how} service ${ref.id} without declaring it in consumes or optional`);
        }
      };
      const mayProvide = (ref: ServiceRef<unknown>, scope: "daemon" | "wallet") => {
        if (!declared(plugin.provides, ref)) throw new Error(`plugin ${plugin.name} provides service ${ref.id} without declaring it in provides`);
        if (ref.scope !== scope) throw new Error(`plugin ${plugin.name}: service ${ref.id} is ${ref.scope}-scoped`);
      };
      const ctx: PluginContext = {
        name: plugin.name,
        container: this.container,
        config: this.opts.config,
        pluginConfig: this.opts.config.pluginConfig[plugin.name] ?? {},
        logger,
        events: this.events,
        route: (r) => this.addRoute(plugin, r),
        websocket: (w) => this.wsRoutes.push(w),
        entities: (...e) => this.entities.push(...e),
        migrations: (...m) => this.migrations.push(...m),
        task: (t) => this.scheduler.add(t),
        onStart: (h) => this.startHooks.push(h),
        onStop: (h) => this.stopHooks.unshift(h),
        provide: (ref, value) => {
          mayProvide(ref, "daemon");
          const by = this.daemonProviders.get(ref.id);
          if (by) throw new Error(`service ${ref.id} is provided by both plugin ${by} and plugin ${plugin.name}`);
          this.daemonProviders.set(ref.id, plugin.name);
          this.container.registerInstance(ref.token, value);
        },
        provideForWallet: (ref, provider) => {
          mayProvide(ref, "wallet");
          this.walletScope.register(plugin.name, ref, provider);
        },
        get: (ref) => {
          mayUse(ref, "asks for");
          if (ref.scope !== "daemon") throw new Error(`plugin ${plugin.name}: service ${ref.id} is wallet-scoped: use walletService()`);
          if (!this.daemonProviders.has(ref.id)) throw new Error(`plugin ${plugin.name} needs service ${ref.id}, which no enabled plugin provided`);
          return this.container.resolve(ref.token);
        },
        find: (ref) => {
          mayUse(ref, "asks for");
          return this.daemonProviders.has(ref.id) ? this.container.resolve(ref.token) : undefined;
        },
        walletService: (ref) => {
          mayUse(ref, "asks for");
          if (ref.scope !== "wallet") throw new Error(`plugin ${plugin.name}: service ${ref.id} is daemon-scoped: use get()`);
          return this.walletScope.handle(ref);
        },
      };
      await plugin.register(ctx);
      for (const ref of plugin.provides ?? []) {
        const done = ref.scope === "daemon" ? this.daemonProviders.get(ref.id) === plugin.name : this.walletScope.has(ref);
        if (!done) throw new Error(`plugin ${plugin.name} declares service ${ref.id} in provides but did not provide it`);
      }
      logger.debug(`registered ${plugin.name} ${plugin.version}`);
    }
    for (const r of this.access.routes()) this.addRoute({ name: "kernel" } as TenderPlugin, r);
    registerKernelHealth(this.readiness, this.metrics, this.database, this.wallet);
    registerPaymentMetrics(this.events, this.metrics);
    for (const r of healthRoutes(this.readiness, this.metrics, this.opts.config.metricsPublic ?? false)) this.addRoute({ name: "kernel" } as TenderPlugin, r);
    this.addMetaRoutes();
    this.loaded = true;
  }

  /** The registered routes (for tests and tooling). */
  get routeTable(): readonly RouteDefinition[] {
    return this.routes;
  }

  /** The OpenAPI 3.1 document of every documented route. */
  openApi(): Record<string, unknown> {
    // Routes are fixed once loaded, so from then on the document is generated once.
    const doc = this.openApiDoc ?? documentScopes(documentIntegratorFeatures(generateOpenApi(this.routes, {
      title: "barkd REST API",
      version: TENDER_VERSION,
      description: "tender: a barkd-compatible wallet daemon (Ark, Lightning, on-chain).",
    })), this.routes);
    if (this.loaded) this.openApiDoc = doc;
    return doc;
  }

  /** Runs the plugins' start hooks, starts the scheduler and listens. Returns the bound address. */
  async start(): Promise<AddressInfo> {
    if (!this.loaded) await this.load();
    for (const h of this.startHooks) await h();
    this.scheduler.start();
    const app = buildApp({
      routes: this.routes,
      authToken: this.opts.authToken,
      allowedOrigins: this.opts.config.allowedOrigins,
      allowedHosts: this.opts.config.allowedHosts ?? [],
      isWalletLoaded: () => this.wallet.isLoaded,
      isWalletLocked: () => this.wallet.isLocked,
      onResponse: (info) => this.metrics.observeRequest(info),
      authorize: (route, req, res) => this.access.authorize(route, req, res, this.opts.authToken!),
      around: (route, req, res, run) => {
        const answer = () => (carriesSecret(route, req)
          ? this.access.run(req, run)
          : this.idempotency.intercept(route, req, res, () => this.access.run(req, run)));
        // locking the wallet waits for the mutations being answered (the lock routes themselves excepted)
        return route.method === "get" || route.whileLocked ? answer() : this.wallet.track(answer);
      },
      logger: this.opts.logger.child("http"),
      mount: (a) => {
        // Swagger UI answers GET of its page and its real asset files only; anything else falls
        // through to the 404 fallback.
        a.get("/swagger-ui", (_req: Request, res: Response) => res.redirect(303, "/swagger-ui/"));
        a.get("/swagger-ui/", swaggerUi.serve, swaggerUi.setup(undefined, { swaggerOptions: { url: "/api-docs/openapi.json" } }));
        const assets = Router({ strict: true, caseSensitive: true });
        assets.get(/^\/[^/]+$/, ...swaggerUi.serve);
        a.use("/swagger-ui", (req: Request, res: Response, next: NextFunction) => (req.method === "GET" || req.method === "HEAD" ? assets(req, res, next) : next()));
      },
    });
    const server = createServer(app);
    server.on("upgrade", (req, socket, head) => {
      if (!isAllowedHost(req.headers.host, this.opts.config.allowedHosts ?? [])) return rejectUpgrade(socket, 403, "");
      // matched literally, as the router does: no dot-segment or case normalisation
      const path = (req.url ?? "/").split("?")[0]!;
      const route = this.wsRoutes.find((w) => w.path === path);
      if (!route) return rejectUpgrade(socket, 404, "");
      route.upgrade(req, socket, head);
    });
    this.server = server;
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(this.opts.config.port, this.opts.config.host, () => {
        server.off("error", reject);
        resolve();
      });
    });
    return server.address() as AddressInfo;
  }

  /** Stops in reverse: HTTP server, scheduler, plugins' stop hooks, database. */
  async stop(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    if (server) {
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    }
    this.opts.logger.debug("stopping the scheduler");
    await this.scheduler.stop();
    await this.events.drain();
    for (const [i, h] of this.stopHooks.entries()) {
      try {
        this.opts.logger.debug(`running stop hook ${i + 1}/${this.stopHooks.length}`);
        await h();
      } catch (e) {
        this.opts.logger.warn(`stop hook failed: ${e instanceof Error ? e.message : String(e)}`);
      }
    }
    await this.events.drain();
    this.opts.logger.debug("closing the database");
    await this.database?.close();
  }

  private addRoute(plugin: TenderPlugin, r: RouteDefinition): void {
    const dup = this.routes.find((x) => x.method === r.method && x.path === r.path);
    if (dup) throw new Error(`plugin ${plugin.name}: route ${r.method.toUpperCase()} ${r.path} is already registered`);
    this.routes.push(r);
  }

  private addMetaRoutes(): void {
    this.routes.push(
      {
        method: "get", path: "/ping", operationId: "ping", tag: "default", auth: "none",
        responses: { 200: { description: "pong", contentType: "text/plain" } },
        handler: ({ res }) => { res.status(200).type("text/plain; charset=utf-8").send("pong"); },
      },
      {
        method: "get", path: "/api-docs/openapi.json", operationId: "openapi_json", auth: "none", undocumented: true,
        responses: { 200: { description: "OpenAPI document" } },
        handler: () => this.openApi(),
      },
    );
  }
}
