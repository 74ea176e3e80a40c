import type { Request } from "express";
import type { ZodType } from "zod";
import { decodeUtf8, scanJsonText, structRuleViolation } from "./json-text.js";
import { z } from "./zod.js";

/**
 * A framework-level rejection: plain-text body, as barkd's HTTP framework (axum) answers
 * malformed requests — 400 bad path/query/JSON, 415 wrong content type, 422 wrong body shape,
 * 413 too large. Never the JSON error shape.
 */
export class RequestRejection extends Error {
  constructor(readonly status: 400 | 413 | 415 | 422, message: string) {
    super(message);
  }
}

function describe(error: z.ZodError): string {
  return error.issues
    .map((i) => (i.path.length ? `${i.path.join(".")}: ${i.message}` : i.message))
    .join("; ");
}

/** Validates path parameters (400 on failure). */
export function extractParams<P>(schema: ZodType<P> | undefined, req: Request): P {
  if (!schema) return req.params as P;
  const r = schema.safeParse(req.params);
  if (!r.success) throw new RequestRejection(400, `Invalid URL: ${describe(r.error)}`);
  return r.data;
}

/** Validates the query string (400 on failure). */
export function extractQuery<Q>(schema: ZodType<Q> | undefined, req: Request): Q {
  if (!schema) return req.query as Q;
  const r = schema.safeParse({ ...(req.query as object) });
  if (!r.success) throw new RequestRejection(400, `Failed to deserialize query string: ${describe(r.error)}`);
  return r.data;
}

/** `application/json` or any `application/*+json`, parameters allowed. */
export function isJsonContentType(header: string | undefined): boolean {
  if (!header) return false;
  const mime = header.split(";")[0]!.trim().toLowerCase();
  return mime === "application/json" || (mime.startsWith("application/") && mime.endsWith("+json"));
}

/**
 * JSON.parse reviver keeping integers beyond 2^53 exact as bigints (from their source text), so a
 * u64 amount is never rounded: barkd reads amounts as u64.
 */
function keepLargeIntegers(_key: string, value: unknown, context?: { source?: string }): unknown {
  if (typeof value === "number" && !Number.isSafeInteger(value) && context?.source !== undefined && /^-?\d+$/.test(context.source)) {
    return BigInt(context.source);
  }
  return value;
}

/** 415 unless the request says its body is JSON (checked before the body is read). */
export function requireJsonContentType(req: Request): void {
  if (!isJsonContentType(req.headers["content-type"])) {
    throw new RequestRejection(415, "Expected request with `Content-Type: application/json`");
  }
}

const jsonSchemas = new WeakMap<ZodType, Record<string, unknown> | null>();

/** The body schema as JSON Schema (for the struct rules), `null` when zod cannot express it. */
function jsonSchemaOf(schema: ZodType): Record<string, unknown> | null {
  let s = jsonSchemas.get(schema);
  if (s === undefined) {
    try {
      s = z.toJSONSchema(schema, { io: "input", unrepresentable: "any" }) as Record<string, unknown>;
    } catch {
      s = null;
    }
    jsonSchemas.set(schema, s);
  }
  return s;
}

/**
 * Parses and validates a JSON body as barkd does: 415 without a JSON content type; 400 for a
 * body that is empty, not UTF-8, not JSON, or holds half a surrogate pair; 422 for valid JSON of
 * the wrong shape, a key given twice in a struct, or a floating point literal (`1.0`, `1e3`)
 * where an integer is wanted. `raw` is the buffered body.
 */
export function extractBody<B>(schema: ZodType<B>, req: Request, raw: Buffer | undefined): B {
  requireJsonContentType(req);
  const text = decodeUtf8(raw ?? Buffer.alloc(0));
  if (text === undefined) throw new RequestRejection(400, "Failed to parse the request body as JSON: the body is not valid UTF-8");
  let value: unknown;
  try {
    value = JSON.parse(text, keepLargeIntegers);
  } catch (e) {
    throw new RequestRejection(400, `Failed to parse the request body as JSON: ${e instanceof Error ? e.message : String(e)}`);
  }
  const scan = scanJsonText(text);
  if (scan.loneSurrogate !== undefined) {
    throw new RequestRejection(400, `Failed to parse the request body as JSON: lone surrogate in hex escape ${scan.loneSurrogate}`);
  }
  const r = schema.safeParse(value);
  if (!r.success) {
    throw new RequestRejection(422, `Failed to deserialize the JSON body into the target type: ${describe(r.error)}`);
  }
  const jsonSchema = jsonSchemaOf(schema);
  const violation = jsonSchema ? structRuleViolation(scan, jsonSchema) : undefined;
  if (violation) throw new RequestRejection(422, `Failed to deserialize the JSON body into the target type: ${violation}`);
  return r.data;
}

/** A query boolean: exactly `true` or `false`. */
export const queryBool = () => z.enum(["true", "false"]).transform((v) => v === "true");

/**
 * A path or query integer read as barkd's extractors read one (Rust's `FromStr`): an optional
 * `+`, decimal digits (leading zeros allowed), at most `max`.
 */
function unsignedText(max: bigint, message: string) {
  const digits = (s: string) => s.replace(/^\+/, "").replace(/^0+(?=\d)/, "");
  return z.string().regex(/^\+?\d+$/, message)
    .refine((s) => /^\+?\d+$/.test(s) && digits(s).length <= 20 && BigInt(digits(s)) <= max, message)
    .transform((s) => BigInt(digits(s)));
}

/** A path/query u32. */
export const u32String = () => unsignedText(0xffffffffn, "expected an unsigned 32-bit integer").transform(Number);

/** A path/query u64 (amounts), handed to the handler as a bigint. */
export const u64String = () => unsignedText(U64_MAX, "expected an unsigned 64-bit integer");

/**
 * JSON integer sats, a u64 as barkd reads it, handed to the handler as a bigint: amounts beyond
 * 2^53 stay exact and reach the handler (which refuses them with its own error, e.g. insufficient
 * funds), instead of being refused by the schema.
 */
export const satAmount = () =>
  z.union([z.number().int().nonnegative().max(Number.MAX_SAFE_INTEGER), z.bigint().nonnegative().max(U64_MAX)])
    .transform((v) => BigInt(v))
    .openapi({ type: "integer", format: "int64", minimum: 0 });

/** The largest u64. */
const U64_MAX = 2n ** 64n - 1n;
