/**
 * Exponential back-off with equal jitter, as the wallet daemon reconnects: the delay
 * starts at 1 s, doubles per failure up to 30 s, and the actual wait is uniform in `[d/2, d]`.
 */

/** Back-off settings; every field has the spec's default. */
export interface BackoffPolicy {
  /** First delay in ms (default 1000). */
  readonly initialMs?: number;
  /** Largest delay in ms (default 30000). */
  readonly maxMs?: number;
  /** Source of randomness in `[0, 1)` (default `Math.random`); tests pass a fixed one. */
  readonly random?: () => number;
}

/** A running back-off: {@link next} gives the next wait, {@link reset} starts over after progress. */
export class Backoff {
  private failures = 0;
  constructor(private readonly policy: BackoffPolicy = {}) {}

  /** The wait before the next attempt, in ms, and counts one more failure. */
  next(): number {
    const initial = this.policy.initialMs ?? 1000;
    const max = this.policy.maxMs ?? 30_000;
    const d = Math.min(max, initial * 2 ** Math.min(this.failures, 30));
    this.failures++;
    const r = (this.policy.random ?? Math.random)();
    return Math.round(d / 2 + (d / 2) * r);
  }

  /** Forgets past failures (called whenever the remote made progress). */
  reset(): void {
    this.failures = 0;
  }

  /** Failures counted since the last reset. */
  get attempts(): number {
    return this.failures;
  }
}

/** Resolves after `ms`, or early (without error) when `signal` aborts. The timer does not keep the process alive. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const t = setTimeout(done, ms);
    t.unref?.();
    signal?.addEventListener("abort", done, { once: true });
    function done() {
      clearTimeout(t);
      signal?.removeEventListener("abort", done);
      resolve();
    }
  });
}
