import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { AuthToken } from "../http/auth-token.js";
import { writeFileAtomic } from "./files.js";

/** File name of the API token in the datadir. */
export const TOKEN_FILE = "auth_token";

/** Reads the datadir's token; `undefined` when there is none. Throws when the file is not a valid token. */
export function readTokenFile(datadir: string): AuthToken | undefined {
  const path = join(datadir, TOKEN_FILE);
  if (!existsSync(path)) return undefined;
  const token = AuthToken.parse(readFileSync(path, "utf8"));
  if (!token) throw new Error(`the token file ${path} does not hold a valid token`);
  return token;
}

/** Writes `token` to the datadir atomically, mode 0600. */
export function writeTokenFile(datadir: string, token: AuthToken): void {
  writeFileAtomic(join(datadir, TOKEN_FILE), token.encode() + "\n", 0o600);
}

/** The token to serve with: the existing file's, or a new one written now (`created` tells which). */
export function loadOrCreateToken(datadir: string): { token: AuthToken; created: boolean } {
  const existing = readTokenFile(datadir);
  if (existing) return { token: existing, created: false };
  const token = AuthToken.generate();
  writeTokenFile(datadir, token);
  return { token, created: true };
}
