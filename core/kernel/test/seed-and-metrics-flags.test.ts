import { expect } from "chai";
import { writeFileSync, rmSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ConfigError, parseCommandLine, type DaemonConfig } from "../src/index.js";

const serve = (argv: string[], env: NodeJS.ProcessEnv = {}): DaemonConfig => {
  const c = parseCommandLine(argv, env);
  if (c.kind !== "serve") throw new Error(`expected serve, got ${c.kind}`);
  return c.config;
};

describe("--encrypt-seed and --metrics-public", () => {
  it("are off by default and set by the flag, the TENDER_* variable or the config file", () => {
    expect(serve([])).to.include({ encryptSeed: false, metricsPublic: false });
    expect(serve(["--encrypt-seed", "--metrics-public"])).to.include({ encryptSeed: true, metricsPublic: true });
    expect(serve([], { TENDER_ENCRYPT_SEED: "1", TENDER_METRICS_PUBLIC: "true" })).to.include({ encryptSeed: true, metricsPublic: true });
    const dir = mkdtempSync(join(tmpdir(), "tender-flags-"));
    try {
      const file = join(dir, "c.json");
      writeFileSync(file, JSON.stringify({ encryptSeed: true, metricsPublic: true }));
      expect(serve(["--config", file])).to.include({ encryptSeed: true, metricsPublic: true });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("refuses a value that is not boolish", () => {
    expect(() => serve([], { TENDER_ENCRYPT_SEED: "maybe" })).to.throw(ConfigError, "TENDER_ENCRYPT_SEED");
  });
});
