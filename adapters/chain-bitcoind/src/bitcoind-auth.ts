import { readFile } from "node:fs/promises";
import { ChainSourceUnavailableError } from "@tender/core";

/** The contents of bitcoind's cookie file. */
const COOKIE = /^__cookie__:[0-9a-fA-F]{64}$/;

/** How to authenticate to bitcoind's RPC: its cookie file, or `rpcuser`/`rpcpassword`. */
export type BitcoindAuth =
  | { readonly cookieFile: string }
  | { readonly user: string; readonly password: string };

/**
 * Produces the `Authorization` header. A cookie file is read on first use and again after an
 * authentication failure, since bitcoind writes a new cookie on every start.
 */
export class BitcoindCredentials {
  private cached: string | null = null;

  constructor(
    private readonly label: string,
    private readonly auth: BitcoindAuth,
  ) {}

  /** `Basic …` header value. */
  async header(): Promise<string> {
    if (this.cached) return this.cached;
    const pair = "cookieFile" in this.auth ? await this.readCookie(this.auth.cookieFile) : `${this.auth.user}:${this.auth.password}`;
    this.cached = `Basic ${Buffer.from(pair, "utf8").toString("base64")}`;
    return this.cached;
  }

  /** Forgets a cached cookie; returns whether re-reading could help. */
  invalidate(): boolean {
    this.cached = null;
    return "cookieFile" in this.auth;
  }

  private async readCookie(path: string): Promise<string> {
    let text: string;
    try {
      text = await readFile(path, "utf8");
    } catch (err) {
      // No cookie usually means bitcoind is not running (it deletes the file on shutdown).
      throw new ChainSourceUnavailableError(this.label, "connection", `cookie file ${path} is not readable`, 1, { cause: err, notProcessed: true });
    }
    const line = text.trim();
    // Bitcoin Core writes `__cookie__:<64 hex>`. Anything else is not sent: the path comes from the
    // wallet's configuration, and another file's contents must never leave as credentials.
    if (!COOKIE.test(line)) {
      throw new ChainSourceUnavailableError(this.label, "connection", `cookie file ${path} does not hold a bitcoind cookie (__cookie__:<64 hex digits>)`, 1, { notProcessed: true });
    }
    return line;
  }
}
