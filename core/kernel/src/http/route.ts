import type { Request, Response } from "express";
import type { ZodType } from "zod";

export type HttpMethod = "get" | "post" | "put" | "patch" | "delete";

/**
 * How a route authenticates:
 * - `guard`: the bearer token is checked before anything else (every `/api/v1` route by default);
 * - `handler`: checked after path/query/body extraction (barkd's two notification routes);
 * - `none`: public (`/ping`, docs).
 */
export type RouteAuth = "guard" | "handler" | "none";

/**
 * What an API key needs to call a route (the owner token may call every route):
 * - `read`: reads (the default of a GET);
 * - `receive`: creating addresses and invoices, syncing, annotating;
 * - `send`: anything that moves money;
 * - `admin`: wallet lifecycle, configuration, webhooks, exits;
 * - `owner`: the owner token only (API key management and the audit log).
 * A mutating route must declare its scope; one that does not is treated as `admin`.
 */
export type RouteScope = "read" | "receive" | "send" | "admin" | "owner";

/** One documented response of a route. */
export interface RouteResponse {
  description: string;
  /** JSON body schema (omitted for empty or non-JSON bodies). */
  schema?: ZodType;
  /** Content type when not JSON (e.g. `text/plain`). */
  contentType?: string;
}

/** What a handler receives: validated path params, query and body. */
export interface RouteRequest<P = Record<string, unknown>, Q = Record<string, unknown>, B = unknown> {
  params: P;
  query: Q;
  body: B;
  /** The raw express objects, for the rare route that writes its own response (text, redirects). */
  req: Request;
  res: Response;
}

/**
 * A route contributed by a plugin. Its schemas validate the request and feed the OpenAPI document.
 * The handler's return value is sent as JSON with status 200; `undefined` sends an empty 200.
 */
export interface RouteDefinition<P = any, Q = any, B = any> {
  method: HttpMethod;
  /** OpenAPI-style path, e.g. `/api/v1/wallet/vtxos/{id}`. */
  path: string;
  operationId: string;
  tag?: string;
  summary?: string;
  description?: string;
  deprecated?: boolean;
  /** Leave out of the OpenAPI document (barkd's undocumented aliases). Default: documented. */
  undocumented?: boolean;
  /** Default: `guard` under `/api/v1`, `none` elsewhere. */
  auth?: RouteAuth;
  /** The scope an API key needs (default `read` for a GET; required on every other method). */
  scope?: RouteScope;
  /** Answer `422 {"message":"No wallet set"}` when no wallet is loaded. */
  requiresWallet?: boolean;
  /**
   * A non-GET route that may run while the wallet's encrypted seed is locked (unlock, delete).
   * Every other non-GET route answers `423 Wallet is locked` then; GET routes run and fail with
   * 423 only when they ask for something that needs the keys.
   */
  whileLocked?: boolean;
  /**
   * The request body carries a low-entropy secret (a passphrase): the request never goes through
   * the `Idempotency-Key` layer, which would store a fast hash of the body. A function decides
   * from the (validated) JSON body.
   */
  secretBody?: boolean | ((body: unknown) => boolean);
  /**
   * The answer carries a secret shown once (a new API key, a webhook signing secret): the request
   * never goes through the `Idempotency-Key` layer, which would store the answer in plaintext to
   * replay it. A keyed retry runs the handler again.
   */
  secretAnswer?: boolean;
  params?: ZodType<P>;
  query?: ZodType<Q>;
  /** JSON body schema; when set a JSON body is required (415 without a JSON content type). */
  body?: ZodType<B>;
  responses: Record<number, RouteResponse>;
  handler(request: RouteRequest<P, Q, B>): Promise<unknown> | unknown;
}

/** Identity helper that infers a route's types from its schemas. */
export function defineRoute<P, Q, B>(route: RouteDefinition<P, Q, B>): RouteDefinition<P, Q, B> {
  return route;
}

/** `/a/{b}/c` → `/a/:b/c` (express 5 syntax). */
export function toExpressPath(path: string): string {
  return path.replace(/\{([A-Za-z0-9_]+)\}/g, ":$1");
}

/** A regular expression matching concrete request paths for an OpenAPI path template. */
export function pathMatcher(path: string): RegExp {
  const esc = path
    .split(/(\{[A-Za-z0-9_]+\})/)
    .map((part) => (part.startsWith("{") ? "[^/]+" : part.replace(/[.*+?^$()|[\]\\]/g, "\\$&")))
    .join("");
  return new RegExp(`^${esc}$`);
}

/**
 * Orders routes so that static segments win over path parameters at the same position
 * (`/exits/status/all` before `/exits/status/{vtxo_id}`).
 */
export function compareSpecificity(a: string, b: string): number {
  const sa = a.split("/");
  const sb = b.split("/");
  for (let i = 0; i < Math.min(sa.length, sb.length); i++) {
    const pa = sa[i]!.startsWith("{");
    const pb = sb[i]!.startsWith("{");
    if (pa !== pb) return pa ? 1 : -1;
  }
  return 0;
}

/** The scope a route needs: its declared one, `read` for an undeclared GET, `undefined` for an undeclared mutation. */
export function declaredScope(r: Pick<RouteDefinition, "method" | "scope">): RouteScope | undefined {
  return r.scope ?? (r.method === "get" ? "read" : undefined);
}
