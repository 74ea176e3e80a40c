import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { checkAgainstBarkd } from "./barkd-schemas.js";
import type { DatabaseLocation } from "@tender/core";

/** The repository root (this file is test/dist/src/daemon-process.js). */
export const REPO_ROOT = join(dirname(fileURLToPath(import.meta.url)), "..", "..", "..");
const TENDERD = join(REPO_ROOT, "core", "tenderd", "bin", "tenderd.js");

/** A fresh temporary datadir; removed by `cleanup()`. */
export function tempDatadir(prefix = "tenderd-e2e-"): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

/** Runs `tenderd` to completion (subcommands, refused starts). */
export function runTenderd(args: string[], env: NodeJS.ProcessEnv = {}, timeoutMs = 20_000): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const dd = args[args.indexOf("--datadir") + 1];
    const p = spawn(process.execPath, [TENDERD, ...args], { env: { ...baseEnv(dd), ...env } });
    let stdout = "";
    let stderr = "";
    p.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
    p.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
    const t = setTimeout(() => { p.kill("SIGKILL"); reject(new Error(`tenderd ${args.join(" ")} did not exit\n${stderr}`)); }, timeoutMs);
    p.on("exit", (code) => { clearTimeout(t); resolve({ code, stdout, stderr }); });
  });
}

/**
 * Where a daemon started by this module keeps its wallet database: the end-to-end suite runs on
 * PostgreSQL too when CI provides it (`TENDER_TEST_PG_URL`), one schema per daemon named after
 * its datadir (so a restarted daemon finds its data again); else SQLite in the datadir.
 */
export function daemonDatabase(datadir?: string): DatabaseLocation {
  const url = process.env.TENDER_TEST_PG_URL;
  if (url && process.env.TENDER_E2E_PG !== "0") return { dialect: "postgresql", url, schema: `e2e_${(datadir ?? "none").replace(/[^A-Za-z0-9]/g, "_").slice(-40)}` };
  return { dialect: "sqlite", path: join(datadir ?? ".", "db.sqlite") };
}

function baseEnv(datadir?: string): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { PATH: process.env.PATH, HOME: process.env.HOME, TZ: process.env.TZ };
  const db = daemonDatabase(datadir);
  if (db.dialect === "postgresql") {
    env.TENDER_DATABASE_URL = db.url;
    env.TENDER_DATABASE_SCHEMA = db.schema;
  }
  return env;
}

/** A response as the tests see it. */
export interface ApiResponse {
  status: number;
  headers: Headers;
  text: string;
  json: unknown;
}

/** A running daemon. */
export interface Daemon {
  base: string;
  port: number;
  datadir: string;
  proc: ChildProcess;
  token: string | undefined;
  stderr(): string;
  /** Calls the API with the bearer token (unless `token: null`) and checks JSON bodies against barkd's schemas. */
  api(method: string, path: string, opts?: { body?: unknown; token?: string | null; headers?: Record<string, string> }): Promise<ApiResponse>;
  stop(): Promise<void>;
  kill9(): Promise<void>;
}

/** Starts `tenderd` on a port the OS picks and waits for "Server starting on" (up to `startTimeoutMs`, default 20 s), which reports it. */
export async function startDaemon(opts: { datadir?: string; args?: string[]; env?: NodeJS.ProcessEnv; config?: object; readToken?: boolean; startTimeoutMs?: number } = {}): Promise<Daemon> {
  const datadir = opts.datadir ?? tempDatadir();
  const args = ["--datadir", datadir, "--port", "0", ...(opts.args ?? [])];
  if (opts.config) {
    const file = join(datadir + ".tenderd.json");
    writeFileSync(file, JSON.stringify(opts.config));
    args.push("--config", file);
  }
  const proc = spawn(process.execPath, [TENDERD, ...args], { env: { ...baseEnv(datadir), TENDER_TEST_ANY_PORT: "1", ...opts.env } });
  let err = "";
  proc.stdout!.on("data", () => undefined);
  const port = await new Promise<number>((resolve, reject) => {
    // a daemon that did not start in time is killed: left running, it would outlive the test
    const t = setTimeout(() => { proc.kill("SIGKILL"); reject(new Error(`tenderd did not start:\n${err}`)); }, opts.startTimeoutMs ?? 20_000);
    proc.stderr!.on("data", (d: Buffer) => {
      err += d.toString();
      const listening = /Server starting on http:\/\/[^\s]+:(\d+)/.exec(err);
      if (listening) { clearTimeout(t); resolve(Number(listening[1])); }
    });
    proc.on("exit", (code) => { clearTimeout(t); reject(new Error(`tenderd exited with ${code}:\n${err}`)); });
  });
  proc.removeAllListeners("exit");
  const base = `http://127.0.0.1:${port}`;
  const { readFileSync } = await import("node:fs");
  const token = opts.readToken === false ? undefined : (() => { try { return readFileSync(join(datadir, "auth_token"), "utf8").trim(); } catch { return undefined; } })();
  const exited = new Promise<void>((r) => proc.once("exit", () => r()));
  const daemon: Daemon = {
    base, port, datadir, proc, token,
    stderr: () => err,
    async api(method, path, o = {}) {
      const headers: Record<string, string> = { ...(o.headers ?? {}) };
      const tok = o.token === undefined ? daemon.token : o.token;
      if (tok) headers.Authorization = `Bearer ${tok}`;
      let body: string | undefined;
      if (o.body !== undefined) {
        body = typeof o.body === "string" ? o.body : JSON.stringify(o.body);
        headers["content-type"] ??= "application/json";
      }
      const r = await fetch(base + path, { method, headers, body });
      const text = await r.text();
      let json: unknown;
      if ((r.headers.get("content-type") ?? "").includes("application/json") && text) {
        json = JSON.parse(text);
        if (path.startsWith("/api/v1")) checkAgainstBarkd(method, path, r.status, json);
      }
      return { status: r.status, headers: r.headers, text, json };
    },
    async stop() {
      if (proc.exitCode === null && proc.signalCode === null) proc.kill("SIGTERM");
      await exited;
    },
    async kill9() {
      if (proc.exitCode === null && proc.signalCode === null) proc.kill("SIGKILL");
      await exited;
    },
  };
  return daemon;
}

/** Removes a temporary datadir (and its side config file). */
export function cleanup(datadir: string): void {
  // retried: a daemon still stopping may create or remove files (SQLite's -wal/-shm) during the removal
  rmSync(datadir, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
  rmSync(datadir + ".tenderd.json", { force: true });
}
