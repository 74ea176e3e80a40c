/**
 * Typed errors of the Ark server client. Every error this package throws is an
 * {@link ArkClientError}; the daemon maps them to HTTP with {@link ArkClientError.httpStatus}
 * (barkd answers 500 for every Ark server failure, rest-api.md §2.6) and the cause chain as message.
 *
 * Server answers are split the way bark's client splits them (flows §1.5):
 * - a *rejection* (`INVALID_ARGUMENT`, `NOT_FOUND`) means the server refused and changed nothing —
 *   wallet actions roll back;
 * - everything else is *transient* — wallet actions retry with back-off.
 */
import { status as GrpcStatus } from "@grpc/grpc-js";

/** Base class of every error thrown by `@tender/ark-grpc`. */
export abstract class ArkClientError extends Error {
  /** HTTP status the daemon answers with (barkd: 500 for Ark server failures). */
  readonly httpStatus: number = 500;
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
  }
}

/** The configured server URL is not an `http://` or `https://` URL with a host. */
export class ArkServerUrlError extends ArkClientError {
  constructor(readonly url: string, detail: string) {
    super(`invalid Ark server URL: ${detail}`);
  }
}

/** The server's protocol version range does not overlap the client's (flows §1.3). */
export class ProtocolVersionMismatchError extends ArkClientError {
  constructor(
    readonly client: { min: number; max: number },
    readonly server: { min: number; max: number },
  ) {
    super(
      client.max < server.min
        ? `version mismatch. Client max is: ${client.max}, server min is: ${server.min}`
        : `version mismatch. Client min is: ${client.min}, server max is: ${server.max}`,
    );
  }
}

/** The text bark shows when the pinned server key changed (flows §1.4). */
export const SERVER_PUBKEY_CHANGED_MESSAGE = "Server public key has changed. You should exit all your VTXOs!";
/** The text bark shows when the pinned mailbox key changed (flows §1.4). */
export const MAILBOX_PUBKEY_CHANGED_MESSAGE = "Server mailbox public key has changed.";
/** The text for an Ark address whose server id is not the connected server's (flows §1.5). */
export const DIFFERENT_SERVER_MESSAGE = "Ark address is for different server";

/** The server presents a different `server_pubkey` than the one pinned at wallet creation. */
export class ServerPubkeyChangedError extends ArkClientError {
  constructor(readonly pinnedHex: string, readonly receivedHex: string) {
    super(SERVER_PUBKEY_CHANGED_MESSAGE);
  }
}

/** The server presents a different `mailbox_pubkey` than the pinned one. */
export class MailboxPubkeyChangedError extends ArkClientError {
  constructor(readonly pinnedHex: string, readonly receivedHex: string) {
    super(MAILBOX_PUBKEY_CHANGED_MESSAGE);
  }
}

/** An Ark address (or other server-bound object) belongs to another Ark server. */
export class DifferentServerError extends ArkClientError {
  override readonly httpStatus: number = 400;
  constructor() {
    super(DIFFERENT_SERVER_MESSAGE);
  }
}

/** `GetArkInfo` answered something the wallet must not use (network mismatch, missing fees, bad deltas…). */
export class InvalidArkInfoError extends ArkClientError {}

/**
 * The established connection to the server went away. The next call or heartbeat reconnects and
 * checks the server's identity again (whoever answers may be another server).
 */
export class ArkServerConnectionLostError extends ArkClientError {
  constructor(readonly address: string) {
    super(`connection to Ark server ${address} lost`);
  }
}

/** A call was made while the client is closed. */
export class ArkClientClosedError extends ArkClientError {
  constructor() {
    super("Ark server client is closed");
  }
}

/** What the client knows about a failed gRPC call. */
export interface ServerErrorDetails {
  /** Fully qualified method path, e.g. `/bark_server.ArkService/GetArkInfo`. */
  readonly method: string;
  /** gRPC status code. */
  readonly code: GrpcStatus;
  /** The server's message (gRPC `details`). */
  readonly serverMessage: string;
  /** The `identifiers` trailer, split on commas (empty when absent). */
  readonly identifiers: readonly string[];
}

/** Base of every failure answered by (or on the way to) the server. */
export abstract class ArkServerError extends ArkClientError implements ServerErrorDetails {
  readonly method: string;
  readonly code: GrpcStatus;
  readonly serverMessage: string;
  readonly identifiers: readonly string[];
  /** Whether the server refused and changed nothing (rejection) rather than failed transiently. */
  abstract readonly isRejection: boolean;
  constructor(details: ServerErrorDetails, options?: { cause?: unknown }) {
    super(`Ark server ${methodName(details.method)} failed (${GrpcStatus[details.code] ?? details.code}): ${details.serverMessage}`, options);
    this.method = details.method;
    this.code = details.code;
    this.serverMessage = details.serverMessage;
    this.identifiers = details.identifiers;
  }
  /** Whether the wallet should retry later (the opposite of a rejection). */
  get isTransient(): boolean {
    return !this.isRejection;
  }
}

