import { closeSync, openSync, readFileSync, rmSync, writeSync } from "node:fs";
import { join } from "node:path";

/** File name of the daemon's single-instance lock in the datadir. */
export const LOCK_FILE = "tenderd.lock";

/** Another daemon holds the datadir. */
export class DatadirLockedError extends Error {
  constructor(readonly datadir: string, readonly pid: number) {
    super(`another tenderd is already running on datadir ${datadir} (pid ${pid})`);
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === "EPERM";
  }
}

/**
 * An exclusive lock on a datadir recording the holder's PID. A lock left by a dead process
 * (e.g. after kill -9) is taken over.
 */
export class InstanceLock {
  private constructor(private readonly path: string) {}

  static acquire(datadir: string): InstanceLock {
    const path = join(datadir, LOCK_FILE);
    for (let attempt = 0; attempt < 3; attempt++) {
      try {
        const fd = openSync(path, "wx", 0o600);
        writeSync(fd, `${process.pid}\n`);
        closeSync(fd);
        return new InstanceLock(path);
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== "EEXIST") throw e;
      }
      let pid = NaN;
      try {
        pid = Number.parseInt(readFileSync(path, "utf8").trim(), 10);
      } catch {
        /* vanished meanwhile: retry */
      }
      if (Number.isInteger(pid) && pid > 0 && pid !== process.pid && alive(pid)) throw new DatadirLockedError(datadir, pid);
      rmSync(path, { force: true }); // stale
    }
    throw new Error(`could not take the lock ${path}`);
  }

  release(): void {
    try {
      if (readFileSync(this.path, "utf8").trim() === String(process.pid)) rmSync(this.path, { force: true });
    } catch {
      /* already gone */
    }
  }
}
