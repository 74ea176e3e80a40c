import type { IncomingMessage } from "node:http";
import { AuthToken } from "./auth-token.js";
import { UnauthorizedError } from "./errors.js";

const utf8 = new TextDecoder("utf-8", { fatal: true });

function isUtf8(latin1Value: string): boolean {
  try {
    utf8.decode(Buffer.from(latin1Value, "latin1"));
    return true;
  } catch {
    return false;
  }
}

/**
 * The bearer credential of a request's `Authorization` header(s), throwing {@link UnauthorizedError}
 * with barkd's exact messages when there is none or the headers are malformed. Only the
 * case-sensitive `Bearer ` scheme counts; a second Authorization header after a Bearer one is refused.
 */
export function presentedBearer(req: IncomingMessage): string {
  const values: string[] = [];
  for (let i = 0; i < req.rawHeaders.length; i += 2) {
    if (req.rawHeaders[i]!.toLowerCase() === "authorization") values.push(req.rawHeaders[i + 1]!);
  }
  let presented: string | undefined;
  for (const v of values) {
    if (presented !== undefined) throw new UnauthorizedError("multiple authorization headers are not allowed");
    if (!isUtf8(v)) throw new UnauthorizedError("authorization header is not valid UTF-8");
    if (v.startsWith("Bearer ")) presented = v.slice("Bearer ".length);
  }
  if (presented === undefined) throw new UnauthorizedError("missing auth token");
  return presented;
}

/** Checks the request's bearer token against the configured owner token (barkd's only credential). */
export function checkBearer(req: IncomingMessage, expected: AuthToken): void {
  const token = AuthToken.parse(presentedBearer(req));
  if (!token || !token.equals(expected)) throw new UnauthorizedError("invalid auth token");
}
