import { appendFileSync, openSync, closeSync } from "node:fs";

/** Log levels, most verbose first. */
export const LOG_LEVELS = ["trace", "debug", "info", "warn", "error"] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

/** The logging interface every plugin receives. */
export interface Logger {
  trace(msg: string): void;
  debug(msg: string): void;
  info(msg: string): void;
  warn(msg: string): void;
  error(msg: string): void;
  /** A logger whose lines carry `[name]` after the level. */
  child(name: string): Logger;
}

export interface LoggerOptions {
  /** Minimum level printed on stderr, or `"off"` for `-q`. */
  terminalLevel: LogLevel | "off";
  /** Every line at trace level is appended here (created 0600), when set. */
  debugLogFile?: string;
  /** Extra sink, used by tests. */
  sink?: (line: string) => void;
}

const pad = (n: number, w = 2) => String(n).padStart(w, "0");

/** `YYYY-MM-DD HH:MM:SS.mmm ±HH:MM` in the server's local zone, as barkd prints it. */
export function logTimestamp(d = new Date()): string {
  const off = -d.getTimezoneOffset();
  const sign = off >= 0 ? "+" : "-";
  const abs = Math.abs(off);
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())} ${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}.${pad(d.getMilliseconds(), 3)} ${sign}${pad(Math.floor(abs / 60))}:${pad(abs % 60)}`;
}

/** Creates the daemon logger: `[timestamp LEVEL] message` on stderr and in `debug.log`. */
export function createLogger(opts: LoggerOptions, scope?: string): Logger {
  if (opts.debugLogFile) closeSync(openSync(opts.debugLogFile, "a", 0o600));
  const minIdx = opts.terminalLevel === "off" ? Infinity : LOG_LEVELS.indexOf(opts.terminalLevel);
  const write = (level: LogLevel, msg: string) => {
    const line = `[${logTimestamp()} ${level.toUpperCase().padEnd(5)}] ${scope ? `[${scope}] ` : ""}${msg}`;
    if (LOG_LEVELS.indexOf(level) >= minIdx) process.stderr.write(line + "\n");
    if (opts.debugLogFile) {
      try {
        appendFileSync(opts.debugLogFile, line + "\n", { mode: 0o600 });
      } catch {
        /* the datadir may be gone (wallet deleted); terminal logging continues */
      }
    }
    opts.sink?.(line);
  };
  return {
    trace: (m) => write("trace", m),
    debug: (m) => write("debug", m),
    info: (m) => write("info", m),
    warn: (m) => write("warn", m),
    error: (m) => write("error", m),
    child: (name) => createLogger(opts, scope ? `${scope}:${name}` : name),
  };
}

/** A logger that drops everything (tests, library use). */
export const silentLogger: Logger = {
  trace() {}, debug() {}, info() {}, warn() {}, error() {},
  child() { return silentLogger; },
};
