/**
 * The oracle: what every answer must satisfy. The status is one barkd gives for that request
 * (the framework's verdict when the model is sure of it; otherwise a status the operation
 * documents, or a plain-text framework rejection); no 5xx except a 500 the operation documents
 * (and none where barkd never fails); barkd's body shapes: `{"message"}` for 400/401/500 and a
 * loaded wallet's 422, `{"resources","message"}` for 404, plain text for framework rejections, an
 * empty 405, the JSON string `"path not found: <body>"` for unrouted paths; and successful JSON
 * bodies match barkd's schemas.
 */
import { BARKD_OPENAPI, checkAgainstBarkd } from "../barkd-schemas.js";
import type { Verdict } from "./barkd-model.js";
import type { FuzzOperation } from "./operations.js";
import { NEVER_500, type Expectation } from "./situations.js";

export interface RawResponse {
  readonly status: number;
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
  readonly body: Buffer;
}

export interface Violation {
  /** A short stable name of the broken rule (violations are grouped by it). */
  readonly rule: string;
  readonly detail: string;
}

const FRAMEWORK = new Set([400, 413, 415, 422]);
const AUTH_MESSAGES = new Set(["missing auth token", "invalid auth token", "multiple authorization headers are not allowed", "authorization header is not valid UTF-8"]);

function contentType(res: RawResponse): string {
  const v = res.headers["content-type"];
  return (Array.isArray(v) ? v[0] : v) ?? "";
}
const isJson = (res: RawResponse) => contentType(res).startsWith("application/json");
const isText = (res: RawResponse) => contentType(res).startsWith("text/plain");

/** barkd's document: does its answer `status` of the operation carry a body? */
function barkdHasBody(op: FuzzOperation, status: number): boolean | undefined {
  const r = (BARKD_OPENAPI.paths[op.path]?.[op.method.toLowerCase()]?.responses as Record<string, { content?: Record<string, unknown> }> | undefined)?.[String(status)];
  if (!r) return undefined;
  return r.content !== undefined && Object.keys(r.content).length > 0;
}

function parseJson(res: RawResponse): { ok: true; value: unknown } | { ok: false } {
  try {
    return { ok: true, value: JSON.parse(res.body.toString("utf8")) };
  } catch {
    return { ok: false };
  }
}

function exactKeys(v: unknown, keys: string[]): boolean {
  return typeof v === "object" && v !== null && !Array.isArray(v) && Object.keys(v).sort().join() === [...keys].sort().join();
}

/** The status codes a handler of `op` may answer (its documented ones, no framework rejection, no 401). */
export function handlerStatuses(op: FuzzOperation): Set<number> {
  const s = new Set([...op.documented].filter((c) => c !== 401 && c !== 413 && c !== 415 && c !== 422));
  if (NEVER_500.has(`${op.method} ${op.path}`)) s.delete(500);
  return s;
}

