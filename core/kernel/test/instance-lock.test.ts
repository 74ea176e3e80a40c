import { expect } from "chai";
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DatadirLockedError, InstanceLock, LOCK_FILE } from "../src/index.js";

const hasProcfs = existsSync("/proc/self/stat");
const state = (pid: number) => {
  const t = readFileSync(`/proc/${pid}/stat`, "utf8");
  return t.slice(t.lastIndexOf(")") + 2).split(" ")[0];
};

describe("instance lock", function () {
  const children: ChildProcess[] = [];
  let dir: string;
  beforeEach(() => { dir = mkdtempSync(join(tmpdir(), "tender-lock-")); });
  afterEach(() => {
    for (const c of children.splice(0)) c.kill("SIGKILL");
    rmSync(dir, { recursive: true, force: true });
  });
  const lockedBy = (pid: number, writtenAt?: Date) => {
    writeFileSync(join(dir, LOCK_FILE), `${pid}\n`);
    if (writtenAt) utimesSync(join(dir, LOCK_FILE), writtenAt, writtenAt);
  };
  /** A `sleep` process; its PID. */
  const sleeper = async (): Promise<number> => {
    const c = spawn("sleep", ["30"], { stdio: "ignore" });
    children.push(c);
    await new Promise((r) => c.once("spawn", r));
    return c.pid!;
  };

  it("refuses the datadir while the holder runs, naming its PID", async () => {
    const pid = await sleeper();
    lockedBy(pid);
    expect(() => InstanceLock.acquire(dir)).to.throw(DatadirLockedError, `(pid ${pid})`);
  });

  it("takes over the lock of a holder killed with -9 that is still a zombie", async function () {
    if (!hasProcfs) {
      console.log("      skipped: no procfs on this machine to tell a zombie from a running process");
      return this.skip();
    }
    // `sleep 0` exits at once; its parent becomes `sleep 30` (exec) and never reaps it: a zombie
    const parent = spawn("sh", ["-c", "sleep 0 & echo $!; exec sleep 30"], { stdio: ["ignore", "pipe", "ignore"] });
    children.push(parent);
    const zombie = Number((await new Promise<Buffer>((r) => parent.stdout!.once("data", r))).toString().trim());
    for (let i = 0; i < 100 && state(zombie) !== "Z"; i++) await new Promise((r) => setTimeout(r, 20));
    expect(state(zombie)).to.equal("Z");
    lockedBy(zombie);
    InstanceLock.acquire(dir).release();
  });

  it("takes over a lock whose PID now names a process started after the lock was written", async function () {
    if (!hasProcfs) {
      console.log("      skipped: no procfs on this machine to read process start times");
      return this.skip();
    }
    const pid = await sleeper();
    lockedBy(pid, new Date(Date.now() - 3_600_000)); // written an hour before that process started
    const lock = InstanceLock.acquire(dir);
    expect(readFileSync(join(dir, LOCK_FILE), "utf8").trim()).to.equal(String(process.pid));
    lock.release();
    expect(existsSync(join(dir, LOCK_FILE))).to.equal(false);
  });
});
