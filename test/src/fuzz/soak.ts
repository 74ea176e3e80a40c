/**
 * `npm run fuzz` (in test/): the REST fuzz as a soak run on its own devnet. Environment:
 * FUZZ_REQUESTS (default 20000), FUZZ_SEED (default: random, printed), FUZZ_TIME_LIMIT_S
 * (default 1800), FUZZ_KEEP_GOING=1 to collect every violation instead of stopping at the first.
 * Exits 1 when a violation was found.
 */
import { pathToFileURL } from "node:url";
import { arkServer } from "@tender/devnet";
import { formatReport, runFuzz } from "./runner.js";
import { startFuzzTarget } from "./target.js";

async function main(): Promise<number> {
  const requests = Number(process.env.FUZZ_REQUESTS ?? 20_000);
  const seed = process.env.FUZZ_SEED ? Number(process.env.FUZZ_SEED) : Math.floor(Math.random() * 2 ** 31);
  const timeLimitMs = Number(process.env.FUZZ_TIME_LIMIT_S ?? 1_800) * 1000;
  const devnet = await arkServer.startDevnetWithArk({ seed: `tender-rest-fuzz-${seed}`, ark: { profile: "test" } });
  try {
    const target = await startFuzzTarget(devnet);
    try {
      const report = await runFuzz(target, { seed, requests, timeLimitMs, keepGoing: process.env.FUZZ_KEEP_GOING === "1" });
      for (const line of formatReport(report)) console.log(line);
      if (report.failure) console.log(`\n${report.failure}`);
      return report.failure || report.violations.length ? 1 : 0;
    } finally {
      await target.stop();
    }
  } finally {
    await devnet.stop();
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  main().then((code) => process.exit(code), (e: unknown) => { console.error(e); process.exit(1); });
}
