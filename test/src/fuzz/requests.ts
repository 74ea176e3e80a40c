/**
 * Request generators, one per operation, derived from the served OpenAPI document: path
 * parameters, query and JSON body from their schemas, mixing meaningful values (the wallet's
 * own), boundary values and wrong types, missing and extra fields; and requests broken at one
 * layer — malformed JSON, wrong content types, a missing or bad token, another method, a path
 * that is almost the route, percent-escapes in path parameters, a body over the size limit.
 */
import fc from "fast-check";
import { BODY_LIMIT, type WireRequest } from "./barkd-model.js";
import { DuplicateKeys, jsonText, type JsonValue } from "./json-text.js";
import type { FuzzOperation, Schema, SchemaDoc } from "./operations.js";
import { arbAnyJson, arbHint, arbInteger, arbParamText, arbQueryText, arbString, type FuzzHints } from "./values.js";

/** A generated request: the bytes sent and what kind of request it is. */
export class FuzzRequest {
  constructor(readonly wire: WireRequest, readonly label: string) {}

  /** The request as an HTTP message (long bodies shortened), for reports and fast-check's counterexamples. */
  toString(): string {
    const w = this.wire;
    const lines = [`${w.method} ${w.path}${w.query === undefined ? "" : `?${w.query}`}   [${this.label}]`];
    for (const [k, v] of w.headers) lines.push(`${k}: ${k.toLowerCase() === "authorization" ? redact(v) : v}`);
    if (w.body) {
      const text = w.body.toString("utf8");
      lines.push("", text.length > 600 ? `${text.slice(0, 300)} …(${w.body.length} bytes)… ${text.slice(-100)}` : text);
    }
    return lines.join("\n  ");
  }

  [fc.toStringMethod](): string {
    return this.toString();
  }
}

/** The token is replaced by `<token>` in reports. */
let tokenForRedaction = "";
const redact = (v: string) => (tokenForRedaction ? v.split(tokenForRedaction).join("<token>") : v);

export interface GenContext {
  readonly hints: FuzzHints;
  readonly token: string;
  readonly servedDoc: SchemaDoc;
}

/** How often a field gets a value of the wrong type, goes missing, or an extra field appears. */
interface Mutation {
  readonly wrongType: number;
  readonly dropRequired: number;
}
const GENTLE: Mutation = { wrongType: 0.03, dropRequired: 0.02 };
const ROUGH: Mutation = { wrongType: 0.3, dropRequired: 0.2 };

const pct = (p: number) => Math.max(0, Math.round(p * 1000));
const maybe = <T>(p: number, a: fc.Arbitrary<T>, b: fc.Arbitrary<T>) => fc.oneof({ weight: pct(p), arbitrary: a }, { weight: pct(1 - p), arbitrary: b });

function types(s: Schema): string[] {
  return Array.isArray(s.type) ? s.type : typeof s.type === "string" ? [s.type] : [];
}

/** Values for a schema: meaningful hints first, then anything of its type; `m` adds wrong types. */
export function arbFromSchema(s0: Schema, g: GenContext, opKey: string, m: Mutation, name?: string): fc.Arbitrary<JsonValue> {
  const s = g.servedDoc.resolve(s0);
  const hint = name ? arbHint(name, g.hints, opKey) : undefined;
  const own = ownArb(s, g, opKey, m);
  const right = hint ? fc.oneof({ weight: 4, arbitrary: hint }, { weight: 1, arbitrary: own }) : own;
  return maybe(m.wrongType, arbAnyJson(), right);
}

