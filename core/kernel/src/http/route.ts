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
  /** Answer `422 {"message":"No wallet set"}` when no wallet is loaded. */
  requiresWallet?: boolean;
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
