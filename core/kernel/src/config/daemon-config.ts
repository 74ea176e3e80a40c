import { isIP } from "node:net";
import { homedir } from "node:os";
import { join } from "node:path";

/** The daemon's configuration, from flags, `TENDER_*` environment variables and the config file. */
export interface DaemonConfig {
  datadir: string;
  port: number;
  host: string;
  allowedOrigins: string[];
  /**
   * Host names the daemon answers besides IP literals and `localhost` (`--allowed-hosts`): a
   * request naming any other host is refused, so a web page cannot reach the daemon through DNS
   * rebinding.
   */
  allowedHosts?: string[];
  exposeMnemonic: boolean;
  /**
   * `--encrypt-seed`: a wallet created by this daemon must be given a passphrase; its mnemonic is
   * stored encrypted and the daemon starts locked (tender extension). A wallet created with a
   * passphrase is encrypted whatever this says.
   */
  encryptSeed?: boolean;
  /** `--metrics-public`: `/metrics` answers without authentication (for a scraper on localhost). */
  metricsPublic?: boolean;
  /**
   * `--audit-retention-days`: API audit log entries older than this many days are deleted
   * (default {@link DEFAULT_AUDIT_RETENTION_DAYS}; 0 keeps them for ever).
   */
  auditRetentionDays?: number;
  /** `--no-auth` (loopback only) or `--dangerously-allow-remote-no-auth`. No environment variable sets these. */
  noAuth: boolean;
  dangerouslyAllowRemoteNoAuth: boolean;
  verbose: boolean;
  quiet: boolean;
  /**
   * Module specifiers of the enabled plugins, e.g. `@tender/plugin-wallet`; `undefined` when the
   * configuration names none (the distribution, e.g. `tenderd`, then loads its default set).
   */
  plugins?: string[];
  /** Per-plugin settings, keyed by plugin name. */
  pluginConfig: Record<string, Record<string, unknown>>;
  /** PostgreSQL URL; SQLite in the datadir when absent. */
  databaseUrl?: string;
  /** PostgreSQL schema holding this daemon's tables. */
  databaseSchema: string;
  /**
   * Test harnesses only (`TENDER_TEST_ANY_PORT=1`): port 0 lets the OS pick a free port, which the
   * daemon reports in its "Server starting on" line. barkd refuses port 0, and so does tenderd otherwise.
   */
  anyPort?: boolean;
}

/** A configuration problem: the daemon refuses to start and prints this. */
export class ConfigError extends Error {}

/** barkd's boolish environment values. */
export function parseBoolish(name: string, value: string | undefined): boolean | undefined {
  if (value === undefined || value === "") return undefined;
  const v = value.trim().toLowerCase();
  if (["true", "yes", "on", "1"].includes(v)) return true;
  if (["false", "no", "off", "0"].includes(v)) return false;
  throw new ConfigError(`invalid boolean value for ${name}: ${value}`);
}

/** Validates one CORS origin: `http(s)://host[:port]`, no path, no trailing slash. */
export function validateOrigin(origin: string): string {
  const ok = /^https?:\/\/[^/\s:]+(:\d{1,5})?$/.test(origin) && origin.split("://").length === 2;
  if (!ok) throw new ConfigError(`invalid CORS origin: ${origin}`);
  return origin;
}

/** Whether `host` is a loopback IP literal (127.0.0.0/8 or ::1). */
export function isLoopback(host: string): boolean {
  if (isIP(host) === 4) return host.startsWith("127.");
  return host === "::1" || host === "0:0:0:0:0:0:0:1";
}

/** The default datadir: `$HOME/.tender`, or `./.tender` without a home directory. */
export function defaultDatadir(): string {
  const home = process.env.HOME || homedir();
  return home ? join(home, ".tender") : ".tender";
}

/** Checks the values barkd checks at startup (port, host, origins, no-auth host). */
/** How long API audit entries are kept unless configured otherwise. */
export const DEFAULT_AUDIT_RETENTION_DAYS = 90;

export function validateDaemonConfig(c: DaemonConfig): DaemonConfig {
  if (c.auditRetentionDays !== undefined && (!Number.isInteger(c.auditRetentionDays) || c.auditRetentionDays < 0 || c.auditRetentionDays > 36_500)) {
    throw new ConfigError(`invalid audit retention: ${c.auditRetentionDays} (whole days, 0 to 36500; 0 keeps the audit log for ever)`);
  }
  const portZeroAllowed = c.anyPort === true && c.port === 0;
  if (!portZeroAllowed && (!Number.isInteger(c.port) || c.port < 1 || c.port > 65535)) throw new ConfigError(`invalid port: ${c.port} (must be 1-65535)`);
  if (!isIP(c.host)) throw new ConfigError(`invalid host: ${c.host} (must be an IPv4 or IPv6 address)`);
  c.allowedOrigins.forEach(validateOrigin);
  for (const h of c.allowedHosts ?? []) {
    if (!/^[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*$/i.test(h)) throw new ConfigError(`invalid allowed host: ${h} (a DNS name, without port)`);
  }
  if (c.noAuth && c.exposeMnemonic) {
    throw new ConfigError("refusing to start: --expose-mnemonic with authentication disabled would hand the seed to anyone who can reach the port");
  }
  if (c.noAuth && !c.dangerouslyAllowRemoteNoAuth && !isLoopback(c.host)) {
    throw new ConfigError(
      `refusing to start: --no-auth with bind host ${c.host} is only allowed on a loopback address; use --dangerously-allow-remote-no-auth to override`,
    );
  }
  return c;
}
