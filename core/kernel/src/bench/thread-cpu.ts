/**
 * CPU time of every thread of a process (this one by default), from Linux's
 * `/proc/<pid>/task/<tid>/schedstat` (time on a CPU in ns, as the scheduler counts it). Benches read it around a burst, from the outside of
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

/**
 * Every thread's CPU time so far, by thread id, of process `pid` (this one by default); empty where
 * `/proc` does not tell (not Linux, or the process is gone).
 */
export function threadCpuSnapshot(pid: number | "self" = "self"): Map<number, ThreadCpu> {
  const out = new Map<number, ThreadCpu>();
  const dir = `/proc/${pid}/task`;
  let tids: string[];
  try {
    tids = readdirSync(dir);
  } catch {
    return out;
  }
  for (const t of tids) {
    try {
      const name = readFileSync(`${dir}/${t}/comm`, "utf8").trim();
      const ns = Number(readFileSync(`${dir}/${t}/schedstat`, "utf8").split(" ")[0]);
      if (Number.isFinite(ns)) out.set(Number(t), { tid: Number(t), name, ms: ns / 1e6 });
    } catch {
      // the thread ended between the listing and the read
    }
  }
  return out;
}

/**
 * What a process's threads spent by kind: its main thread (the one whose id is the process's),
 * V8's own threads (`V8…`: garbage collection, optimizing compiler), libuv's pool (`libuv…`: file
 * syncs, DNS) and the rest (worker threads).
 */
export function threadCpuByKind(spent: readonly ThreadCpu[], pid: number): { main: number; v8: number; libuv: number; other: number } {
  const out = { main: 0, v8: 0, libuv: 0, other: 0 };
  for (const t of spent) {
    if (t.tid === pid) out.main += t.ms;
    else if (t.name.startsWith("V8")) out.v8 += t.ms;
    else if (t.name.startsWith("libuv")) out.libuv += t.ms;
    else out.other += t.ms;
  }
  return out;
}

/** CPU ms each thread spent between two snapshots (threads started meanwhile count from zero). */
export function threadCpuSpent(before: Map<number, ThreadCpu>, after: Map<number, ThreadCpu>): ThreadCpu[] {
  return [...after.values()].map((t) => ({ ...t, ms: t.ms - (before.get(t.tid)?.ms ?? 0) })).filter((t) => t.ms > 0);
}
