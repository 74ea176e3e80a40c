import { chmodSync, mkdirSync, statSync } from "node:fs";
import { resolve } from "node:path";

/** Creates the datadir with mode 0700 when missing; returns its absolute path and whether it is too open. */
export function prepareDatadir(path: string): { dir: string; groupOrWorldAccessible: boolean } {
  const dir = resolve(path);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const st = statSync(dir);
  if (!st.isDirectory()) throw new Error(`datadir ${dir} is not a directory`);
  return { dir, groupOrWorldAccessible: (st.mode & 0o077) !== 0 };
}

/** Tightens the datadir to 0700 (used right after we created it). */
export function hardenDatadir(dir: string): void {
  chmodSync(dir, 0o700);
}