function ownArb(s: Schema, g: GenContext, opKey: string, m: Mutation): fc.Arbitrary<JsonValue> {
  const union: Schema[] | undefined = s.oneOf ?? s.anyOf;
  if (union) return fc.oneof(...union.map((b) => arbFromSchema(b, g, opKey, m)));
  if (Array.isArray(s.enum)) return fc.oneof({ weight: 5, arbitrary: fc.constantFrom(...(s.enum as JsonValue[])) }, { weight: 1, arbitrary: fc.constantFrom("", "REGTEST", "bitcoin", "testnet") });
  const ts = types(s);
  const arbs: fc.Arbitrary<JsonValue>[] = [];
  for (const t of ts) {
    if (t === "null") arbs.push(fc.constant(null));
    if (t === "string") arbs.push(arbString());
    if (t === "boolean") arbs.push(fc.boolean());
    if (t === "integer" || t === "number") arbs.push(arbInteger());
    if (t === "array") arbs.push(fc.array(arbFromSchema(s.items ?? {}, g, opKey, m), { maxLength: 3 }));
    if (t === "object") arbs.push(arbObject(s, g, opKey, m));
  }
  if (arbs.length === 0) {
    // any JSON value (a merge patch): objects mostly, with nested objects and nulls
    return fc.oneof(
      { weight: 3, arbitrary: fc.dictionary(fc.constantFrom("note", "tag", "label", "a", "", "é"), fc.oneof(fc.constant(null), fc.string({ maxLength: 10 }), fc.integer(), fc.dictionary(fc.constantFrom("x", "y"), fc.oneof(fc.constant(null), fc.nat())))) as fc.Arbitrary<JsonValue> },
      { weight: 1, arbitrary: arbAnyJson() },
    );
  }
  return fc.oneof(...arbs);
}

function arbObject(s: Schema, g: GenContext, opKey: string, m: Mutation): fc.Arbitrary<JsonValue> {
  const props = Object.entries((s.properties ?? {}) as Record<string, Schema>);
  const required = new Set<string>(s.required ?? []);
  const fields = props.map(([k, ps]) => {
    const present = required.has(k) ? 1 - m.dropRequired : 0.5;
    return maybe(present, arbFromSchema(ps, g, opKey, m, k).map((v) => [k, v] as const), fc.constant(undefined));
  });
  const extra = maybe(0.08, fc.tuple(fc.constantFrom("extra", "__proto__", "constructor", "AMOUNT_SAT", ""), arbAnyJson()), fc.constant(undefined));
  return fc.tuple(fc.tuple(...fields), extra, fc.nat({ max: 99 })).map(([fs, ex, dupRoll]) => {
    const entries = fs.filter((f): f is readonly [string, JsonValue] => f !== undefined).map(([k, v]) => [k, v] as [string, JsonValue]);
    if (ex) entries.push([ex[0], ex[1]]);
    if (dupRoll < 3 && entries.length) {
      return new DuplicateKeys([...entries, [entries[0]![0], dupRoll === 0 ? null : entries[0]![1]]]);
    }
    const o: Record<string, JsonValue> = {};
    for (const [k, v] of entries) Object.defineProperty(o, k, { value: v, enumerable: true, writable: true, configurable: true });
    return o;
  });
}

/** Percent-encodes every byte of the UTF-8 form except unreserved characters (a lone surrogate becomes U+FFFD's bytes). */
export function pctEncode(text: string, keep = /[A-Za-z0-9\-_.~]/): string {
  let out = "";
  for (const b of Buffer.from(text, "utf8")) {
    const c = String.fromCharCode(b);
    out += b < 0x80 && keep.test(c) ? c : `%${b.toString(16).toUpperCase().padStart(2, "0")}`;
  }
  return out;
}

