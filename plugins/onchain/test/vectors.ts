import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

/** `test/vectors` of the repository (this file is plugins/onchain/dist/test/vectors.js). */
const VECTORS = join(dirname(fileURLToPath(import.meta.url)), "..", "..", "..", "..", "test", "vectors");

export function readVector<T>(rel: string): T {
  return JSON.parse(readFileSync(join(VECTORS, rel), "utf8")) as T;
}
