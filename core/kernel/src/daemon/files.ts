import { closeSync, fsyncSync, openSync, renameSync, writeFileSync, rmSync } from "node:fs";
import { basename, dirname, join } from "node:path";

let tmpCounter = 0;

/** Name of the temp file used while writing `path` atomically (`.<name>.temp.<pid>.<n>.tmp`). */
export function atomicTempName(path: string): string {
  return join(dirname(path), `.${basename(path)}.temp.${process.pid}.${tmpCounter++}.tmp`);
}

/** Whether a datadir entry name is one of our atomic-write temp files. */
export function isAtomicTempName(name: string): boolean {
  return /^\..+\.temp\.\d+\.\d+\.tmp$/.test(name);
}

/** Fsyncs a directory so a rename in it is durable. */
export function fsyncDir(dir: string): void {
  const fd = openSync(dir, "r");
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/**
 * Writes `data` to `path` atomically and durably: temp file (created with `mode`), fsync, rename,
 * fsync of the directory. A crash leaves either the old content or the new one.
 */
export function writeFileAtomic(path: string, data: string | Uint8Array, mode = 0o600): void {
  const tmp = atomicTempName(path);
  try {
    const fd = openSync(tmp, "wx", mode);
    try {
      writeFileSync(fd, data);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(tmp, path);
    fsyncDir(dirname(path));
  } catch (e) {
    rmSync(tmp, { force: true });
    throw e;
  }
}