/** Checks the body of an answer against the shape barkd gives that status. */
function checkShape(op: FuzzOperation | undefined, res: RawResponse, wire: { method: string; path: string }, out: Violation[]): void {
  const s = res.status;
  const text = res.body.toString("utf8");
  const push = (rule: string, detail: string): void => void out.push({ rule, detail });
  if (s === 405) {
    if (res.body.length) push("405-body", `405 with a body: ${text.slice(0, 200)}`);
    return;
  }
  if (s === 308) {
    // barkd's permanent redirects (the deprecated exit listing) carry a Location and no body
    if (res.body.length) push("308-body", `308 with a body: ${text.slice(0, 200)}`);
    return;
  }
  if (s === 200 && op?.path === "/ping") {
    if (text !== "pong" || !isText(res)) push("ping", `ping answered ${contentType(res)} ${JSON.stringify(text.slice(0, 100))}`);
    return;
  }
  if (s === 200 && op?.path === "/metrics") {
    // tender's Prometheus endpoint answers the text exposition format
    if (!isText(res) || !/^# (HELP|TYPE) tender_/m.test(text)) push("metrics", `metrics answered ${contentType(res)} ${JSON.stringify(text.slice(0, 100))}`);
    return;
  }
  if (isText(res)) {
    if (!FRAMEWORK.has(s)) push("text-status", `plain-text answer with status ${s}: ${text.slice(0, 200)}`);
    else if (!text.trim()) push("text-empty", `plain-text ${s} with an empty body`);
    return;
  }
  if (s === 200) {
    const hasBody = op ? barkdHasBody(op, 200) : undefined;
    if (!res.body.length) {
      if (hasBody) push("200-empty", "empty 200 where barkd answers with a body");
      return;
    }
    if (hasBody === false) return push("200-unexpected-body", `200 with a body where barkd's is empty: ${text.slice(0, 200)}`);
    // barkd answers JSON wherever it answers a body (its document calls the websocket ticket text/plain; it is a JSON string)
    if (!isJson(res)) return push("200-content-type", `200 with content type ${contentType(res)}`);
    const j = parseJson(res);
    if (!j.ok) return push("200-json", `200 body is not JSON: ${text.slice(0, 200)}`);
    try {
      checkAgainstBarkd(wire.method, wire.path, 200, j.value);
    } catch (e) {
      push("200-schema", e instanceof Error ? e.message.slice(0, 600) : String(e));
    }
    return;
  }
  if (!isJson(res)) return push("error-content-type", `${s} with content type ${JSON.stringify(contentType(res))}: ${text.slice(0, 200)}`);
  const j = parseJson(res);
  if (!j.ok) return push("error-json", `${s} body is not JSON: ${text.slice(0, 200)}`);
  const v = j.value as Record<string, unknown>;
  if (s === 404 && typeof j.value === "string") return; // the fallback's JSON string, judged with the verdict
  if (s === 404) {
    if (!exactKeys(v, ["resources", "message"]) || !Array.isArray(v.resources) || !v.resources.every((x) => typeof x === "string") || typeof v.message !== "string") {
      push("404-shape", `404 body is not {"resources": [string], "message": string}: ${text.slice(0, 200)}`);
    }
    return;
  }
  if (!exactKeys(v, ["message"]) || typeof v.message !== "string" || v.message === "") {
    push("error-shape", `${s} body is not {"message": string}: ${text.slice(0, 200)}`);
  }
}

/** Every violation of barkd's rules by one answer. */
export function judge(op: FuzzOperation | undefined, verdict: Verdict, expectation: Expectation | undefined, res: RawResponse, wire: { method: string; path: string }): Violation[] {
  const out: Violation[] = [];
  const s = res.status;
  const text = res.body.toString("utf8");
  if (s >= 500 && s !== 500) out.push({ rule: "5xx", detail: `status ${s}` });
  checkShape(op, res, wire, out);
  if (verdict.kind === "rejected") {
    if (s !== verdict.status) {
      out.push({ rule: `expected-${verdict.status}`, detail: `barkd answers ${verdict.status} (${verdict.why}); got ${s}: ${text.slice(0, 300)}` });
      return out;
    }
    if (verdict.body === "text" && !isText(res)) out.push({ rule: `${s}-not-text`, detail: `barkd's ${s} here is plain text (${verdict.why}); got ${contentType(res)}: ${text.slice(0, 200)}` });
    if (verdict.body === "json" && !isJson(res)) out.push({ rule: `${s}-not-json`, detail: `barkd's ${s} here is JSON (${verdict.why})` });
    if (verdict.body === "json-string") {
      const j = parseJson(res);
      if (!isJson(res) || !j.ok || j.value !== verdict.message) out.push({ rule: "404-fallback", detail: `expected the JSON string ${JSON.stringify(verdict.message?.slice(0, 100))}; got ${text.slice(0, 200)}` });
    }
    if (s === 401) {
      const j = parseJson(res);
      const msg = j.ok ? (j.value as { message?: unknown }).message : undefined;
      if (msg !== verdict.message) out.push({ rule: "401-message", detail: `expected ${JSON.stringify(verdict.message)}; got ${text.slice(0, 200)}` });
    }
    return out;
  }
  if (!op) return out;
  const allowed = handlerStatuses(op);
  if (verdict.kind === "handler") {
    // tender's own operations enforce the bounds their served schema states (item counts, lengths), which the model of barkd's framework does not know
    const statedBound = op.extension === true && s === 422 && /^Failed to deserialize the JSON body into the target type: .*Too (small|big)/.test(text);
    if (statedBound && isText(res)) return out;
    if (isText(res) && FRAMEWORK.has(s) && !statedBound) {
      out.push({ rule: "framework-rejects-valid", detail: `plain-text ${s} for a request barkd's framework accepts: ${text.slice(0, 300)}` });
      return out;
    }
    if (s === 401) {
      out.push({ rule: "401-with-valid-token", detail: text.slice(0, 200) });
      return out;
    }
    if (!allowed.has(s)) out.push({ rule: "undocumented-status", detail: `${s} is not among ${[...allowed].join("/")} for ${op.method} ${op.path}: ${text.slice(0, 300)}` });
    if (expectation && !expectation.statuses.includes(s)) {
      out.push({ rule: "situation-status", detail: `barkd answers ${expectation.statuses.join("/")} (${expectation.why}); got ${s}: ${text.slice(0, 300)}` });
    } else if (expectation?.message !== undefined && s !== 200) {
      const j = parseJson(res);
      const msg = j.ok ? (j.value as { message?: unknown }).message : undefined;
      if (msg !== expectation.message) out.push({ rule: "situation-message", detail: `barkd's message is ${JSON.stringify(expectation.message)}; got ${text.slice(0, 200)}` });
    }
    return out;
  }
  // unknown: the operation's statuses, a framework rejection, or a 401
  if (!(allowed.has(s) || (FRAMEWORK.has(s) && isText(res)) || (s === 401 && op.auth !== "none"))) {
    out.push({ rule: "undocumented-status", detail: `${s} is neither documented for ${op.method} ${op.path} nor a framework rejection (${verdict.why}): ${text.slice(0, 300)}` });
  }
  if (s === 401) {
    const j = parseJson(res);
    const msg = j.ok ? (j.value as { message?: unknown }).message : undefined;
    if (typeof msg !== "string" || !AUTH_MESSAGES.has(msg)) out.push({ rule: "401-message", detail: text.slice(0, 200) });
  }
  return out;
}
