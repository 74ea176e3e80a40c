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
 * ```
 */
import { Server, ServerCredentials, type ServiceDefinition } from "@grpc/grpc-js";
import { silentLogger, type DatabaseLocation, type Logger } from "@tender/core";
import { ArkServer } from "./ark-server.js";
import type { ArkServerConfig, ArkServerProfile } from "./server-config.js";
import type { ServerChain } from "./server-context.js";
import { adminServices, publicServices, type ServiceBinding } from "./grpc-services.js";

/** Options of {@link startArkServer}. */
export interface StartArkServerOptions {
  /** The devnet chain the server watches and uses. */
  readonly node: ServerChain;
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
}

/** A running server. */
export interface RunningArkServer {
  /** `http://127.0.0.1:<port>` of the public services. */
  readonly url: string;
  /** `http://127.0.0.1:<port>` of the admin services. */
  readonly adminUrl: string;
  /** The domain object (for in-process tests). */
  readonly server: ArkServer;
  /** Ends streams, stops both ports and closes the database. */
  stop(): Promise<void>;
  /** Drops every connection at once without a graceful shutdown (crash simulation), then closes the database. */
  kill(): Promise<void>;
}

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

/** Opens the server state and starts both gRPC ports. */
export async function startArkServer(opts: StartArkServerOptions): Promise<RunningArkServer> {
  const logger = opts.logger ?? silentLogger;
  const server = await ArkServer.open({
    chain: opts.node,
    ...(opts.datadir !== undefined ? { datadir: opts.datadir } : {}),
    ...(opts.database !== undefined ? { database: opts.database } : {}),
    profile: opts.profile ?? "default",
    ...(opts.overrides !== undefined ? { overrides: opts.overrides } : {}),
    logger,
  });
  const closing = new AbortController();
  let pub: { grpc: Server; url: string } | undefined;
  let admin: { grpc: Server; url: string } | undefined;
  try {
    pub = await listen(publicServices(server, logger, closing.signal), opts.port ?? 0);
    admin = await listen(adminServices(server, logger, closing.signal), opts.adminPort ?? 0);
  } catch (e) {
    pub?.grpc.forceShutdown();
    await server.close();
    throw e;
  }
  const servers = [pub.grpc, admin.grpc];
  let stopped = false;
  const finish = async (graceful: boolean) => {
    if (stopped) return;
    stopped = true;
    closing.abort();
    server.mailbox.close();
    if (graceful) await Promise.all(servers.map(shutdown));
    else for (const s of servers) s.forceShutdown();
    await server.close();
  };
  logger.info(`ark server listening on ${pub.url} (admin ${admin.url})`);
  return { url: pub.url, adminUrl: admin.url, server, stop: () => finish(true), kill: () => finish(false) };
}
