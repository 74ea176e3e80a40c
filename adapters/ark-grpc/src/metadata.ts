/**
 * Request metadata and protocol-version negotiation, as captaind expects them.
 *
 * The first `Handshake` on a channel goes out without `pver`; once the version is negotiated,
 * every call (heartbeat handshakes included) carries `pver: <decimal>`. `x-user-agent` goes on
 * every call.
 */
import { Metadata } from "@grpc/grpc-js";
import { ProtocolVersionMismatchError } from "./errors.js";

/** Metadata key of the negotiated protocol version. */
export const PVER_HEADER = "pver";
/** Metadata key of the client's user agent (`<name>/<version>`). */
export const USER_AGENT_HEADER = "x-user-agent";

/** The protocol versions this client speaks: 5 only (rounds and Lightning are refused below 5). */
export const CLIENT_PROTOCOL_VERSIONS = { min: 5, max: 5 } as const;

/** A closed range of protocol versions. */
export interface VersionRange {
  readonly min: number;
  readonly max: number;
}

/**
 * Picks the protocol version to speak: `min(client.max, server.max)`, or throws
 * {@link ProtocolVersionMismatchError} with bark's wording when the ranges do not overlap.
 *
 * @example
 * negotiateProtocolVersion({ min: 5, max: 5 }, { min: 4, max: 5 }); // 5
 */
export function negotiateProtocolVersion(client: VersionRange, server: VersionRange): number {
  if (client.max < server.min || client.min > server.max) throw new ProtocolVersionMismatchError(client, server);
  return Math.min(client.max, server.max);
}

const USER_AGENT = /^[a-z0-9_-]{1,32}\/\S+$/;

/** Whether `ua` is a valid `x-user-agent` value (`<name>/<version>`, name 1–32 of `[a-z0-9_-]`). */
export function isValidUserAgent(ua: string): boolean {
  return USER_AGENT.test(ua);
}

/** Builds the metadata of one call; `pver` is omitted until a version was negotiated. */
export function callMetadata(opts: { pver: number | undefined; userAgent: string | undefined }): Metadata {
  const md = new Metadata();
  if (opts.pver !== undefined) md.set(PVER_HEADER, String(opts.pver));
  if (opts.userAgent !== undefined) md.set(USER_AGENT_HEADER, opts.userAgent);
  return md;
}

/**
 * Reads the `pver` header a server received: the version, or an error text matching captaind's
 * (`missing pver header`, `invalid protocol version header`). For servers and fakes.
 */
export function readPver(md: Metadata): { pver: number } | { error: string } {
  const v = md.get(PVER_HEADER)[0];
  if (v === undefined) return { error: "missing pver header" };
  const s = typeof v === "string" ? v : v.toString("utf8");
  if (!/^\d{1,9}$/.test(s)) return { error: "invalid protocol version header" };
  return { pver: Number(s) };
}