/** Wire text of a path parameter: percent-encoded, or with escapes barkd's router must cope with. */
function arbParamWire(text: fc.Arbitrary<string>): fc.Arbitrary<string> {
  return fc.oneof(
    { weight: 12, arbitrary: text.map((t) => pctEncode(t)) },
    { weight: 2, arbitrary: text.map((t) => pctEncode(t, /[A-Za-z0-9\-_.~:@!$&'()*+,;=]/)) },
    { weight: 2, arbitrary: fc.tuple(text, fc.constantFrom("%", "%zz", "%2", "%C3%28", "%FF", "%00", "%2F", "%252F", "%E2%82%AC", "%2e%2e", "%20")).map(([t, e]) => pctEncode(t) + e) },
    { weight: 1, arbitrary: fc.constantFrom("%", "%zz", "%C3%28", ".", "..", "%2e", "%2E%2E", "~", "%7E") },
  );
}

function fillPath(op: FuzzOperation, g: GenContext, opKey: string): fc.Arbitrary<string> {
  if (op.pathParams.length === 0) return fc.constant(op.path);
  return fc.tuple(...op.pathParams.map((p) => arbParamWire(arbParamText(p.name, g.hints, opKey).filter((t) => t.length < 500)))).map((values) => {
    let path = op.path;
    op.pathParams.forEach((p, i) => (path = path.replace(`{${p.name}}`, values[i]!)));
    return path;
  });
}

const encQuery = (t: string) => pctEncode(t);
/** `+` for spaces, and `+`, `:` and `/` left as they are (as many clients write a query). */
const looseQuery = (t: string) => pctEncode(t, /[A-Za-z0-9\-_.~+:/ ]/).replace(/ /g, "+");

function fillQuery(op: FuzzOperation, g: GenContext, m: Mutation): fc.Arbitrary<string | undefined> {
  const parts = op.queryParams.map((p) => {
    const value = arbQueryText(p.name, g.hints, p.served).filter((t) => t.length < 2_000);
    const pair = fc.tuple(value, fc.boolean()).map(([v, loose]) => `${encQuery(p.name)}=${loose ? looseQuery(v) : encQuery(v)}`);
    const present = p.required ? 1 - m.dropRequired : 0.5;
    return fc.oneof(
      { weight: pct(present * 0.95), arbitrary: pair.map((x) => [x]) },
      { weight: pct(present * 0.05), arbitrary: fc.tuple(pair, pair).map(([a, b]) => [a, b]) },
      { weight: pct(1 - present), arbitrary: fc.constant([] as string[]) },
    );
  });
  const extra = maybe<string[]>(0.1, fc.constantFrom<string[]>(["x=1"], ["all"], ["="], ["&&"], ["%zz=%zz"], ["amount_sat=1&amount_sat=2"]), fc.constant([]));
  return fc.tuple(fc.tuple(...parts), extra).map(([ps, ex]) => {
    const all = [...ps.flat(), ...ex];
    return all.length ? all.join("&") : undefined;
  });
}

function jsonBody(op: FuzzOperation, g: GenContext, opKey: string, m: Mutation): fc.Arbitrary<Buffer> {
  return arbFromSchema(op.body!.served, g, opKey, m).map((v) => Buffer.from(jsonText(v), "utf8"));
}

const bearer = (g: GenContext) => ["authorization", `Bearer ${g.token}`] as const;

/** A request shaped by the operation's schemas (gently or roughly mutated). */
function schemaRequest(op: FuzzOperation, g: GenContext, m: Mutation, label: string): fc.Arbitrary<FuzzRequest> {
  const key = `${op.method} ${op.path}`;
  const body = op.body ? jsonBody(op, g, key, m).map((b) => b as Buffer | undefined) : fc.constant(undefined);
  return fc.tuple(fillPath(op, g, key), fillQuery(op, g, m), body).map(([path, query, b]) => new FuzzRequest({
    method: op.method, path, query,
    headers: [bearer(g), ...(op.body ? [["content-type", "application/json"] as const] : [])],
    body: b,
  }, label));
}

const MALFORMED_JSON: readonly (string | Buffer)[] = [
  "", " ", "{", "[", "}", "nul", "tru", "{\"a\":}", "{\"a\":1,}", "[1,]", "{}x", "{'a':1}", "NaN", "Infinity", "/*c*/{}", "\ufeff{}", "{\"a\" 1}",
  "{\"destination\":\"\\ud800\"}", "{\"destination\":\"\\udc00x\"}", "{\"destination\":\"a\u0001b\"}", "{\"a\":\"\\x41\"}", "01", "-", "1.", ".5", "+1",
  Buffer.concat([Buffer.from("{\"destination\":\""), Buffer.from([0xff, 0xfe]), Buffer.from("\"}")]),
  Buffer.concat([Buffer.from("{\"vtxos\":[\""), Buffer.from([0xc3, 0x28]), Buffer.from("\"]}")]),
  "[".repeat(200) + "]".repeat(200), "{\"a\":" + "[".repeat(130) + "]".repeat(130) + "}",
];

/** Bodies that are not JSON (or JSON barkd's parser refuses), with a JSON content type. */
function badJsonRequest(op: FuzzOperation, g: GenContext): fc.Arbitrary<FuzzRequest> {
  const key = `${op.method} ${op.path}`;
  const truncated = fc.tuple(jsonBody(op, g, key, GENTLE), fc.nat()).map(([b, n]) => b.subarray(0, b.length > 1 ? 1 + (n % (b.length - 1)) : 0));
  const bodies = fc.oneof(fc.constantFrom(...MALFORMED_JSON).map((b) => (typeof b === "string" ? Buffer.from(b, "utf8") : b)), truncated);
  return fc.tuple(fillPath(op, g, key), fillQuery(op, g, GENTLE), bodies).map(([path, query, body]) => new FuzzRequest({
    method: op.method, path, query, headers: [bearer(g), ["content-type", "application/json"]], body,
  }, "malformed JSON"));
}

const CONTENT_TYPES: readonly (string | undefined)[] = [
  undefined, "text/plain", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x", "application/json; charset=utf-8",
  "APPLICATION/JSON", "Application/Json", "application/merge-patch+json", "application/vnd.api+json", "application/jsonx", "json",
  "application/json, text/plain", "application/json-patch", "application/ld+json; charset=utf-8", "text/json", "application/*", "",
];

/** A body sent with another content type (or none). */
function contentTypeRequest(op: FuzzOperation, g: GenContext): fc.Arbitrary<FuzzRequest> {
  const key = `${op.method} ${op.path}`;
  const body = op.body ? jsonBody(op, g, key, GENTLE) : fc.constantFrom(Buffer.from("{}"), Buffer.from("hello"), Buffer.from("{\"a\":1}"));
  return fc.tuple(fillPath(op, g, key), fillQuery(op, g, GENTLE), body, fc.constantFrom(...CONTENT_TYPES), fc.boolean()).map(([path, query, b, ct, withBody]) => new FuzzRequest({
    method: op.method, path, query,
    headers: [bearer(g), ...(ct === undefined ? [] : [["content-type", ct] as const])],
    body: withBody || op.body ? b : undefined,
  }, `content type ${ct === undefined ? "(none)" : JSON.stringify(ct)}`));
}

/** A missing, malformed or doubled bearer token. */
function authRequest(op: FuzzOperation, g: GenContext): fc.Arbitrary<FuzzRequest> {
  const key = `${op.method} ${op.path}`;
  const t = g.token;
  const variants: (readonly (readonly [string, string])[])[] = [
    [], [["authorization", `bearer ${t}`]], [["authorization", `Basic ${t}`]], [["authorization", `Bearer ${t}x`]],
    [["authorization", `Bearer A${"b".repeat(43)}`]], [["authorization", `Bearer ${t}=`]], [["authorization", `Bearer  ${t}`]],
    [["authorization", "Bearer"]], [["authorization", "Bearer "]], [["authorization", `AuthToken ${t}`]], [["auth-token", t]],
    [["authorization", `Bearer ${t}`], ["authorization", `Bearer ${t}`]], [["authorization", `Bearer ${t}`], ["authorization", "Basic eA=="]],
    [["authorization", "Basic eA=="], ["authorization", `Bearer ${t}`]], [["authorization", `Bearer ${t.replace(/^A/, "B")}`]],
    [["authorization", `Bearer ${t.slice(0, -1)}`]], [["authorization", `Bearer ${Buffer.from(t, "base64url").toString("base64")}`]],
  ];
  const body = op.body ? jsonBody(op, g, key, GENTLE).map((b) => b as Buffer | undefined) : fc.constant(undefined);
  return fc.tuple(fillPath(op, g, key), fillQuery(op, g, GENTLE), body, fc.constantFrom(...variants)).map(([path, query, b, auth]) => new FuzzRequest({
    method: op.method, path, query, headers: [...auth, ...(op.body ? [["content-type", "application/json"] as const] : [])], body: b,
  }, "token variant"));
}

/** The operation's path with a method it is not served with (405, or another operation on that path). */
function methodRequest(op: FuzzOperation, g: GenContext): fc.Arbitrary<FuzzRequest> {
  const key = `${op.method} ${op.path}`;
  const others = (["GET", "POST", "DELETE", "PUT", "PATCH"] as const).filter((x) => x !== op.method);
  return fc.tuple(fillPath(op, g, key), fc.constantFrom(...others), fc.constantFrom<Buffer | undefined>(undefined, Buffer.from("{}"), Buffer.from("body"))).map(([path, method, body]) => new FuzzRequest({
    method, path, query: undefined, headers: [bearer(g), ["content-type", "application/json"]], body,
  }, `method ${method}`));
}

/** A path next to the route: trailing slash, other case, doubled or dot segments, an extra segment. */
function pathVariantRequest(op: FuzzOperation, g: GenContext): fc.Arbitrary<FuzzRequest> {
  const key = `${op.method} ${op.path}`;
  const edits: ((p: string) => string)[] = [
    (p) => `${p}/`, (p) => p.toUpperCase(), (p) => p.replace("/api/v1/", "/API/V1/"), (p) => p.replace("/api/v1/", "/api//v1/"),
    (p) => `${p}/extra`, (p) => p.replace(/\/[^/]+$/, "/./$&").replace("/./", "/./"), (p) => p.replace(/\/([^/]+)$/, "/x/../$1"),
    (p) => p.replace(/\/([^/]+)$/, "/%2e/$1"), (p) => `${p}%2F`, (p) => `${p}%20`, (p) => p.replace(/\/[^/]+$/, ""), (p) => `/${p}`,
    (p) => p.replace("/api/v1", "/api/v2"), (p) => p.replace(/[a-z]$/, (c) => c.toUpperCase()), (p) => `${p};x=1`,
  ];
  return fc.tuple(fillPath(op, g, key), fc.constantFrom(...edits.keys()), fc.constantFrom<Buffer | undefined>(undefined, Buffer.from(""), Buffer.from("echo me"), Buffer.from("{\"a\":\"é\"}"), Buffer.from([0xff]))).map(([path, i, body]) => new FuzzRequest({
    method: op.method, path: edits[i]!(path), query: undefined, headers: [bearer(g), ["content-type", "application/json"]], body,
  }, `path variant ${i}`));
}

/** A JSON body one byte over the limit. */
const OVERSIZE_BODY = Buffer.from(`{"destination":"${"x".repeat(BODY_LIMIT - 17)}"}`);

/** A body one byte over the limit (barkd refuses it with 413 where it reads a body, and ignores it elsewhere). */
function oversizeRequest(op: FuzzOperation, g: GenContext): fc.Arbitrary<FuzzRequest> {
  const key = `${op.method} ${op.path}`;
  return fc.tuple(fillPath(op, g, key), fillQuery(op, g, GENTLE)).map(([path, query]) => new FuzzRequest({
    method: op.method, path, query, headers: [bearer(g), ["content-type", "application/json"]], body: OVERSIZE_BODY,
  }, "body over 2 MiB"));
}

/** Every kind of request for one operation, weighted. */
export function requestArbitrary(op: FuzzOperation, g: GenContext): fc.Arbitrary<FuzzRequest> {
  tokenForRedaction = g.token;
  return fc.oneof(
    { weight: 120, arbitrary: schemaRequest(op, g, GENTLE, "schema") },
    { weight: 60, arbitrary: schemaRequest(op, g, ROUGH, "schema, rough") },
    ...(op.body ? [{ weight: 20, arbitrary: badJsonRequest(op, g) }] : []),
    { weight: 15, arbitrary: contentTypeRequest(op, g) },
    { weight: 15, arbitrary: authRequest(op, g) },
    { weight: 8, arbitrary: methodRequest(op, g) },
    { weight: 10, arbitrary: pathVariantRequest(op, g) },
    { weight: 1, arbitrary: oversizeRequest(op, g) },
  );
}

/** Requests over every operation, each operation equally likely. */
export function fuzzRequests(ops: readonly FuzzOperation[], g: GenContext): fc.Arbitrary<FuzzRequest> {
  return fc.oneof(...ops.map((op) => requestArbitrary(op, g)));
}
