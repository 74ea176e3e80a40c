import { readFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { ConfigError, defaultDatadir, parseBoolish, validateDaemonConfig, type DaemonConfig } from "./daemon-config.js";

/** What the command line asks for. */
export type Command =
  | { kind: "serve"; config: DaemonConfig }
  | { kind: "secret-show"; config: DaemonConfig }
  | { kind: "secret-refresh"; config: DaemonConfig; secretHex?: string }
  | { kind: "version" }
  | { kind: "help" };

/** Usage text for `--help`. */
export const USAGE = `Usage: tenderd [OPTIONS] [secret show | secret refresh [--secret HEX]]

Options:
  --datadir <path>                      data directory (env TENDER_DATADIR, default ~/.tender)
  --port <u16>                          listen port (env TENDER_BIND_PORT, default 3000)
  --host <ip>                           listen address, an IP literal (env TENDER_BIND_HOST, default 127.0.0.1)
  --allowed-origins <list>              comma-separated CORS origins (env TENDER_ALLOWED_ORIGINS, default: deny all)
  --allowed-hosts <list>                comma-separated host names answered besides IPs and localhost (env TENDER_ALLOWED_HOSTS)
  --expose-mnemonic                     enable GET /api/v1/wallet/mnemonic (env TENDER_EXPOSE_MNEMONIC)
  --encrypt-seed                        require a passphrase at wallet creation; the seed is stored encrypted (env TENDER_ENCRYPT_SEED)
  --metrics-public                      serve /metrics without authentication (env TENDER_METRICS_PUBLIC)
  --audit-retention-days <days>         delete API audit entries older than this, 0 keeps them (env TENDER_AUDIT_RETENTION_DAYS, default 90)
  --no-auth                             disable authentication (loopback hosts only)
  --dangerously-allow-remote-no-auth    disable authentication on any host
  --config <file>                       daemon config file (JSON: plugins, pluginConfig, databaseUrl) (env TENDER_CONFIG)
  --database-url <url>                  PostgreSQL URL; SQLite in the datadir otherwise (env TENDER_DATABASE_URL)
  -v, --verbose                         trace-level terminal logging (env TENDER_VERBOSE)
  -q, --quiet                           no terminal logging (env TENDER_QUIET)
  --version                             print the version
  --help                                print this help
`;

interface ConfigFile {
  plugins?: string[];
  encryptSeed?: boolean;
  metricsPublic?: boolean;
  auditRetentionDays?: number;
  pluginConfig?: Record<string, Record<string, unknown>>;
  databaseUrl?: string;
  databaseSchema?: string;
}

function readConfigFile(path: string | undefined): ConfigFile {
  if (!path) return {};
  try {
    return JSON.parse(readFileSync(path, "utf8")) as ConfigFile;
  } catch (e) {
    throw new ConfigError(`cannot read config file ${path}: ${e instanceof Error ? e.message : String(e)}`);
  }
}

/** Parses `tenderd` arguments and `TENDER_*` environment variables (flags win over the environment). */
export function parseCommandLine(argv: string[], env: NodeJS.ProcessEnv = process.env): Command {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      strict: true,
      options: {
        datadir: { type: "string" },
        port: { type: "string" },
        host: { type: "string" },
        "allowed-origins": { type: "string" },
        "allowed-hosts": { type: "string" },
        "expose-mnemonic": { type: "boolean" },
        "encrypt-seed": { type: "boolean" },
        "metrics-public": { type: "boolean" },
        "audit-retention-days": { type: "string" },
        "no-auth": { type: "boolean" },
        "dangerously-allow-remote-no-auth": { type: "boolean" },
        config: { type: "string" },
        "database-url": { type: "string" },
        verbose: { type: "boolean", short: "v" },
        quiet: { type: "boolean", short: "q" },
        version: { type: "boolean" },
        help: { type: "boolean", short: "h" },
        secret: { type: "string" },
      },
    });
  } catch (e) {
    throw new ConfigError(e instanceof Error ? e.message : String(e));
  }
  const { values: v, positionals } = parsed;
  if (v.help) return { kind: "help" };
  if (v.version) return { kind: "version" };

  const file = readConfigFile(v.config ?? env.TENDER_CONFIG);
  const portText = v.port ?? env.TENDER_BIND_PORT ?? "3000";
  if (!/^\d+$/.test(portText)) throw new ConfigError(`invalid port: ${portText}`);
  const origins = (v["allowed-origins"] ?? env.TENDER_ALLOWED_ORIGINS ?? "").split(",").map((s) => s.trim()).filter(Boolean);
  const hosts = (v["allowed-hosts"] ?? env.TENDER_ALLOWED_HOSTS ?? "").split(",").map((s) => s.trim().toLowerCase()).filter(Boolean);
  const verbose = v.verbose ?? parseBoolish("TENDER_VERBOSE", env.TENDER_VERBOSE) ?? false;
  const quiet = v.quiet ?? parseBoolish("TENDER_QUIET", env.TENDER_QUIET) ?? false;
  if (verbose && quiet) throw new ConfigError("--verbose and --quiet cannot be used together");
  const dangerous = v["dangerously-allow-remote-no-auth"] ?? false;
  const databaseUrl = v["database-url"] ?? env.TENDER_DATABASE_URL ?? file.databaseUrl;
  const retentionText = v["audit-retention-days"] ?? env.TENDER_AUDIT_RETENTION_DAYS ?? (file.auditRetentionDays === undefined ? undefined : String(file.auditRetentionDays));
  if (retentionText !== undefined && !/^\d+$/.test(retentionText)) throw new ConfigError(`invalid audit retention: ${retentionText} (whole days; 0 keeps the audit log for ever)`);
  const plugins = file.plugins ?? (env.TENDER_PLUGINS ? env.TENDER_PLUGINS.split(",").map((s) => s.trim()).filter(Boolean) : undefined);
  const config: DaemonConfig = {
    datadir: v.datadir ?? env.TENDER_DATADIR ?? defaultDatadir(),
    port: Number(portText),
    host: v.host ?? env.TENDER_BIND_HOST ?? "127.0.0.1",
    allowedOrigins: origins,
    ...(hosts.length ? { allowedHosts: hosts } : {}),
    exposeMnemonic: v["expose-mnemonic"] ?? parseBoolish("TENDER_EXPOSE_MNEMONIC", env.TENDER_EXPOSE_MNEMONIC) ?? false,
    encryptSeed: v["encrypt-seed"] ?? parseBoolish("TENDER_ENCRYPT_SEED", env.TENDER_ENCRYPT_SEED) ?? file.encryptSeed ?? false,
    metricsPublic: v["metrics-public"] ?? parseBoolish("TENDER_METRICS_PUBLIC", env.TENDER_METRICS_PUBLIC) ?? file.metricsPublic ?? false,
    ...(retentionText !== undefined ? { auditRetentionDays: Number(retentionText) } : {}),
    noAuth: (v["no-auth"] ?? false) || dangerous,
    dangerouslyAllowRemoteNoAuth: dangerous,
    verbose,
    quiet,
    ...(plugins ? { plugins } : {}),
    pluginConfig: file.pluginConfig ?? {},
    ...(databaseUrl ? { databaseUrl } : {}),
    databaseSchema: env.TENDER_DATABASE_SCHEMA ?? file.databaseSchema ?? "tender",
    ...(env.TENDER_TEST_ANY_PORT === "1" ? { anyPort: true } : {}),
  };

  if (positionals.length === 0) {
    if (v.secret !== undefined) throw new ConfigError("--secret is only valid with `secret refresh`");
    return { kind: "serve", config: validateDaemonConfig(config) };
  }
  if (positionals[0] === "secret" && positionals.length === 2 && positionals[1] === "show") return { kind: "secret-show", config };
  if (positionals[0] === "secret" && positionals.length === 2 && positionals[1] === "refresh") {
    return { kind: "secret-refresh", config, ...(v.secret !== undefined ? { secretHex: v.secret } : {}) };
  }
  throw new ConfigError(`unknown command: ${positionals.join(" ")}`);
}
