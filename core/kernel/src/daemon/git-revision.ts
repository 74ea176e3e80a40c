import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

/**
 * The git commit the daemon runs from (short hash), read from the repository's `.git` when the
 * daemon runs from a checkout; `TENDER_GIT_HASH` overrides it (packaged builds); `unknown` otherwise.
 */
export function gitRevision(): string {
  if (process.env.TENDER_GIT_HASH) return process.env.TENDER_GIT_HASH;
  try {
    let dir = dirname(fileURLToPath(import.meta.url));
    for (let i = 0; i < 8 && !existsSync(join(dir, ".git")); i++) dir = dirname(dir);
    const git = join(dir, ".git");
    if (!existsSync(git)) return "unknown";
    const head = readFileSync(join(git, "HEAD"), "utf8").trim();
    if (!head.startsWith("ref: ")) return head.slice(0, 12);
    const ref = head.slice(5);
    const loose = join(git, ref);
    if (existsSync(loose)) return readFileSync(loose, "utf8").trim().slice(0, 12);
    const packed = readFileSync(join(git, "packed-refs"), "utf8").split("\n").find((l) => l.endsWith(` ${ref}`));
    return packed ? packed.slice(0, 12) : "unknown";
  } catch {
    return "unknown";
  }
}
