/**
 * CPU time of every thread of this process, from Linux's `/proc/self/task/<tid>/schedstat` (time
 * on a CPU in ns, as the scheduler counts it). Benches read it around a burst, from the outside of
 * the threads they measure: a thread's own `process.threadCpuUsage()` reads a count the kernel
 * brings up to date only at a scheduler tick or a switch, so over a piece of work shorter than a
 * tick (a signature on a worker thread) it reads too little — often nothing.
 *
 * @example
 * ```ts
 * const before = threadCpuSnapshot();
 * await burst();
 * const spent = threadCpuSpent(before, threadCpuSnapshot()); // ms per thread over the burst
 * ```
 */
import { readdirSync, readFileSync } from "node:fs";

/** One thread's CPU time so far. */
export interface ThreadCpu {
  readonly tid: number;
  /** The thread's name (`MainThread`, `WorkerThread`, `V8Worker`, `libuv-worker`, …). */
  readonly name: string;
  readonly ms: number;
}

/** Every thread's CPU time so far, by thread id; empty where `/proc` does not tell (not Linux). */
export function threadCpuSnapshot(): Map<number, ThreadCpu> {
  const out = new Map<number, ThreadCpu>();
  let tids: string[];
  try {
    tids = readdirSync("/proc/self/task");
  } catch {
    return out;
  }
  for (const t of tids) {
    try {
      const name = readFileSync(`/proc/self/task/${t}/comm`, "utf8").trim();
      const ns = Number(readFileSync(`/proc/self/task/${t}/schedstat`, "utf8").split(" ")[0]);
      if (Number.isFinite(ns)) out.set(Number(t), { tid: Number(t), name, ms: ns / 1e6 });
    } catch {
      // the thread ended between the listing and the read
    }
  }
  return out;
}

/** CPU ms each thread spent between two snapshots (threads started meanwhile count from zero). */
export function threadCpuSpent(before: Map<number, ThreadCpu>, after: Map<number, ThreadCpu>): ThreadCpu[] {
  return [...after.values()].map((t) => ({ ...t, ms: t.ms - (before.get(t.tid)?.ms ?? 0) })).filter((t) => t.ms > 0);
}
