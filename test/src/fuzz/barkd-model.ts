/**
 * What barkd's HTTP framework does with a request before its handler runs, modelled from its
 * rules: route match (404 JSON string / 405 empty), the bearer check (401 JSON), then path,
 * query and body extraction with plain-text rejections (400 path or query, 415 content type,
 * 413 size, 400 JSON syntax, 422 JSON shape), in that order. The verdict is "rejected with this
 * status", "reaches the handler", or "unknown" where the model is not sure of barkd's answer
 * (the oracle then only applies the rules every answer must follow).
 */
import { BARKD_DOC, type FuzzOperation, type SchemaDoc } from "./operations.js";
import { route, type RouteMatch } from "./barkd-routing.js";
import { fits, fitsText } from "./serde-rules.js";
import { parseStrictJson, type Parsed } from "./strict-json.js";

export type BodyKind = "text" | "json" | "either" | "empty" | "json-string";

export type Verdict =
  | { readonly kind: "rejected"; readonly status: number; readonly body: BodyKind; readonly why: string; readonly message?: string }
  | { readonly kind: "handler" }
  | { readonly kind: "unknown"; readonly why: string };

/** A request as it goes on the wire. */
export interface WireRequest {
  readonly method: string;
  /** Path as sent (percent-escapes as written), without the query. */
  readonly path: string;
  /** Query string as sent, without `?` (`undefined` = no `?`). */
  readonly query: string | undefined;
  /** Header lines as sent (a name may repeat). */
  readonly headers: readonly (readonly [string, string])[];
  readonly body: Buffer | undefined;
}

/** Largest body barkd reads (2 MiB). */
export const BODY_LIMIT = 2 * 1024 * 1024;

const utf8 = new TextDecoder("utf-8", { fatal: true });

/**
 * Percent-decodes a path segment as barkd's router does: a `%` not followed by two hex digits is
 * kept as written; the decoded bytes must be UTF-8.
 */
export function decodePathSegment(raw: string): { ok: true; text: string; malformedEscape: boolean } | { ok: false } {
  const bytes: number[] = [];
  let malformedEscape = false;
  for (let i = 0; i < raw.length; i++) {
    const c = raw[i]!;
    if (c === "%" && /^[0-9a-fA-F]{2}$/.test(raw.slice(i + 1, i + 3))) {
      bytes.push(parseInt(raw.slice(i + 1, i + 3), 16));
      i += 2;
    } else {
      if (c === "%") malformedEscape = true;
      bytes.push(...Buffer.from(c, "utf8"));
    }
  }
  try {
    return { ok: true, text: utf8.decode(Uint8Array.from(bytes)), malformedEscape };
  } catch {
    return { ok: false };
  }
}

/** `application/x-www-form-urlencoded` pairs (`+` is a space; malformed escapes kept; bytes decoded leniently). */
export function parseQuery(query: string | undefined): [string, string][] {
  if (!query) return [];
  const dec = (s: string) => {
    const b: number[] = [];
    const t = s.replace(/\+/g, " ");
    for (let i = 0; i < t.length; i++) {
      if (t[i] === "%" && /^[0-9a-fA-F]{2}$/.test(t.slice(i + 1, i + 3))) {
        b.push(parseInt(t.slice(i + 1, i + 3), 16));
        i += 2;
      } else b.push(...Buffer.from(t[i]!, "utf8"));
    }
    return Buffer.from(b).toString("utf8");
  };
  return query.split("&").filter((p) => p !== "").map((p) => {
    const eq = p.indexOf("=");
    return eq < 0 ? [dec(p), ""] : [dec(p.slice(0, eq)), dec(p.slice(eq + 1))];
  });
}

