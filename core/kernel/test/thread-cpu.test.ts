/**
 * The bench's per-thread CPU time: work done on a worker thread is counted for that thread, not
 * for the thread that reads, and a snapshot pair gives what each thread spent in between.
 */
import { expect } from "chai";
import { existsSync } from "node:fs";
import { Worker } from "node:worker_threads";
import { threadCpuByKind, threadCpuSnapshot, threadCpuSpent } from "../src/bench/thread-cpu.js";

/** A worker that keeps a core busy for `ms`, then tells its OS thread id and exits. */
const BUSY_WORKER = `
const { parentPort, workerData } = require("node:worker_threads");
const { readlinkSync } = require("node:fs");
const end = Date.now() + workerData.ms;
let x = 0;
while (Date.now() < end) x += Math.sqrt(x + 1);
parentPort.postMessage(Number(readlinkSync("/proc/thread-self").split("/").at(-1)));
setTimeout(() => {}, 2000); // stays alive until terminated, so the reader sees its count
`;

describe("bench: CPU time per thread", () => {
  it("counts a worker thread's busy time for that thread, from the outside", async function () {
    if (!existsSync("/proc/self/task")) {
      console.log("    (skipped: no /proc/self/task on this system; the snapshot is empty there)");
      return this.skip();
    }
    // the main thread works first: what it did before the first snapshot is not counted after it
    const end = Date.now() + 300;
    let x = 0;
    while (Date.now() < end) x += Math.sqrt(x + 1);
    const before = threadCpuSnapshot();
    expect(before.get(process.pid)?.name, "the main thread is listed").to.be.a("string");
    expect(before.get(process.pid)!.ms).to.be.greaterThan(250);
    const worker = new Worker(BUSY_WORKER, { eval: true, workerData: { ms: 300 } });
    try {
      const tid = await new Promise<number>((resolve, reject) => worker.once("message", resolve).once("error", reject));
      const spent = threadCpuSpent(before, threadCpuSnapshot());
      const busy = spent.find((t) => t.tid === tid);
      expect(busy, "the busy worker's thread").to.not.equal(undefined);
      expect(busy!.ms).to.be.greaterThan(200);
      // the main thread only waited meanwhile
      expect(spent.find((t) => t.tid === process.pid)?.ms ?? 0).to.be.lessThan(100);
    } finally {
      await worker.terminate();
    }
  });

  it("counts nothing between two snapshots of an idle thread, and a thread started in between from zero", () => {
    const a = threadCpuSnapshot();
    const spent = threadCpuSpent(a, a);
    expect(spent).to.deep.equal([]);
    const b = new Map(a);
    b.set(999_999_999, { tid: 999_999_999, name: "new", ms: 5 });
    expect(threadCpuSpent(a, b)).to.deep.equal([{ tid: 999_999_999, name: "new", ms: 5 }]);
  });

  it("reads another process's threads by its pid, and sorts a process's threads by kind", function () {
    if (!existsSync("/proc/self/task")) {
      console.log("    (skipped: no /proc/self/task on this system)");
      return this.skip();
    }
    const mine = threadCpuSnapshot(process.pid);
    expect([...mine.keys()]).to.include(process.pid);
    expect(threadCpuSnapshot(2 ** 30).size, "a process that does not exist").to.equal(0);
    const kinds = threadCpuByKind([
      { tid: 10, name: "MainThread", ms: 5 },
      { tid: 11, name: "V8Worker", ms: 2 },
      { tid: 12, name: "V8Worker", ms: 1 },
      { tid: 13, name: "libuv-worker", ms: 0.5 },
      { tid: 14, name: "WorkerThread", ms: 3 },
    ], 10);
    expect(kinds).to.deep.equal({ main: 5, v8: 3, libuv: 0.5, other: 3 });
  });
});
