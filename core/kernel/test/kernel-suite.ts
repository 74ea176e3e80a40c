/**
 * The set-up of the kernel tests that talk to a started kernel over HTTP, once on SQLite and once
 * on PostgreSQL (when `TENDER_TEST_PG_URL` is set; each suite gets its own schema).
 */
import { rmSync } from "node:fs";
import { join } from "node:path";
import type { Context } from "mocha";
import { Kernel, silentLogger, type AuthToken, type DaemonConfig, type DatabaseLocation, type TenderPlugin } from "../src/index.js";

/** A daemon configuration for a kernel under test: port 0, quiet, no plugins of its own. */
export const testDaemonConfig = (): DaemonConfig => ({
  datadir: "/nonexistent", port: 0, host: "127.0.0.1", allowedOrigins: [], exposeMnemonic: false, noAuth: false,
  dangerouslyAllowRemoteNoAuth: false, verbose: false, quiet: true, plugins: [], pluginConfig: {}, databaseSchema: "tender",
});

/** Where a suite's database lives, given its temporary directory; `undefined` when that database is not available. */
export type SuiteLocation = (dir: string) => DatabaseLocation | undefined;

/** Runs `suite` on SQLite and on PostgreSQL (schema `<schemaPrefix>_<pid>_<time>`). */
export function onBothDatabases(schemaPrefix: string, suite: (name: string, location: SuiteLocation) => void): void {
  suite("SQLite", (dir) => ({ dialect: "sqlite", path: join(dir, "db.sqlite") }));
  suite("PostgreSQL", () => {
    const url = process.env.TENDER_TEST_PG_URL;
    return url ? { dialect: "postgresql", url, schema: `${schemaPrefix}_${process.pid}_${Date.now()}` } : undefined;
  });
}

/** A started kernel, its database and its base URL. */
export interface KernelOverHttp {
  kernel: Kernel;
  loc: DatabaseLocation;
  base: string;
}

/**
 * Loads a kernel with `plugins`, opens its database at `location(dir)` and starts its HTTP host;
 * skips the calling suite (`ctx`, a `before` hook's `this`) when that database is not available.
 */
export async function startKernelOverHttp(
  ctx: Context, location: SuiteLocation, dir: string, plugins: TenderPlugin[], authToken: AuthToken,
): Promise<KernelOverHttp> {
  const loc = location(dir);
  if (!loc) {
    console.log(`    PostgreSQL suite skipped: TENDER_TEST_PG_URL is not set`);
    ctx.skip();
  }
  const kernel = new Kernel({ config: testDaemonConfig(), plugins, logger: silentLogger, authToken });
  await kernel.load();
  await kernel.database.open(loc);
  return { kernel, loc, base: `http://127.0.0.1:${(await kernel.start()).port}` };
}

/** Stops the kernel (if it started), drops its database and removes `dir`. */
export async function stopKernelOverHttp(k: Partial<KernelOverHttp>, dir: string): Promise<void> {
  if (k.kernel && k.loc) {
    await k.kernel.stop();
    await k.kernel.database.destroy(k.loc);
  }
  rmSync(dir, { recursive: true, force: true });
}
