import express, { type NextFunction, type Request, type Response } from "express";
import cors from "cors";
import type { Logger } from "../log/logger.js";
import type { AuthToken } from "./auth-token.js";
import { checkBearer } from "./auth-guard.js";
import { HttpError, UnprocessableEntityError, causeChainMessage } from "./errors.js";
import { RequestRejection, extractBody, extractParams, extractQuery } from "./extract.js";
import { requestOriginGuard } from "./request-origin.js";
import { compareSpecificity, pathMatcher, toExpressPath, type RouteDefinition } from "./route.js";

/** Everything the HTTP layer needs from the kernel. */
export interface AppOptions {
  routes: readonly RouteDefinition[];
  /** `undefined` = no-auth mode. */
  authToken: AuthToken | undefined;
  allowedOrigins: readonly string[];
  /** Host names answered besides IP literals and `localhost`. */
  allowedHosts?: readonly string[];
  isWalletLoaded(): boolean;
  logger: Logger;
  /** Mounts extra middleware (Swagger UI) before the fallbacks. */
  mount?: (app: express.Express) => void;
}

const BODY_LIMIT = 2 * 1024 * 1024;

/** Default auth mode of a route: guarded under `/api/v1`, public elsewhere. */
export function routeAuth(r: RouteDefinition): "guard" | "handler" | "none" {
  return r.auth ?? (r.path.startsWith("/api/v1") ? "guard" : "none");
}

/** Sends a handler's return value: JSON 200, or an empty 200 for `undefined`. */
function sendResult(res: Response, value: unknown): void {
  if (res.headersSent) return;
  if (value === undefined) {
    res.status(200).end();
    return;
  }
  res.status(200).json(value);
}

/** A path whose percent-escapes do not decode (`/wallet/vtxos/%zz`): express raises a URIError with status 400. */
function isBadPathEncoding(err: unknown): boolean {
  return err instanceof URIError && (err as URIError & { status?: number }).status === 400;
}

function sendError(req: Request, res: Response, err: unknown, logger: Logger): void {
  if (res.headersSent) return;
  if (isBadPathEncoding(err)) {
    res.status(400).type("text/plain; charset=utf-8").send("Invalid URL: Cannot parse the path: invalid percent-encoding");
    return;
  }
  if (err instanceof RequestRejection) {
    res.status(err.status).type("text/plain; charset=utf-8").send(err.message);
    return;
  }
  if (err && typeof err === "object" && (err as { type?: string }).type === "entity.too.large") {
    res.status(413).type("text/plain; charset=utf-8").send("Failed to buffer the request body: length limit exceeded");
    return;
  }
  const httpErr = err instanceof HttpError ? err : undefined;
  const status = httpErr?.status ?? 500;
  const body = httpErr?.body() ?? { message: causeChainMessage(err) };
  if (status >= 500) logger.warn(`${req.method} ${req.path} failed with ${status}: ${String(body.message)}`);
  res.status(status).json(body);
}

/**
 * Builds the express application: CORS, per-route auth, extraction, wallet precondition, handler,
 * then barkd's fallbacks (405 for a known path with another method, 404 JSON string otherwise).
 */
export function buildApp(opts: AppOptions): express.Express {
  const app = express();
  app.disable("x-powered-by");
  app.set("json replacer", (_k: string, v: unknown) => (typeof v === "bigint" ? v.toString() : v));
  app.set("query parser", "simple");
  // barkd's router matches paths exactly: `/API/V1/...` and a trailing slash are other paths (404).
  app.set("case sensitive routing", true);
  app.set("strict routing", true);

  const routes = [...opts.routes].sort((a, b) => compareSpecificity(a.path, b.path));
  const matchers = routes.map((r) => ({ route: r, re: pathMatcher(r.path) }));
  const isRouted = (path: string) => matchers.some((m) => m.re.test(path));

  app.use(requestOriginGuard(opts.allowedHosts ?? [], opts.allowedOrigins));

  const corsLayer = cors({
    origin: opts.allowedOrigins.length ? [...opts.allowedOrigins] : false,
    methods: "GET,POST,DELETE",
    allowedHeaders: "content-type,authorization",
    optionsSuccessStatus: 200,
  });
  app.use((req, res, next) => (isRouted(req.path) ? corsLayer(req, res, next) : next()));
  // With deny-all CORS the preflight still gets its 200 (without any Allow-* header).
  app.options(/.*/, (req, res, next) => (isRouted(req.path) ? res.status(200).end() : next()));

  const rawBody = express.raw({ type: () => true, limit: BODY_LIMIT });
  for (const route of routes) {
    const auth = routeAuth(route);
    const handler = async (req: Request, res: Response) => {
      try {
        // `guard` routes were authenticated by `guardBeforeBody`, before the body was read.
        const params = extractParams(route.params, req);
        const query = extractQuery(route.query, req);
        const body = route.body ? extractBody(route.body, req, req.body as Buffer | undefined) : undefined;
        if (auth === "handler" && opts.authToken) checkBearer(req, opts.authToken);
        if (route.requiresWallet && !opts.isWalletLoaded()) throw new UnprocessableEntityError("No wallet set");
        sendResult(res, await route.handler({ params, query, body, req, res }));
      } catch (err) {
        sendError(req, res, err, opts.logger);
      }
    };
    const path = toExpressPath(route.path);
    const guardBeforeBody = (req: Request, res: Response, next: NextFunction) => {
      // 401 is decided before the body is read (and before a 413).
      if (auth === "guard" && opts.authToken) {
        try {
          checkBearer(req, opts.authToken);
        } catch (err) {
          sendError(req, res, err, opts.logger);
          return;
        }
      }
      next();
    };
    app[route.method](path, guardBeforeBody, rawBody, handler);
  }

  opts.mount?.(app);

  // Known path, other method: 405 with an empty body. Unknown path: 404 JSON string.
  app.use(rawBody, (req: Request, res: Response) => {
    if (isRouted(req.path)) {
      res.status(405).end();
      return;
    }
    const text = Buffer.isBuffer(req.body) ? req.body.toString("utf8") : "";
    res.status(404).json(`path not found: ${text}`);
  });
  app.use((err: unknown, req: Request, res: Response, _next: NextFunction) => sendError(req, res, err, opts.logger));
  return app;
}
