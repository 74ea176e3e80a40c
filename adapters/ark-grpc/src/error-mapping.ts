/**
 * Turns a grpc-js failure into a typed {@link ArkServerError}: the status code picks the class
 * (`INVALID_ARGUMENT` and `NOT_FOUND` are rejections, everything else is transient), the message
 * prefixes (`bad user input: `, `unusable inputs: [...]`, `not found: `) and the `identifiers`
 * trailer fill its fields.
 */
import { Metadata, status as GrpcStatus } from "@grpc/grpc-js";
import {
  ArkServerCancelledError,
  ArkServerDeadlineError,
  type ArkServerError,
  ArkServerInternalError,
  ArkServerNotFoundError,
  ArkServerRejectedError,
  ArkServerUnavailableError,
  ArkServerUnexpectedError,
  ArkServerUnimplementedError,
  type ServerErrorDetails,
} from "./errors.js";

/** Trailer key carrying the ids a rejection is about. */
export const IDENTIFIERS_TRAILER = "identifiers";

/** What the message prefixes of a server error say. */
export interface ParsedServerMessage {
  badUserInput?: string;
  unusableInputs?: readonly string[];
  notFound?: string;
}

/** Reads the protocol prefixes out of a server error message. */
export function parseServerMessage(message: string): ParsedServerMessage {
  const out: ParsedServerMessage = {};
  const bad = afterLast(message, "bad user input: ");
  if (bad !== undefined) out.badUserInput = bad;
  const nf = afterLast(message, "not found: ");
  if (nf !== undefined) out.notFound = nf;
  const unusable = /unusable inputs: \[([^\]]*)\]/.exec(message);
  if (unusable) out.unusableInputs = splitList(unusable[1] ?? "");
  return out;
}

/** The `identifiers` trailer of an error, split on commas; empty when absent. */
export function readIdentifiers(trailers: Metadata | undefined): string[] {
  if (!trailers) return [];
  return trailers.get(IDENTIFIERS_TRAILER).flatMap((v) => splitList(typeof v === "string" ? v : v.toString("utf8")));
}

/** Maps any failure of a call to `method` to the matching {@link ArkServerError}. */
export function toArkServerError(err: unknown, method: string): ArkServerError {
  const e = (typeof err === "object" && err !== null ? err : {}) as { code?: unknown; details?: unknown; message?: unknown; metadata?: unknown };
  const code = typeof e.code === "number" && e.code in GrpcStatus ? (e.code as GrpcStatus) : GrpcStatus.UNKNOWN;
  const status = GrpcStatus[code] ?? String(code);
  const serverMessage = typeof e.details === "string" ? e.details : typeof e.message === "string" ? e.message : String(err);
  const identifiers = readIdentifiers(e.metadata instanceof Metadata ? e.metadata : undefined);
  const details: ServerErrorDetails = { method, code, status, serverMessage, identifiers };
  const cause = { cause: err };
  switch (code) {
    case GrpcStatus.INVALID_ARGUMENT:
      return new ArkServerRejectedError(details, parseServerMessage(serverMessage), cause);
    case GrpcStatus.NOT_FOUND:
      return new ArkServerNotFoundError(details, parseServerMessage(serverMessage), cause);
    case GrpcStatus.DEADLINE_EXCEEDED:
      return new ArkServerDeadlineError(details, cause);
    case GrpcStatus.UNAVAILABLE:
      return new ArkServerUnavailableError(details, cause);
    case GrpcStatus.INTERNAL:
      return new ArkServerInternalError(details, cause);
    case GrpcStatus.UNIMPLEMENTED:
      return new ArkServerUnimplementedError(details, cause);
    case GrpcStatus.CANCELLED:
      return new ArkServerCancelledError(details, cause);
    default:
      return new ArkServerUnexpectedError(details, cause);
  }
}

function afterLast(message: string, prefix: string): string | undefined {
  const i = message.lastIndexOf(prefix);
  return i < 0 ? undefined : message.slice(i + prefix.length);
}

function splitList(list: string): string[] {
  return list
    .split(",")
    .map((s) => s.trim().replace(/^["']|["']$/g, ""))
    .filter((s) => s.length > 0);
}
