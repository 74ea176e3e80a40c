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

describe("--audit-retention-days", () => {
  it("is unset by default (the kernel keeps 90 days) and set by the flag, TENDER_AUDIT_RETENTION_DAYS or the config file, flag first", () => {
    expect(serve([])).to.not.have.property("auditRetentionDays");
    expect(serve(["--audit-retention-days", "7"])).to.include({ auditRetentionDays: 7 });
    expect(serve([], { TENDER_AUDIT_RETENTION_DAYS: "0" })).to.include({ auditRetentionDays: 0 });
    expect(serve(["--audit-retention-days", "3"], { TENDER_AUDIT_RETENTION_DAYS: "5" })).to.include({ auditRetentionDays: 3 });
    const dir = mkdtempSync(join(tmpdir(), "tender-flags-"));
    try {
      const file = join(dir, "c.json");
      writeFileSync(file, JSON.stringify({ auditRetentionDays: 30 }));
      expect(serve(["--config", file])).to.include({ auditRetentionDays: 30 });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("refuses what is not a whole number of days up to 100 years, naming the setting", () => {
    for (const bad of ["-1", "1.5", "ten", ""]) expect(() => serve([`--audit-retention-days=${bad}`]), bad).to.throw(ConfigError, "audit retention");
    expect(() => serve([], { TENDER_AUDIT_RETENTION_DAYS: "36501" })).to.throw(ConfigError, "audit retention");
  });
});
