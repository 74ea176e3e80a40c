/** Helpers shared by every package's benchmark files (`test/bench/*.bench.ts`). */
/** One measured operation. */
export interface BenchRow { name: string; opsPerSec: number; note?: string }
/** What a benchmark file reports: a titled table of rows. */
export interface BenchReport { title: string; rows: BenchRow[] }

/**
 * Runs `fn` repeatedly for at least `minMs` (after one warm-up call) and returns operations per
 * second. `fn` may be async; it is awaited each time.
 */
export async function measure(fn: () => unknown, minMs = 1000): Promise<number> {
  await fn();
  let n = 0;
  const start = process.hrtime.bigint();
  let elapsed = 0;
  while (elapsed < minMs) {
    await fn();
    n++;
    elapsed = Number(process.hrtime.bigint() - start) / 1e6;
  }
  return (n * 1000) / elapsed;
}