/**
 * `INVALID_ARGUMENT`: bad user input, unusable inputs or a request that does not decode. The
 * server changed nothing. {@link badUserInput} and {@link unusableInputs} hold what the message
 * prefixes say; {@link rejectedVtxoIds} the VTXO ids of the `identifiers` trailer.
 */
export class ArkServerRejectedError extends ArkServerError {
  readonly isRejection = true;
  /** The reason after the last `bad user input: ` of the message, if present. */
  readonly badUserInput: string | undefined;
  /** The ids listed in `unusable inputs: [id,id]`, if present. */
  readonly unusableInputs: readonly string[] | undefined;
  /** Every `identifiers` entry that parses as a VTXO id (`<64 hex txid>:<vout>`); others are skipped. */
  readonly rejectedVtxoIds: readonly string[];
  constructor(details: ServerErrorDetails, parsed: { badUserInput?: string; unusableInputs?: readonly string[] }, options?: { cause?: unknown }) {
    super(details, options);
    this.badUserInput = parsed.badUserInput;
    this.unusableInputs = parsed.unusableInputs;
    this.rejectedVtxoIds = details.identifiers.filter(isVtxoIdText);
  }
  /**
   * Whether an offboard rejection proves the server found the inputs spendable (its fee-rate,
   * amount and address checks run after the spendability check, flows §1.5/§4.7).
   */
  get inputsCheckedSpendable(): boolean {
    return OFFBOARD_LATE_CHECKS.some((s) => this.serverMessage.includes(s));
  }
}

const OFFBOARD_LATE_CHECKS = ["fee rate is no longer valid", "does not match expected amount", "output address is blocked"];

/** `NOT_FOUND`: a rejection naming what was not found (`not found: <reason>`, ids in `identifiers`). */
export class ArkServerNotFoundError extends ArkServerRejectedError {
  /** The reason after the last `not found: ` of the message, if present. */
  readonly notFound: string | undefined;
  constructor(details: ServerErrorDetails, parsed: { badUserInput?: string; unusableInputs?: readonly string[]; notFound?: string }, options?: { cause?: unknown }) {
    super(details, parsed, options);
    this.notFound = parsed.notFound;
  }
}

/** The call did not finish within its deadline (`DEADLINE_EXCEEDED`). Transient. */
export class ArkServerDeadlineError extends ArkServerError {
  readonly isRejection = false;
}

/** The server cannot be reached, or refuses because the client or a server component is too old/missing (`UNAVAILABLE`). Transient. */
export class ArkServerUnavailableError extends ArkServerError {
  readonly isRejection = false;
  /** Whether the message asks the user to update the wallet (flows §1.3). */
  get needsClientUpdate(): boolean {
    return /need to update/i.test(this.serverMessage);
  }
}

/**
 * `INTERNAL`: the server failed (`internal error`, or its full chain with rich errors). Transient.
 * {@link isStreamReset} marks an idle stream reset by a proxy (`h2 protocol error…`): resubscribe quietly.
 */
export class ArkServerInternalError extends ArkServerError {
  readonly isRejection = false;
  get isStreamReset(): boolean {
    return this.serverMessage.startsWith(H2_RESET_PREFIX);
  }
}

/** `UNIMPLEMENTED`: a removed feature (e.g. offboards in rounds) or an RPC the server lacks. */
export class ArkServerUnimplementedError extends ArkServerError {
  readonly isRejection = false;
}

/** The call was cancelled (by the client closing, or the server going away mid-call). Transient. */
export class ArkServerCancelledError extends ArkServerError {
  readonly isRejection = false;
}

/** Any other gRPC status (UNKNOWN, RESOURCE_EXHAUSTED, ABORTED…). Transient. */
export class ArkServerUnexpectedError extends ArkServerError {
  readonly isRejection = false;
}

/** Message prefix of an HTTP/2 stream reset passed through as `INTERNAL` (flows §1.5). */
export const H2_RESET_PREFIX = "h2 protocol error";

const VTXO_ID_TEXT = /^[0-9a-f]{64}:\d{1,10}$/;

/** Whether `s` is a VTXO id in text form (`<txid hex>:<vout>`, vout a u32). */
export function isVtxoIdText(s: string): boolean {
  return VTXO_ID_TEXT.test(s) && Number(s.slice(65)) <= 0xffff_ffff;
}

function methodName(path: string): string {
  const i = path.lastIndexOf("/");
  return i >= 0 ? path.slice(i + 1) : path;
}
