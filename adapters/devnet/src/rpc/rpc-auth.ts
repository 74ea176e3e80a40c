import { randomBytes, timingSafeEqual } from "node:crypto";
import { mkdir, rm, writeFile } from "node:fs/promises";
import { dirname } from "node:path";

/** The user name bitcoind writes into its cookie file. */
export const COOKIE_USER = "__cookie__";

/** Writes a fresh `__cookie__:<64 hex>` cookie file (mode 0600) and returns its `user:password`. */
export async function writeCookie(path: string): Promise<string> {
  const pair = `${COOKIE_USER}:${randomBytes(32).toString("hex")}`;
  await mkdir(dirname(path), { recursive: true });
  await writeFile(path, pair, { mode: 0o600 });
  return pair;
}

/** Deletes the cookie file, as bitcoind does on shutdown. */
export async function removeCookie(path: string): Promise<void> {
  await rm(path, { force: true });
}

/** Checks `Authorization: Basic …` headers against the accepted `user:password` pairs. */
export class RpcAuthenticator {
  private readonly accepted: Buffer[];

  constructor(pairs: readonly string[]) {
    this.accepted = pairs.map((p) => Buffer.from(p, "utf8"));
  }

  /** Whether the header carries one of the accepted pairs (constant-time comparison). */
  check(header: string | undefined): boolean {
    if (!header?.startsWith("Basic ")) return false;
    const given = Buffer.from(Buffer.from(header.slice(6).trim(), "base64").toString("utf8"), "utf8");
    let ok = false;
    for (const pair of this.accepted) {
      if (pair.length === given.length && timingSafeEqual(pair, given)) ok = true;
    }
    return ok;
  }
}
