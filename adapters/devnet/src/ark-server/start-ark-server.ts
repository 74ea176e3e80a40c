/**
 * Starts the reference Ark server over gRPC (HTTP/2, plaintext, 127.0.0.1): the public port
 * (ArkService, MailboxService, Health) and the admin port (WalletAdmin, BanAdmin, RoundAdmin,
 * SweepAdmin, LightningAdmin), as captaind lays them out.
 *
 * @example
 * ```ts
 * const node = new DevnetNode({ seed: "demo" });
 * const ark = await startArkServer({ node, profile: "test" });
 * // ark.url = "http://127.0.0.1:<port>"; ark.adminUrl for the admin services
 * await ark.stop();
 *
 * // on an external bitcoind (its wallet holds the server wallet's coins)
 * const onCore = await startArkServer({ chain: await bitcoindServerChain({ url, auth: { cookieFile } }), datadir });
 * ```
 */
import { Server, ServerCredentials, type ServiceDefinition } from "@grpc/grpc-js";
import { silentLogger, type DatabaseLocation, type Logger } from "@tender/core";
import { ArkServer } from "./ark-server.js";
import { serverConfig, type ArkServerConfig, type ArkServerProfile } from "./server-config.js";
import { ServerSettings } from "./server-settings.js";
import type { ServerChain } from "./server-context.js";
import type { DevnetNode } from "../node/devnet-node.js";
import { adminServices, publicServices, type ServiceBinding } from "./grpc-services.js";
import type { LightningBackend } from "../lightning/lightning-backend.js";

/** Options of {@link startArkServer}. */
export interface StartArkServerOptions {
  /** The devnet chain the server watches and uses (or give {@link chain}). */
  readonly node?: DevnetNode;
  /** Any other chain, e.g. `bitcoindServerChain(…)` for an external bitcoind; exactly one of `node` and `chain`. */
  readonly chain?: ServerChain;
  /** Directory of the server database (`ark-server.sqlite`); in memory without it. */
  readonly datadir?: string;
  /** Explicit database location (e.g. PostgreSQL); overrides `datadir`. */
  readonly database?: DatabaseLocation;
  /** Public port on 127.0.0.1; 0 (default) picks a free one. */
  readonly port?: number;
  /** Admin port on 127.0.0.1; 0 (default) picks a free one. */
  readonly adminPort?: number;
  /** `default` (captaind defaults) or `test` (short delays, fast confirmations, zero fees). */
  readonly profile?: ArkServerProfile;
  readonly overrides?: Partial<ArkServerConfig>;
  /** Receives one debug line per request. */
  readonly logger?: Logger;
  /** The Lightning node the server pays through (kept across restarts, like a separate node). */
  readonly lightning?: LightningBackend;
}

/**
 * A running server. It can be stopped and started again in the same process, as an operator
 * restarts captaind: the same database (so the same seed, keys and state), the same settings
 * (changes made at run time included) and the same two ports.
 */
export interface RunningArkServer {
  /** `http://127.0.0.1:<port>` of the public services (the same after a restart). */
  readonly url: string;
  /** `http://127.0.0.1:<port>` of the admin services (the same after a restart). */
  readonly adminUrl: string;
  /** The domain object of the current run (while stopped: the last run's, closed). */
  readonly server: ArkServer;
  /** The settings every run reads (kept across restarts). */
  readonly settings: ServerSettings;
  /** Whether the ports serve: false from {@link stop} or {@link kill} until {@link start}. */
  readonly running: boolean;
  /** Ends streams, stops both ports and closes the database. Does nothing when stopped. */
  stop(): Promise<void>;
  /** Drops every connection at once without a graceful shutdown (crash simulation), then closes the database. */
  kill(): Promise<void>;
  /**
   * Starts again after {@link stop} or {@link kill}: reopens the database and listens on the same
   * ports. Refused while running, and for an in-memory database (its state is gone once closed).
   */
  start(): Promise<void>;
}

/** A refused {@link RunningArkServer.start}. */
export class ArkServerRestartError extends Error {}

/** Message size limit of both ports (bark's client accepts responses up to 64 MiB). */
const MAX_MESSAGE_BYTES = 64 * 1024 * 1024;

