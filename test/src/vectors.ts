import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { dirname, join } from "node:path";

/** Absolute path of the repository's `test/vectors` folder. */
export const VECTORS_DIR = join(dirname(fileURLToPath(import.meta.url)), "..", "..", "vectors");

/** Reads and parses a JSON vector file, `relPath` relative to `test/vectors`. */
export function readVectorJson<T = unknown>(relPath: string): T {
  return JSON.parse(readFileSync(join(VECTORS_DIR, relPath), "utf8")) as T;
}

/** Reads a text vector file (e.g. the BIP-340 CSV), `relPath` relative to `test/vectors`. */
export function readVectorText(relPath: string): string {
  return readFileSync(join(VECTORS_DIR, relPath), "utf8");
}
