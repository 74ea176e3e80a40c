/**
 * `npm run bench`: finds every compiled benchmark file (`<package>/dist/test/bench/*.bench.js`),
 * runs them one after another and prints each result as a table.
 *
 * A benchmark file default-exports `async () => BenchReport`.
 */
import { readdirSync, existsSync } from "node:fs";
import { join, dirname } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

import type { BenchReport } from "@tender/core";

function benchFiles(root: string): string[] {
  const dirs = ["test", ...["core", "adapters", "plugins"].flatMap((g) =>
    existsSync(join(root, g)) ? readdirSync(join(root, g)).map((d) => join(g, d)) : [])];
  return dirs.flatMap((d) => {
    const b = join(root, d, "dist", "test", "bench");
    return existsSync(b) ? readdirSync(b).filter((f) => f.endsWith(".bench.js")).map((f) => join(b, f)) : [];
  });
}

function printTable(report: BenchReport): void {
  const fmt = (x: number) => x >= 100 ? Math.round(x).toLocaleString("en-US") : x.toFixed(2);
  const w1 = Math.max(9, ...report.rows.map((r) => r.name.length));
  const w2 = Math.max(5, ...report.rows.map((r) => fmt(r.opsPerSec).length));
  console.log(`\n${report.title}`);
  console.log(`| ${"operation".padEnd(w1)} | ${"ops/s".padStart(w2)} | note`);
  console.log(`|${"-".repeat(w1 + 2)}|${"-".repeat(w2 + 2)}|------`);
  for (const r of report.rows) console.log(`| ${r.name.padEnd(w1)} | ${fmt(r.opsPerSec).padStart(w2)} | ${r.note ?? ""}`);
}

async function main(): Promise<void> {
  const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..", "..", "..");
  const files = benchFiles(root);
  if (files.length === 0) console.log("no benchmarks found");
  for (const f of files) {
    const mod = (await import(pathToFileURL(f).href)) as { default: () => Promise<BenchReport> };
    printTable(await mod.default());
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  main().catch((e: unknown) => { console.error(e); process.exit(1); });
}