async function listen(bindings: readonly ServiceBinding[], port: number): Promise<{ grpc: Server; url: string }> {
  const grpc = new Server({ "grpc.max_receive_message_length": MAX_MESSAGE_BYTES, "grpc.max_send_message_length": MAX_MESSAGE_BYTES });
  for (const b of bindings) grpc.addService(b.definition as ServiceDefinition, b.impl);
  const bound = await new Promise<number>((resolve, reject) =>
    grpc.bindAsync(`127.0.0.1:${port}`, ServerCredentials.createInsecure(), (err, p) => (err ? reject(err) : resolve(p))),
  );
  return { grpc, url: `http://127.0.0.1:${bound}` };
}

function shutdown(grpc: Server): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      grpc.forceShutdown();
      resolve();
    }, 2000);
    grpc.tryShutdown(() => {
      clearTimeout(timer);
      resolve();
    });
  });
}

/** One run: the domain object and its two gRPC servers. */
interface Run {
  readonly server: ArkServer;
  readonly grpcServers: readonly Server[];
  readonly closing: AbortController;
  readonly url: string;
  readonly adminUrl: string;
}

async function openRun(opts: StartArkServerOptions, settings: ServerSettings, logger: Logger, port: number, adminPort: number): Promise<Run> {
  const server = await ArkServer.open({
    chain: chainOf(opts),
    ...(opts.datadir !== undefined ? { datadir: opts.datadir } : {}),
    ...(opts.database !== undefined ? { database: opts.database } : {}),
    settings,
    logger,
    ...(opts.lightning ? { lightning: opts.lightning } : {}),
  });
  const closing = new AbortController();
  let pub: { grpc: Server; url: string } | undefined;
  let admin: { grpc: Server; url: string } | undefined;
  try {
    pub = await listen(publicServices(server, logger, closing.signal), port);
    admin = await listen(adminServices(server, logger, closing.signal), adminPort);
  } catch (e) {
    pub?.grpc.forceShutdown();
    await server.close();
    throw e;
  }
  logger.info(`ark server listening on ${pub.url} (admin ${admin.url})`);
  return { server, grpcServers: [pub.grpc, admin.grpc], closing, url: pub.url, adminUrl: admin.url };
}

async function closeRun(run: Run, graceful: boolean): Promise<void> {
  run.closing.abort();
  run.server.mailbox.close();
  if (graceful) await Promise.all(run.grpcServers.map(shutdown));
  else for (const s of run.grpcServers) s.forceShutdown();
  await run.server.close();
}

function chainOf(opts: StartArkServerOptions): ServerChain | DevnetNode {
  const chain = opts.chain ?? opts.node;
  if (!chain || (opts.chain && opts.node)) throw new Error("startArkServer needs exactly one of `node` (a devnet) and `chain`");
  return chain;
}

const portOf = (url: string): number => Number(new URL(url).port);

/** Opens the server state and starts both gRPC ports. */
export async function startArkServer(opts: StartArkServerOptions): Promise<RunningArkServer> {
  const logger = opts.logger ?? silentLogger;
  const settings = new ServerSettings(serverConfig(opts.profile ?? "default", opts.overrides));
  let run = await openRun(opts, settings, logger, opts.port ?? 0, opts.adminPort ?? 0);
  let running = true;
  const { url, adminUrl } = run;
  const inMemory = opts.database === undefined && opts.datadir === undefined;
  // stop, kill and start run one at a time, in call order
  let queue: Promise<unknown> = Promise.resolve();
  const serial = <T>(fn: () => Promise<T>): Promise<T> => {
    const next = queue.then(fn);
    queue = next.catch(() => undefined);
    return next;
  };
  const finish = (graceful: boolean) =>
    serial(async () => {
      if (!running) return;
      running = false;
      await closeRun(run, graceful);
    });
  return {
    url,
    adminUrl,
    settings,
    get server() {
      return run.server;
    },
    get running() {
      return running;
    },
    stop: () => finish(true),
    kill: () => finish(false),
    start: () =>
      serial(async () => {
        if (running) throw new ArkServerRestartError("the Ark server is already running");
        if (inMemory) throw new ArkServerRestartError("the Ark server's database is in memory: its state is gone once stopped, so it cannot start again (give datadir or database)");
        run = await openRun(opts, settings, logger, portOf(url), portOf(adminUrl));
        running = true;
      }),
  };
}