/** Whether a `Content-Type` value is JSON to barkd: `application/json` or `application/*+json`, parameters allowed. */
export function isJsonContentType(value: string | undefined): boolean | "unsure" {
  if (value === undefined) return false;
  const mime = value.split(";")[0]!.trim().toLowerCase();
  if (!/^[a-z0-9!#$&^_.+-]+\/[a-z0-9!#$&^_.+-]+$/.test(mime)) return false;
  const [type, subtype] = mime.split("/") as [string, string];
  if (type !== "application") return false;
  if (subtype === "json") return true;
  if (subtype.endsWith("+json")) return subtype.length > "+json".length ? true : "unsure";
  return false;
}

/** barkd's 401 messages, in the order of its checks. */
export function authVerdict(headers: readonly (readonly [string, string])[], token: string): string | undefined {
  // an HTTP parser strips the whitespace around a header value
  const values = headers.filter(([k]) => k.toLowerCase() === "authorization").map(([, v]) => v.trim());
  let presented: string | undefined;
  for (const v of values) {
    if (presented !== undefined) return "multiple authorization headers are not allowed";
    if (v.startsWith("Bearer ")) presented = v.slice("Bearer ".length);
  }
  if (presented === undefined) return "missing auth token";
  return presented.trim() === token ? undefined : "invalid auth token";
}


const header = (r: WireRequest, name: string) => r.headers.find(([k]) => k.toLowerCase() === name)?.[1];

/**
 * What barkd answers before (or instead of) its handler. `parsedBody` is the body as barkd's
 * JSON parser reads it when the verdict is `handler` (for the handler-level rules).
 */
export function barkdVerdict(operations: readonly FuzzOperation[], r: WireRequest, token: string, servedDoc: SchemaDoc): { verdict: Verdict; match: RouteMatch; parsedBody?: Parsed; params?: Record<string, string>; query?: [string, string][] } {
  const match = route(operations, r.method, r.path);
  if (match.kind === "unrouted") {
    // the fallback reads the body as UTF-8 text to echo it
    if (r.body && r.body.length > BODY_LIMIT) return { match, verdict: { kind: "rejected", status: 413, body: "text", why: "unrouted with a body over the limit" } };
    const text = r.body ? (() => { try { return utf8.decode(r.body); } catch { return undefined; } })() : "";
    if (text === undefined) return { match, verdict: { kind: "rejected", status: 400, body: "text", why: "unrouted with a body that is not UTF-8" } };
    return { match, verdict: { kind: "rejected", status: 404, body: "json-string", why: "unrouted path", message: `path not found: ${text}` } };
  }
  if (match.kind === "other") return { match, verdict: { kind: "unknown", why: "a route the fuzzer does not model" } };
  if (match.kind === "method-not-allowed") return { match, verdict: { kind: "rejected", status: 405, body: "empty", why: "method not allowed on this path" } };
  const op = match.op;
  const reject = (status: number, body: BodyKind, why: string, message?: string) =>
    ({ match, verdict: { kind: "rejected", status, body, why, ...(message ? { message } : {}) } as Verdict });
  const unsure: Verdict[] = [];
  const authFail = op.auth === "none" ? undefined : authVerdict(r.headers, token);
  if (op.auth === "guard" && authFail) return reject(401, "json", "bearer check", authFail);

  // path parameters
  const params: Record<string, string> = {};
  let malformed = false;
  for (const p of op.pathParams) {
    const d = decodePathSegment(match.params[p.name] ?? "");
    if (!d.ok) return reject(400, "text", `path parameter ${p.name} is not UTF-8 once decoded`);
    malformed ||= d.malformedEscape;
    params[p.name] = d.text;
    const f = fitsText(d.text, p.barkd);
    if (!f.ok) {
      if (f.certain) return reject(400, "text", `path parameter ${p.name}: ${f.why}`);
      unsure.push({ kind: "unknown", why: f.why });
    }
  }
  // a `%` that starts no escape: barkd's router keeps it, the parameter's parser or handler decides (400 either way here)
  if (malformed) return reject(400, "either", "malformed percent-escape in a path parameter");

  // query
  const query = parseQuery(r.query);
  for (const p of op.queryParams) {
    const values = query.filter(([k]) => k === p.name).map(([, v]) => v);
    if (values.length > 1) return reject(400, "text", `duplicate query parameter ${p.name}`);
    if (values.length === 0) {
      if (p.required) return reject(400, "text", `missing query parameter ${p.name}`);
      continue;
    }
    const f = fitsText(values[0]!, p.barkd);
    if (!f.ok) {
      if (f.certain) return reject(400, "text", `query parameter ${p.name}: ${f.why}`);
      unsure.push({ kind: "unknown", why: f.why });
    }
  }

  // body
  let parsedBody: Parsed | undefined;
  if (op.body) {
    const ct = isJsonContentType(header(r, "content-type"));
    if (ct === false) return reject(415, "text", "not a JSON content type");
    if (ct === "unsure") unsure.push({ kind: "unknown", why: "unusual +json content type" });
    else {
      const body = r.body ?? Buffer.alloc(0);
      if (body.length > BODY_LIMIT) return reject(413, "text", "body over 2 MiB");
      const p = parseStrictJson(body);
      if (!p.ok) {
        if (p.certain) return reject(400, "text", `JSON syntax: ${p.reason}`);
        unsure.push({ kind: "unknown", why: p.reason });
      } else {
        parsedBody = p.value;
        const f = fits(op.body.barkd, p.value, op.body.barkd === op.body.served ? servedDoc : BARKD_DOC);
        if (!f.ok) {
          if (f.certain) return reject(422, "text", `JSON shape: ${f.why}`);
          unsure.push({ kind: "unknown", why: f.why });
        }
      }
    }
  }
  if (op.auth === "handler" && authFail) {
    return unsure.length ? { match, verdict: unsure[0]! } : reject(401, "json", "bearer check in the handler", authFail);
  }
  if (unsure.length) return { match, verdict: unsure[0]! };
  return { match, verdict: { kind: "handler" }, ...(parsedBody ? { parsedBody } : {}), params, query };
}

export type { RouteMatch };
