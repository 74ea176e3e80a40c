import { declaredScope, type RouteDefinition } from "../http/route.js";

type Json = Record<string, any>;

/**
 * Marks every documented operation with the scope an API key needs to call it
 * (`x-tender-scope`: `read`, `receive`, `send`, `admin` or `owner`). A mutating operation that
 * declared no scope gets none (and is treated as `admin`), which the tests catch.
 */
export function documentScopes(doc: Json, routes: readonly RouteDefinition[]): Json {
  for (const r of routes) {
    const op = doc.paths?.[r.path]?.[r.method];
    if (!op) continue;
    const scope = declaredScope(r);
    if (scope) op["x-tender-scope"] = scope;
  }
  const schemes = doc.components?.securitySchemes;
  if (schemes?.bearer) {
    schemes.bearer.description = "The owner token (barkd's, full access), or a tender API key (`tender_key_…`) limited to its scopes: " +
      "each operation's `x-tender-scope` names the scope it needs; `owner` operations take the owner token only.";
  }
  return doc;
}
