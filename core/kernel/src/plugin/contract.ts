import type { DependencyContainer } from "tsyringe";
import type { EventBus } from "../events/event-bus.js";
import type { RouteDefinition } from "../http/route.js";
import type { WebSocketRoute } from "../http/websocket.js";
import type { Logger } from "../log/logger.js";
import type { MigrationDefinition } from "../persistence/migration.js";
import type { TaskDefinition } from "../scheduler/scheduler.js";
import type { DaemonConfig } from "../config/daemon-config.js";
import type { ServiceRef } from "../services/service-ref.js";
import type { WalletService, WalletServiceProvider } from "../services/wallet-scope.js";

/**
 * What a plugin receives in `register`: the DI container (shared by all plugins; services are
 * exposed through typed tokens), its configuration, and the registries it contributes to.
 */
export interface PluginContext {
  /** The registering plugin's name (extension points record who contributed what). */
  readonly name: string;
  readonly container: DependencyContainer;
  readonly config: DaemonConfig;
  /** This plugin's section of the daemon configuration (`plugins.<name>`), `{}` when absent. */
  readonly pluginConfig: Readonly<Record<string, unknown>>;
  readonly logger: Logger;
  readonly events: EventBus;
  /** Adds an HTTP route (schemas validate input and feed the OpenAPI document). */
  route(route: RouteDefinition): void;
  /** Adds a websocket endpoint on the same HTTP server. */
  websocket(route: WebSocketRoute): void;
  /** Adds MikroORM entity classes. */
  entities(...entities: Function[]): void;
  /** Adds migrations (applied in plugin dependency order, then list order). */
  migrations(...migrations: MigrationDefinition[]): void;
  /** Adds a background task to the kernel scheduler. */
  task(task: TaskDefinition): void;
  /** Runs after every plugin registered and before the HTTP server listens. */
  onStart(hook: () => Promise<void> | void): void;
  /** Runs on shutdown, in reverse plugin order. */
  onStop(hook: () => Promise<void> | void): void;
  /** Provides a daemon-scoped service this plugin declared in `provides`. */
  provide<T>(ref: ServiceRef<T>, value: T): void;
  /** Provides a wallet-scoped service this plugin declared in `provides`: the kernel creates it on every wallet load. */
  provideForWallet<T>(ref: ServiceRef<T>, provider: WalletServiceProvider<T>): void;
  /** A daemon-scoped service declared in `consumes` (or `optional`, then it may be missing: see {@link find}). */
  get<T>(ref: ServiceRef<T>): T;
  /** A daemon-scoped service declared in `optional`, or `undefined` when no enabled plugin provides it. */
  find<T>(ref: ServiceRef<T>): T | undefined;
  /** The handle on a wallet-scoped service declared in `consumes` or `optional`. */
  walletService<T>(ref: ServiceRef<T>): WalletService<T>;
}

/**
 * A tender plugin: a name, a version, the services it provides and consumes, and a `register`
 * function that contributes routes, entities, migrations, tasks, events and services. Everything a
 * plugin adds is visible to others only through the service references it exports. The load order
 * follows from `consumes`/`optional` (a consumer loads after the provider) and `dependencies`.
 */
export interface TenderPlugin {
  readonly name: string;
  readonly version: string;
  /** Names of plugins that must be loaded (and registered) before this one, besides the providers of what it consumes. */
  readonly dependencies?: readonly string[];
  /** Services (daemon- or wallet-scoped) this plugin provides; each one exactly once. */
  readonly provides?: readonly ServiceRef<any>[];
  /** Services this plugin needs: the daemon refuses to start when no enabled plugin provides one. */
  readonly consumes?: readonly ServiceRef<any>[];
  /** Services this plugin uses when some enabled plugin provides them (it then loads after that plugin). */
  readonly optional?: readonly ServiceRef<any>[];
  register(ctx: PluginContext): void | Promise<void>;
}

/** Identity helper for typing a plugin definition. */
export function definePlugin(plugin: TenderPlugin): TenderPlugin {
  return plugin;
}
