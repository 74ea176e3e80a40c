/**
 * The REST fuzz in `npm test`: a few thousand seeded requests over every operation the daemon
 * serves (from its served OpenAPI document), against a funded wallet on the shared devnet.
 * Every answer must be one barkd gives — documented status, no undocumented 5xx, barkd's error
 * shapes — and no refused request may change the wallet's state. FUZZ_SEED and FUZZ_REQUESTS
 * override the fixed seed and the count, FUZZ_VERBOSE=1 prints the answers per operation;
 * `npm run fuzz` (in test/) is the longer soak.
 */
import { expect } from "chai";
import { formatReport, runFuzz } from "../src/fuzz/runner.js";
import { startFuzzTarget, type FuzzTarget } from "../src/fuzz/target.js";
import { sharedDevnet } from "../src/shared-devnet.js";

const SEED = Number(process.env.FUZZ_SEED ?? 16_011);
const REQUESTS = Number(process.env.FUZZ_REQUESTS ?? 3_000);

describe("REST fuzz: seeded, schema-driven requests over every served operation (barkd's statuses and error shapes, no state change from a refused request)", function () {
  this.timeout(300_000);
  let target: FuzzTarget | undefined;

  before(async () => {
    target = await startFuzzTarget(await sharedDevnet());
  });
  after(async () => {
    await target?.stop();
  });

  it(`answers ${REQUESTS} fuzzed requests (seed ${SEED}) as barkd would, and refused requests change nothing`, async () => {
    const report = await runFuzz(target!, { seed: SEED, requests: REQUESTS, timeLimitMs: 150_000, log: (l) => console.log(`      ${l}`) });
    // answers per operation with FUZZ_VERBOSE=1 or when the run fails
    for (const line of formatReport(report, !report.failure && process.env.FUZZ_VERBOSE !== "1")) console.log(`      ${line}`);
    if (report.failure) expect.fail(`seed ${SEED}: ${report.failure}`);
    expect(report.operations, "operations in the served document").to.be.greaterThan(30);
    // excluded requests and known issues skipped before sending are drawn but not sent
    const notSent = [...report.excluded.values(), ...report.known.values()].reduce((n, e) => n + e.count, 0);
    expect(report.requests + notSent, "requests drawn before the time limit").to.be.at.least(Math.min(REQUESTS, 1_500));
    expect(report.stateChecks, "refused state-changing requests checked").to.be.at.least(Math.min(100, REQUESTS / 20));
  });
});
