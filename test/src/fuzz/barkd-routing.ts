/** barkd's router as rules: which operation a method and raw path reach. */
import { OTHER_ROUTES, type FuzzOperation } from "./operations.js";

/** A route match: the operation, or the other methods served on that path. */
export type RouteMatch =
  | { readonly kind: "op"; readonly op: FuzzOperation; readonly params: Record<string, string> }
  /** A routed path the fuzzer does not model (the websocket handshake, the docs). */
  | { readonly kind: "other" }
  | { readonly kind: "method-not-allowed" }
  | { readonly kind: "unrouted" };

function matchTemplate(template: string, segments: string[]): Record<string, string> | undefined {
  const t = template.split("/");
  if (t.length !== segments.length) return undefined;
  const params: Record<string, string> = {};
  for (let i = 0; i < t.length; i++) {
    const m = /^\{(.+)\}$/.exec(t[i]!);
    if (m) {
      if (segments[i] === "") return undefined;
      params[m[1]!] = segments[i]!;
    } else if (t[i] !== segments[i]) return undefined;
  }
  return params;
}

/** barkd's router: exact, case-sensitive segments; a static segment beats a parameter. */
export function route(operations: readonly FuzzOperation[], method: string, path: string): RouteMatch {
  const segments = path.split("/");
  const staticCount = (p: string) => p.split("/").filter((s) => !s.startsWith("{")).length;
  const candidates = operations
    .map((op) => ({ op, params: matchTemplate(op.path, segments) }))
    .filter((c): c is { op: FuzzOperation; params: Record<string, string> } => c.params !== undefined);
  if (candidates.length === 0) {
    const other = OTHER_ROUTES.filter((r) => matchTemplate(r.path, segments));
    if (other.length === 0) return { kind: "unrouted" };
    return other.some((r) => r.method === method) ? { kind: "other" } : { kind: "method-not-allowed" };
  }
  const best = Math.max(...candidates.map((c) => staticCount(c.op.path)));
  const onBest = candidates.filter((c) => staticCount(c.op.path) === best);
  const hit = onBest.find((c) => c.op.method === method);
  return hit ? { kind: "op", op: hit.op, params: hit.params } : { kind: "method-not-allowed" };
}

