import "reflect-metadata";
import { join } from "node:path";
import { ConfigError, type DaemonConfig } from "../config/daemon-config.js";
import { USAGE, parseCommandLine } from "../config/argv.js";
import { AuthToken } from "../http/auth-token.js";
import { Kernel, type HostService } from "../kernel.js";
import type { TenderPlugin } from "../plugin/contract.js";
import { createLogger, type Logger } from "../log/logger.js";
import { importPlugins } from "../plugin/import-plugins.js";
import { TENDER_VERSION } from "../version.js";
import { prepareDatadir } from "./datadir.js";
import { gitRevision } from "./git-revision.js";
import { InstanceLock } from "./instance-lock.js";
import { loadOrCreateToken, readTokenFile, writeTokenFile } from "./token-file.js";

/** `tenderd --version` text. */
export function versionLine(): string {
  return `tenderd ${TENDER_VERSION} (${gitRevision()})`;
}

function makeLogger(config: DaemonConfig, datadir: string): Logger {
  const level = process.env.TENDER_LOG as "trace" | "debug" | "info" | "warn" | "error" | undefined;
  return createLogger({
    terminalLevel: config.quiet ? "off" : config.verbose ? "trace" : level ?? "info",
    debugLogFile: join(datadir, "debug.log"),
  });
}

function secretCommand(kind: "secret-show" | "secret-refresh", config: DaemonConfig, secretHex?: string): number {
  const { dir } = prepareDatadir(config.datadir);
  if (kind === "secret-show") {
    const token = readTokenFile(dir);
    if (!token) {
      process.stderr.write(`no auth token found in ${dir}; start the daemon or run \`tenderd secret refresh\`\n`);
      return 1;
    }
    process.stdout.write(token.encode() + "\n");
    return 0;
  }
  let token: AuthToken;
  if (secretHex !== undefined) {
    if (!/^[0-9a-fA-F]{64}$/.test(secretHex)) {
      process.stderr.write("--secret must be 64 hex characters (32 bytes)\n");
      return 1;
    }
    token = AuthToken.fromSecret(Buffer.from(secretHex, "hex"));
  } else {
    token = AuthToken.generate();
  }
  writeTokenFile(dir, token);
  process.stdout.write(token.encode() + "\n");
  return 0;
}

/**
 * What a daemon binary composes the kernel with (its composition root, e.g. `@tender/tenderd`):
 * the plugins it loads by default, how it imports the plugin modules a configuration names, and
 * the services it provides to the plugins from outside (backends: chain sources, Ark servers).
 */
export interface Distribution {
  /** Loaded when the configuration names no plugins. */
  readonly defaultPlugins: readonly TenderPlugin[];
  /** Imports a plugin module named in the configuration, resolved from the distribution's package. */
  importModule(specifier: string): Promise<unknown>;
  /** Services the distribution provides (plugins declare them in `consumes` like any other). */
  readonly hostServices?: readonly HostService[];
}

/** Runs the daemon until SIGTERM/SIGINT. Resolves with the process exit code. */
export async function serve(config: DaemonConfig, distribution: Distribution): Promise<number> {
  process.umask(0o077); // every file the daemon creates (database, logs, keys) is owner-only
  const { dir, groupOrWorldAccessible } = prepareDatadir(config.datadir);
  config.datadir = dir;
  const logger = makeLogger(config, dir);
  if (groupOrWorldAccessible) logger.warn(`datadir ${dir} is accessible by group or others; consider chmod 700`);
  logger.info(`Starting tenderd version ${TENDER_VERSION} (${gitRevision()}) with datadir ${dir}`);

  const lock = InstanceLock.acquire(dir);
  let kernel: Kernel | undefined;
  let listening = "";
  try {
    let token: AuthToken | undefined;
    if (config.noAuth) {
      logger.warn("authentication is DISABLED: anyone who can reach the port controls the wallet");
      if (config.allowedOrigins.length === 0) logger.warn("no CORS origins configured while authentication is disabled");
    } else {
      const r = loadOrCreateToken(dir);
      token = r.token;
      if (r.created) logger.info("Generated a new API auth token; run `tenderd secret show` to print it");
    }
    const plugins = config.plugins ? await importPlugins(config.plugins, distribution.importModule) : [...distribution.defaultPlugins];
    kernel = new Kernel({ config, plugins, logger, authToken: token, hostServices: distribution.hostServices ?? [] });
    await kernel.load();
    const addr = await kernel.start();
    listening = `http://${addr.family === "IPv6" ? `[${addr.address}]` : addr.address}:${addr.port}`;
  } catch (e) {
    await kernel?.stop().catch(() => undefined);
    lock.release();
    throw e;
  }

  return await new Promise<number>((resolve) => {
    let stopping = false;
    const shutdown = (signal: string) => {
      if (stopping) return;
      stopping = true;
      logger.info(`received ${signal}, shutting down`);
      kernel!.stop()
        .catch((e: unknown) => logger.error(`shutdown failed: ${e instanceof Error ? e.message : String(e)}`))
        .finally(() => {
          lock.release();
          logger.info("stopped");
          resolve(0);
        });
    };
    process.on("SIGTERM", () => shutdown("SIGTERM"));
    process.on("SIGINT", () => shutdown("SIGINT"));
    // announced once the signal handlers are in place: whoever waits for this line may stop us at once
    logger.info(`Server starting on ${listening}`);
  });
}

/** A daemon command line (`tenderd`), run with the plugins and backends of `distribution`. */
export async function main(argv: string[], distribution: Distribution): Promise<number> {
  try {
    const cmd = parseCommandLine(argv);
    switch (cmd.kind) {
      case "help":
        process.stdout.write(USAGE);
        return 0;
      case "version":
        process.stdout.write(versionLine() + "\n");
        return 0;
      case "secret-show":
      case "secret-refresh":
        return secretCommand(cmd.kind, cmd.config, cmd.kind === "secret-refresh" ? cmd.secretHex : undefined);
      case "serve":
        return await serve(cmd.config, distribution);
    }
  } catch (e) {
    const msg = e instanceof Error ? e.message : String(e);
    process.stderr.write(`${e instanceof ConfigError ? "" : "error: "}${msg}\n`);
    return 1;
  }
}
