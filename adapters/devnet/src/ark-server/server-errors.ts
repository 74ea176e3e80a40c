/**
 * The reference server's error kinds (captaind's). Domain code throws these; the gRPC layer
 * maps each kind to its status code once ({@link grpcStatusOf}).
 *
 * | Class | gRPC code | Message on the wire |
 * |---|---|---|
 * | {@link BadUserInputError} | INVALID_ARGUMENT (3) | `[context: ]bad user input: <reason>` |
 * | {@link UnusableInputsError} | INVALID_ARGUMENT (3) | same, plus `identifiers` trailer |
 * | {@link RequestConversionError} | INVALID_ARGUMENT (3) | the bare reason ("invalid public key", …) |
 * | {@link NotFoundError} | NOT_FOUND (5) | `not found: <reason>` plus `identifiers` trailer |
 * | {@link UnavailableError} | UNAVAILABLE (14) | the bare reason |
 * | {@link UnimplementedError} | UNIMPLEMENTED (12) | the bare reason |
 * | anything else | INTERNAL (13) | the error text (`rpc_rich_errors = true`) |
 */

/** Base class of every refusal the reference server produces on purpose. */
export class ArkServerError extends Error {
  constructor(
    message: string,
    /** Ids the client can act on (VTXO ids `txid:vout`, hashes); sent as the `identifiers` trailer. */
    readonly identifiers: readonly string[] = [],
  ) {
    super(message);
    this.name = new.target.name;
  }
}

/** The user sent something the rules refuse; the message carries the `bad user input: ` prefix. */
export class BadUserInputError extends ArkServerError {
  /** The reason without prefix or context. */
  readonly reason: string;
  constructor(reason: string, context?: string, identifiers: readonly string[] = []) {
    super(`${context ? `${context}: ` : ""}bad user input: ${reason}`, identifiers);
    this.reason = reason;
  }
}

/** Inputs that cannot be spent (spent, exited, banned, unregistered…); identifiers = their ids. */
export class UnusableInputsError extends BadUserInputError {}

/** A request field did not decode (bad bytes); message without the `bad user input:` prefix. */
export class RequestConversionError extends ArkServerError {}

/** Something the request names is unknown to the server. */
export class NotFoundError extends ArkServerError {
  constructor(reason: string, identifiers: readonly string[] = []) {
    super(`not found: ${reason}`, identifiers);
  }
}

/** The client is too old or a component is missing. */
export class UnavailableError extends ArkServerError {}

/** The feature was removed or is not offered by this server. */
export class UnimplementedError extends ArkServerError {}

/** gRPC status codes used by the server. */
export const GrpcCode = {
  OK: 0,
  INVALID_ARGUMENT: 3,
  NOT_FOUND: 5,
  UNIMPLEMENTED: 12,
  INTERNAL: 13,
  UNAVAILABLE: 14,
} as const;

/** The gRPC status code, message and `identifiers` trailer of any thrown value, as captaind maps them. */
export function grpcStatusOf(err: unknown): { code: number; message: string; identifiers: readonly string[] } {
  if (err instanceof NotFoundError) return { code: GrpcCode.NOT_FOUND, message: err.message, identifiers: err.identifiers };
  if (err instanceof BadUserInputError || err instanceof RequestConversionError) {
    return { code: GrpcCode.INVALID_ARGUMENT, message: err.message, identifiers: err.identifiers };
  }
  if (err instanceof UnavailableError) return { code: GrpcCode.UNAVAILABLE, message: err.message, identifiers: [] };
  if (err instanceof UnimplementedError) return { code: GrpcCode.UNIMPLEMENTED, message: err.message, identifiers: [] };
  const text = err instanceof Error ? err.message : String(err);
  return { code: GrpcCode.INTERNAL, message: `internal error: ${text}`, identifiers: [] };
}
