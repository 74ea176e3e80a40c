import type { Request } from "express";
import { z, type ZodType } from "zod";

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
 * Parses and validates a JSON body: 415 without a JSON content type, 400 for empty or invalid
 * JSON, 422 for valid JSON of the wrong shape. `raw` is the buffered body.
 */
export function extractBody<B>(schema: ZodType<B>, req: Request, raw: Buffer | undefined): B {
  if (!isJsonContentType(req.headers["content-type"])) {
    throw new RequestRejection(415, "Expected request with `Content-Type: application/json`");
  }
  let value: unknown;
  try {
    value = JSON.parse(raw && raw.length ? raw.toString("utf8") : "");
  } catch (e) {
    throw new RequestRejection(400, `Failed to parse the request body as JSON: ${e instanceof Error ? e.message : String(e)}`);
  }
  const r = schema.safeParse(value);
  if (!r.success) {
    throw new RequestRejection(422, `Failed to deserialize the JSON body into the target type: ${describe(r.error)}`);
  }
  return r.data;
}

/** A query boolean: exactly `true` or `false`. */
export const queryBool = () => z.enum(["true", "false"]).transform((v) => v === "true");

/** A path/query u32. */
export const u32String = () =>
  z.string().regex(/^\d{1,10}$/, "expected an unsigned 32-bit integer")
    .transform(Number)
    .refine((n) => n <= 0xffffffff, "expected an unsigned 32-bit integer");

/** JSON integer sats (u64 that fits a double). */
export const satAmount = () => z.number().int().nonnegative().max(Number.MAX_SAFE_INTEGER);
