import { isIP } from "node:net";
import type { NextFunction, Request, Response } from "express";

/**
 * Whether a `Host` header names this daemon: an IP literal (any port), `localhost`, or a name the
 * operator allowed. A web page that points its own domain at 127.0.0.1 (DNS rebinding) sends its
 * domain as the Host, and is refused.
 */
export function isAllowedHost(host: string | undefined, allowedNames: readonly string[]): boolean {
  if (!host) return false;
  const h = host.trim().toLowerCase();
  const bracketed = /^\[([^\]]+)\](?::\d{1,5})?$/.exec(h);
  if (bracketed) return isIP(bracketed[1]!) === 6;
  const name = h.replace(/:\d{1,5}$/, "");
  if (name.includes(":")) return false;
  return isIP(name) === 4 || name === "localhost" || allowedNames.includes(name);
}

/** Methods a browser may send cross-site without a preflight and that change state here. */
const STATE_CHANGING = new Set(["POST", "PUT", "PATCH", "DELETE"]);

/**
 * Whether a browser request comes from a page of another site that CORS does not allow. Browsers
 * send `Origin` on such requests, and CORS only protects the response: a body-less POST (board-all,
 * sync, addresses/next) would still run. Same-origin pages and allowed origins pass.
 */
export function isForeignBrowserWrite(req: Request, allowedOrigins: readonly string[]): boolean {
  if (!STATE_CHANGING.has(req.method)) return false;
  const origin = req.headers.origin;
  if (origin === undefined) return req.headers["sec-fetch-site"] === "cross-site";
  if (allowedOrigins.includes(origin)) return false;
  try {
    return new URL(origin).host.toLowerCase() !== (req.headers.host ?? "").toLowerCase();
  } catch {
    return true;
  }
}

/** Express middleware refusing requests for other hosts and foreign browser writes with 403. */
export function requestOriginGuard(allowedHosts: readonly string[], allowedOrigins: readonly string[]) {
  return (req: Request, res: Response, next: NextFunction): void => {
    if (!isAllowedHost(req.headers.host, allowedHosts)) {
      res.status(403).json({ message: "Host not allowed: start tenderd with --allowed-hosts to serve this name" });
      return;
    }
    if (isForeignBrowserWrite(req, allowedOrigins)) {
      res.status(403).json({ message: "Cross-site request refused: the origin is not in --allowed-origins" });
      return;
    }
    next();
  };
}
