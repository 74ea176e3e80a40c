import { ChainSourceUnavailableError } from "./chain-errors.js";

/** Exponential backoff: attempt n (1-based) waits `initialDelayMs * factor^(n-1)`, capped. */
export interface RetryPolicy {
  /** Total attempts, including the first (1 = no retry). */
  readonly attempts: number;
  readonly initialDelayMs: number;
  readonly maxDelayMs: number;
  readonly factor: number;
}

/** 4 attempts waiting 200, 400, 800 ms in between. */
export const DEFAULT_RETRY_POLICY: RetryPolicy = { attempts: 4, initialDelayMs: 200, maxDelayMs: 2_000, factor: 2 };

/** Delay before retry number `retry` (1 = the wait after the first failure). */
export function backoffDelayMs(policy: RetryPolicy, retry: number): number {
  const raw = policy.initialDelayMs * policy.factor ** Math.max(0, retry - 1);
  return Math.min(policy.maxDelayMs, raw);
}

/** Resolves after `ms` milliseconds. */
export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Options of {@link retryTransient}. */
export interface RetryOptions {
  readonly policy?: RetryPolicy;
  /** Replaces {@link sleep} (tests). */
  readonly sleep?: (ms: number) => Promise<void>;
}

/**
 * Runs `op` until it succeeds, retrying only {@link ChainSourceUnavailableError} (transient by
 * definition) with exponential backoff. Any other error is thrown at once. After the last
 * attempt the unavailable error is rethrown with the attempt count, and counts as not processed
 * only when no attempt can have been carried out.
 *
 * @example
 * const height = await retryTransient(() => fetchTipHeight(), { policy: { ...DEFAULT_RETRY_POLICY, attempts: 2 } });
 */
export async function retryTransient<T>(op: (attempt: number) => Promise<T>, options: RetryOptions = {}): Promise<T> {
  const policy = options.policy ?? DEFAULT_RETRY_POLICY;
  const wait = options.sleep ?? sleep;
  const attempts = Math.max(1, policy.attempts);
  let noneProcessed = true;
  for (let attempt = 1; ; attempt++) {
    try {
      return await op(attempt);
    } catch (err) {
      if (!(err instanceof ChainSourceUnavailableError)) throw err;
      noneProcessed &&= err.notProcessed;
      if (attempt >= attempts) throw err.withAttempts(attempt, noneProcessed);
      await wait(backoffDelayMs(policy, attempt));
    }
  }
}

/**
 * Runs `op` with an abort signal that fires after `timeoutMs`; if the operation has not settled
 * by then, rejects with a {@link ChainSourceUnavailableError} of kind `timeout` naming `source`.
 */
export async function withTimeout<T>(source: string, timeoutMs: number, op: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const controller = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      controller.abort();
      reject(new ChainSourceUnavailableError(source, "timeout", `no answer within ${timeoutMs} ms`));
    }, timeoutMs);
  });
  try {
    return await Promise.race([op(controller.signal), timeout]);
  } finally {
    clearTimeout(timer);
  }
}
