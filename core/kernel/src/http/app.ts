import express, { type NextFunction, type Request, type Response } from "express";
import cors from "cors";
import type { Logger } from "../log/logger.js";
import type { AuthToken } from "./auth-token.js";
import { checkBearer } from "./auth-guard.js";
import { HttpError, UnprocessableEntityError, causeChainMessage } from "./errors.js";
import { RequestRejection, extractBody, extractParams, extractQuery, requireJsonContentType } from "./extract.js";
import { decodeUtf8 } from "./json-text.js";
import { requestOriginGuard } from "./request-origin.js";
import { WalletLockedError } from "../wallet/wallet-locked.js";
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
  /** Whether the loaded wallet's seed is encrypted and locked (non-GET routes answer 423 unless `whileLocked`). */
  isWalletLocked?(): boolean;
  /** Called once per finished response, with the route template that answered (undefined: no route matched). */
  onResponse?(info: ResponseInfo): void;
  logger: Logger;
  /**
   * Checks a request's credential and the route's scope once auth is enabled (owner token or API
   * key); without it only the owner token is accepted.
   */
  authorize?: (route: RouteDefinition, req: Request, res: Response) => Promise<void>;
  /**
   * Wraps each route's handler once the request passed auth, extraction and the wallet check
   * (the idempotency layer); it may answer by itself, or returns what the handler returned.
   */
  around?: (route: RouteDefinition, req: Request, res: Response, run: () => Promise<unknown>) => Promise<unknown>;
  /** Mounts extra middleware (Swagger UI) before the fallbacks. */
  mount?: (app: express.Express) => void;
}

/** One finished HTTP exchange, for request metrics: the route template, never the raw path. */
export interface ResponseInfo {
  method: string;
  route: string | undefined;
  status: number;
  seconds: number;
}

const BODY_LIMIT = 2 * 1024 * 1024;
/** Where a request's matched route template is kept for {@link AppOptions.onResponse}. */
const ROUTE_TEMPLATE = "tenderRouteTemplate";

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
  // barkd sends no ETag and never answers 304 to a conditional GET
  app.set("etag", false);
  app.set("json replacer", (_k: string, v: unknown) => (typeof v === "bigint" ? v.toString() : v));
  app.set("query parser", "simple");
  // barkd's router matches paths exactly: `/API/V1/...` and a trailing slash are other paths (404).
  app.set("case sensitive routing", true);
  app.set("strict routing", true);

  const authorize = async (route: RouteDefinition, req: Request, res: Response) => {
    if (!opts.authToken) return;
    if (opts.authorize) await opts.authorize(route, req, res);
    else checkBearer(req, opts.authToken);
  };
  const routes = [...opts.routes].sort((a, b) => compareSpecificity(a.path, b.path));
  const matchers = routes.map((r) => ({ route: r, re: pathMatcher(r.path) }));
  const isRouted = (path: string) => matchers.some((m) => m.re.test(path));
  const paramCount = (p: string) => (p.match(/\{[^}]+\}/g) ?? []).length;
  /**
   * barkd's router prefers a literal segment to a parameter whatever the method: a path that a
   * route with fewer parameters matches belongs to that route (405 for another method), so a
   * parameter route must not take it (`GET …/receives/invoice` is not `GET …/receives/{identifier}`).
   */
  const shadowed = (route: RouteDefinition, path: string) =>
    paramCount(route.path) > 0 && matchers.some((m) => paramCount(m.route.path) < paramCount(route.path) && m.re.test(path));

  const onResponse = opts.onResponse;
  if (onResponse) {
    app.use((req, res, next) => {
      const started = process.hrtime.bigint();
      res.on("finish", () => {
        const route = res.locals[ROUTE_TEMPLATE] as string | undefined;
        onResponse({ method: req.method, route, status: res.statusCode, seconds: Number(process.hrtime.bigint() - started) / 1e9 });
      });
      next();
    });
  }
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
  /** Reads the whole body (413 past the limit); an absent body reads as empty. */
  const readBody = (req: Request, res: Response) =>
    new Promise<Buffer>((resolve, reject) => {
      rawBody(req, res, (err?: unknown) => (err ? reject(err) : resolve(Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0))));
    });
  for (const route of routes) {
    const auth = routeAuth(route);
    const handler = async (req: Request, res: Response) => {
      try {
        // `guard` routes were authenticated by `guardBeforeBody`. Then, as barkd's extractors: path,
        // query, content type, and only then the body (so 413 comes last); a route without a body
        // never reads one (whatever its size or type).
        const params = extractParams(route.params, req);
        const query = extractQuery(route.query, req);
        let body: unknown;
        if (route.body) {
          requireJsonContentType(req);
          body = extractBody(route.body, req, await readBody(req, res));
        }
        if (auth === "handler") await authorize(route, req, res);
        if (route.requiresWallet && !opts.isWalletLoaded()) throw new UnprocessableEntityError("No wallet set");
        if (route.method !== "get" && !route.whileLocked && opts.isWalletLocked?.()) throw new WalletLockedError();
        const run = async () => route.handler({ params, query, body, req, res });
        sendResult(res, opts.around ? await opts.around(route, req, res, run) : await run());
      } catch (err) {
        sendError(req, res, err, opts.logger);
      }
    };
    const path = toExpressPath(route.path);
    const guardBeforeBody = async (req: Request, res: Response, next: NextFunction) => {
      if (shadowed(route, req.path)) {
        next("route");
        return;
      }
      res.locals[ROUTE_TEMPLATE] = route.path;
      // 401 (and a key's 403) is decided before the body is read (and before a 413).
      if (auth === "guard") {
        try {
          await authorize(route, req, res);
        } catch (err) {
          sendError(req, res, err, opts.logger);
          return;
        }
      }
      next();
    };
    app[route.method](path, guardBeforeBody, handler);
  }

  opts.mount?.(app);

  // Known path, other method: 405 with an empty body (the body is not read). Unknown path: 404
  // JSON string echoing the body, which barkd reads as UTF-8 text (400 when it is not, 413 past the limit).
  app.use((req: Request, res: Response, next: NextFunction) => {
    if (isRouted(req.path)) {
      res.status(405).end();
      return;
    }
    readBody(req, res).then((raw) => {
      const text = decodeUtf8(raw);
      if (text === undefined) {
        res.status(400).type("text/plain; charset=utf-8").send("Request body didn't contain valid UTF-8");
        return;
      }
      res.status(404).json(`path not found: ${text}`);
    }, next);
  });
  app.use(async (err: unknown, req: Request, res: Response, _next: NextFunction) => {
    // A broken percent-escape fails while the router decodes the path parameters, before any
    // route runs: answer what the route would have answered first (405 for another method, 401
    // without a valid token), as barkd's router matches the raw path before anything is decoded.
    if (isBadPathEncoding(err)) {
      const onPath = matchers.filter((m) => m.re.test(req.path));
      const hit = onPath.find((m) => m.route.method === req.method.toLowerCase() || (req.method === "HEAD" && m.route.method === "get"));
      if (onPath.length && !hit) {
        res.status(405).end();
        return;
      }
      if (hit && routeAuth(hit.route) === "guard") {
        try {
          await authorize(hit.route, req, res);
        } catch (authErr) {
          sendError(req, res, authErr, opts.logger);
          return;
        }
      }
    }
    sendError(req, res, err, opts.logger);
  });
  return app;
}
