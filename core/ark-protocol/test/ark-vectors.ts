/**
 * Access to `test/vectors/ark-vectors.json` with a ledger of which entries the tests used.
 *
 * An "entry" is a leaf value of the file (string, number, boolean or null) outside the
 * documentation keys (`what`, `provenance`, `field_notes`, `notation`, `meta`, …). Every leaf a
 * test reads through {@link arkVectors} is recorded: inputs feed the code under test and
 * expected values are compared with its output. When the run ends, a root hook prints
 * `ark vectors: N/M checked` and lists the first entries nobody read, so a vector that no test
 * looks at shows up as N < M.
 */
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { dirname, join } from "node:path";

const FILE = join(dirname(fileURLToPath(import.meta.url)), "../../../../test/vectors/ark-vectors.json");
const DOC_KEYS = new Set(["what", "provenance", "field_notes", "notation", "meta", "conventions", "reference", "comment", "note", "notes", "source", "what_it_checks"]);

const raw: unknown = JSON.parse(readFileSync(FILE, "utf8"));
const read = new Set<string>();

function leafPaths(value: unknown, path: string, out: string[]): void {
  if (value !== null && typeof value === "object") {
    for (const [k, v] of Object.entries(value)) {
      if (!Array.isArray(value) && DOC_KEYS.has(k)) continue;
      leafPaths(v, `${path}/${k}`, out);
    }
  } else {
    out.push(path);
  }
}

function track<T>(value: T, path: string): T {
  if (value === null || typeof value !== "object") return value;
  return new Proxy(value as object, {
    get(target, key, receiver) {
      const v = Reflect.get(target, key, receiver) as unknown;
      if (typeof key !== "string") return v;
      if (!Object.prototype.hasOwnProperty.call(target, key)) return v;
      const p = `${path}/${key}`;
      if (v === null || typeof v !== "object") read.add(p);
      return track(v, p);
    },
  }) as T;
}

/** The whole vector file, tracked: every leaf a test reads counts as checked. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export const arkVectors: any = track(raw, "");

/** Marks every leaf under `path` (e.g. `/keys/dummy_user_key`) as checked, for data consumed wholesale (deep-equal comparisons). */
export function markChecked(path: string): void {
  const all: string[] = [];
  let node: unknown = raw;
  for (const part of path.split("/").filter(Boolean)) node = (node as Record<string, unknown>)[part];
  leafPaths(node, path, all);
  for (const p of all) read.add(p);
}

/** `[checked, total, unchecked paths]` over the whole file. */
export function vectorLedger(): { checked: number; total: number; missing: string[] } {
  const all: string[] = [];
  leafPaths(raw, "", all);
  const missing = all.filter((p) => !read.has(p));
  return { checked: all.length - missing.length, total: all.length, missing };
}

after(function () {
  const { checked, total, missing } = vectorLedger();
  console.log(`ark vectors: ${checked}/${total} checked`);
  if (missing.length) console.log(`  unchecked (first 20 of ${missing.length}): ${missing.slice(0, 20).join(", ")}`);
});
