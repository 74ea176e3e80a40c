import { closeSync, existsSync, openSync, readFileSync, rmSync, statSync, writeSync } from "node:fs";
import { join } from "node:path";

/** File name of the daemon's single-instance lock in the datadir. */
export const LOCK_FILE = "tenderd.lock";

/** Another daemon holds the datadir. */
export class DatadirLockedError extends Error {
  constructor(readonly datadir: string, readonly pid: number) {
    super(`another tenderd is already running on datadir ${datadir} (pid ${pid})`);
  }
}

/** A process as procfs shows it: its state letter and when it started (ms since the epoch). */
interface ProcStat {
  readonly state: string;
  readonly startedAtMs: number;
}

/** Clock ticks per second of procfs times (USER_HZ, 100 on Linux). */
const USER_HZ = 100;

function bootTimeMs(): number {
  const line = readFileSync("/proc/stat", "utf8").split("\n").find((l) => l.startsWith("btime "));
  return Number(line?.slice(6)) * 1000;
}

/** `/proc/<pid>/stat` of a process, or `undefined` when there is none (or no procfs). */
function procStat(pid: number): ProcStat | undefined {
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/stat`, "utf8");
  } catch {
    return undefined;
  }
  // "pid (comm) state ppid …": comm may hold spaces and parentheses, so fields start after the last ')'
  const fields = text.slice(text.lastIndexOf(")") + 2).split(" ");
  return { state: fields[0] ?? "", startedAtMs: bootTimeMs() + (Number(fields[19]) * 1000) / USER_HZ };
}

function signalable(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === "EPERM";
  }
}

/**
 * Whether the process that wrote a lock (at `writtenAtMs`) still runs. Where procfs exists, a
 * zombie (killed, not yet reaped) does not count, and neither does a process that got the same PID
 * after the lock was written (the writer started before writing it). Elsewhere: whether the PID
 * can be signalled.
 */
function holderRuns(pid: number, writtenAtMs: number): boolean {
  const stat = procStat(pid);
  // 1 s of slack for the clock-tick rounding of start times
  if (stat) return stat.state !== "Z" && stat.state !== "X" && stat.startedAtMs <= writtenAtMs + 1_000;
  if (existsSync("/proc/self/stat")) return false;
  return signalable(pid);
}

/**
 * An exclusive lock on a datadir recording the holder's PID. A lock whose holder no longer runs
 * (killed with -9, even while it is still a zombie, or whose PID now names a process started after
 * the lock was written) is taken over. Node has no `flock` without a native addon (and installs
 * here run without build scripts), hence this check of the holder instead of a lock the kernel
 * drops when the process dies.
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
      let writtenAtMs = 0;
      try {
        pid = Number.parseInt(readFileSync(path, "utf8").trim(), 10);
        writtenAtMs = statSync(path).mtimeMs;
      } catch {
        /* vanished meanwhile: retry */
      }
      if (Number.isInteger(pid) && pid > 0 && pid !== process.pid && holderRuns(pid, writtenAtMs)) throw new DatadirLockedError(datadir, pid);
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
