import { expect } from "chai";
import { Scheduler, silentLogger } from "../src/index.js";

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe("scheduler", () => {
  it("runs a task repeatedly on its interval", async () => {
    const s = new Scheduler(silentLogger);
    let runs = 0;
    s.add({ name: "t", intervalMs: 10, run: () => { runs++; } });
    s.start();
    await sleep(80);
    await s.stop();
    expect(runs).to.be.greaterThan(3);
  });

  it("after a run that ended well, waits the task's own next delay instead of its interval; after a failed run, or an unusable answer, the interval", async () => {
    const s = new Scheduler(silentLogger);
    const runs = { own: 0, failing: 0, unusable: 0, throwing: 0 };
    s.add({ name: "own", intervalMs: 60_000, nextDelayMs: () => 5, run: () => { runs.own++; } });
    s.add({ name: "failing", intervalMs: 60_000, nextDelayMs: () => 5, run: () => { runs.failing++; throw new Error("boom"); } });
    s.add({ name: "unusable", intervalMs: 60_000, nextDelayMs: () => Number.NaN, run: () => { runs.unusable++; } });
    s.add({ name: "throwing", intervalMs: 60_000, nextDelayMs: () => { throw new Error("no delay"); }, run: () => { runs.throwing++; } });
    s.start();
    await sleep(80);
    await s.stop();
    expect(runs.own).to.be.greaterThan(3);
    expect([runs.failing, runs.unusable, runs.throwing]).to.deep.equal([1, 1, 1]);
  });

  it("keeps other tasks (and the failing one) running when a task throws", async () => {
    const s = new Scheduler(silentLogger);
    let good = 0;
    s.add({ name: "bad", intervalMs: 5, run: () => { throw new Error("boom"); } });
    s.add({ name: "good", intervalMs: 5, run: () => { good++; } });
    s.start();
    await sleep(60);
    await s.stop();
    expect(good).to.be.greaterThan(3);
    expect(s.stats("bad")!.failures).to.be.greaterThan(3);
    expect(s.stats("bad")!.runs).to.equal(s.stats("bad")!.failures);
  });

  it("aborts the signal of a running task on stop and waits for it to end", async () => {
    const s = new Scheduler(silentLogger);
    let sawAbort = false;
    let ended = false;
    s.add({
      name: "long", intervalMs: 1000,
      run: (signal) => new Promise<void>((resolve) => {
        signal.addEventListener("abort", () => { sawAbort = true; setTimeout(() => { ended = true; resolve(); }, 20); });
      }),
    });
    s.start();
    await sleep(10);
    await s.stop();
    expect(sawAbort).to.equal(true);
    expect(ended).to.equal(true);
  });

  it("interrupt aborts the signal of the runs under way and waits for them; the tasks keep their schedule", async () => {
    const logged: string[] = [];
    const s = new Scheduler({ ...silentLogger, warn: (m: string) => { logged.push(m); } } as typeof silentLogger);
    let ended = 0;
    let idleRuns = 0;
    s.add({
      name: "long", intervalMs: 5,
      run: (signal) => new Promise<void>((_, reject) => {
        signal.addEventListener("abort", () => setTimeout(() => { ended++; reject(new Error("aborted")); }, 20));
      }),
    });
    s.add({ name: "idle", intervalMs: 1000, initialDelayMs: 1000, run: () => { idleRuns++; } });
    s.start();
    await sleep(10);
    await s.interrupt();
    expect(ended, "the run under way ended before interrupt answered").to.equal(1);
    expect(idleRuns, "a task not running is not run").to.equal(0);
    expect(logged, "a run failing after its abort is not reported").to.deep.equal([]);
    await sleep(30);
    expect(s.stats("long")!.runs, "the task ran again on its schedule").to.equal(2);
    await s.stop();
    expect(ended).to.equal(2);
  });

  it("never overlaps runs of the same task", async () => {
    const s = new Scheduler(silentLogger);
    let active = 0;
    let maxActive = 0;
    s.add({ name: "slow", intervalMs: 1, run: async () => { active++; maxActive = Math.max(maxActive, active); await sleep(15); active--; } });
    s.start();
    await sleep(70);
    await s.stop();
    expect(maxActive).to.equal(1);
  });

  it("refuses two tasks with the same name", () => {
    const s = new Scheduler(silentLogger);
    s.add({ name: "x", intervalMs: 1, run() {} });
    expect(() => s.add({ name: "x", intervalMs: 1, run() {} })).to.throw("task x is already scheduled");
  });
});
