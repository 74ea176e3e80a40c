import type { Logger } from "../log/logger.js";
import { withTimeout } from "../metrics/metrics.js";

/** What one readiness check found. `detail` is for operators: never an address, amount or secret. */
export interface CheckResult {
  ok: boolean;
  detail?: string;
}

/** A readiness check a plugin (or the kernel) adds: the database, the chain source, the Ark server… */
export type ReadinessCheck = () => Promise<CheckResult> | CheckResult;

/** The answer of `GET /readyz`. */
export interface ReadinessReport {
  ready: boolean;
  checks: Record<string, CheckResult>;
}

/** How long one check may take before it counts as failed. */
const CHECK_TIMEOUT_MS = 5_000;

/**
 * The daemon's readiness checks (`GET /readyz`): each is named, runs at every request with a
 * timeout, and the daemon is ready when all pass. A check that throws or times out fails with a
 * generic detail (the error text is logged, not answered: it could name a host or a path).
 */
export class Readiness {
  private readonly checks = new Map<string, ReadinessCheck>();

  constructor(private readonly logger: Logger) {}

  /** Adds a check under a unique name. */
  add(name: string, check: ReadinessCheck): void {
    if (this.checks.has(name)) throw new Error(`readiness check ${name} is already registered`);
    this.checks.set(name, check);
  }

  async report(): Promise<ReadinessReport> {
    const entries = await Promise.all([...this.checks].map(async ([name, check]): Promise<[string, CheckResult]> => {
      try {
        return [name, await withTimeout(Promise.resolve(check()), CHECK_TIMEOUT_MS)];
      } catch (e) {
        this.logger.warn(`readiness check ${name} failed: ${e instanceof Error ? e.message : String(e)}`);
        return [name, { ok: false, detail: "check failed" }];
      }
    }));
    const checks = Object.fromEntries(entries);
    return { ready: entries.every(([, r]) => r.ok), checks };
  }
}
