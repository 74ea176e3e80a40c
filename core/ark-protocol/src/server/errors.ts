/**
 * The errors an Ark server connection throws, whatever carries it. Every one is an
 * {@link ArkClientError}; the daemon answers with its {@link ArkClientError.httpStatus} (barkd answers
 * 500 for every Ark server failure) and the cause chain as the message.
 *
 * Server answers are split the way bark's client splits them:
 * - a *rejection* (the server refused the request as invalid, or did not find what it names) means
 *   the server changed nothing — wallet actions roll back;
 * - everything else is *transient* — wallet actions retry with back-off.
 */

/** Base class of every Ark server connection error. */
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

/** A wallet network the connection does not know (known: `mainnet`, `signet`, `mutinynet`, `regtest`). */
export class UnknownWalletNetworkError extends ArkClientError {
  constructor(readonly network: string) {
    super(`unknown wallet network: ${network}`);
  }
}

/** The server's protocol version range does not overlap the client's (bark's texts). */
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

/** The text bark shows when the pinned server key changed. */
export const SERVER_PUBKEY_CHANGED_MESSAGE = "Server public key has changed. You should exit all your VTXOs!";
/** The text bark shows when the pinned mailbox key changed. */
export const MAILBOX_PUBKEY_CHANGED_MESSAGE = "Server mailbox public key has changed.";
/** barkd's text for an Ark address whose server id is not the connected server's. */
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

/** The server's Ark info is something the wallet must not use (network mismatch, missing fees, bad deltas…). */
export class InvalidArkInfoError extends ArkClientError {}

/** The server answered a call with a message the wallet cannot use (a field missing or of an unknown value). */
export class InvalidServerResponseError extends ArkClientError {}

/**
 * The established connection to the server went away. The next call or heartbeat reconnects and
 * checks the server's identity again (whoever answers may be another server).
 */
export class ArkServerConnectionLostError extends ArkClientError {
  constructor(readonly address: string) {
    super(`connection to Ark server ${address} lost`);
  }
}

/** A call was made after the connection was closed. */
export class ArkClientClosedError extends ArkClientError {
  constructor() {
    super("Ark server client is closed");
  }
}

/** What is known about a failed call to the server. */
export interface ServerErrorDetails {
  /** Fully qualified method path, e.g. `/bark_server.ArkService/GetArkInfo`. */
  readonly method: string;
  /** Status code of the transport (gRPC's numeric status). */
  readonly code: number;
  /** The status's name (gRPC's, e.g. `INVALID_ARGUMENT`), shown in the message. */
  readonly status: string;
  /** The server's message. */
  readonly serverMessage: string;
  /** The ids the server names as what the failure is about (its `identifiers` trailer), split on commas. */
  readonly identifiers: readonly string[];
}

/** Base of every failure answered by (or on the way to) the server. */
export abstract class ArkServerError extends ArkClientError implements ServerErrorDetails {
  readonly method: string;
  readonly code: number;
  readonly status: string;
  readonly serverMessage: string;
  readonly identifiers: readonly string[];
  /** Whether the server refused and changed nothing (rejection) rather than failed transiently. */
  abstract readonly isRejection: boolean;
  constructor(details: ServerErrorDetails, options?: { cause?: unknown }) {
    super(`Ark server ${methodName(details.method)} failed (${details.status}): ${details.serverMessage}`, options);
    this.method = details.method;
    this.code = details.code;
    this.status = details.status;
    this.serverMessage = details.serverMessage;
    this.identifiers = details.identifiers;
  }
  /** Whether the wallet should retry later (the opposite of a rejection). */
  get isTransient(): boolean {
    return !this.isRejection;
  }
}

/**
 * The server refused the request as invalid (bad user input, unusable inputs, a request that does
 * not decode) and changed nothing. {@link badUserInput} and {@link unusableInputs} hold what the
 * message's prefixes say; {@link rejectedVtxoIds} the VTXO ids among the identifiers.
 */
export class ArkServerRejectedError extends ArkServerError {
  readonly isRejection = true;
  /** The reason after the last `bad user input: ` of the message, if present. */
  readonly badUserInput: string | undefined;
  /** The ids listed in `unusable inputs: [id,id]`, if present. */
  readonly unusableInputs: readonly string[] | undefined;
  /** Every identifier that parses as a VTXO id (`<64 hex txid>:<vout>`); others are skipped. */
  readonly rejectedVtxoIds: readonly string[];
  constructor(details: ServerErrorDetails, parsed: { badUserInput?: string; unusableInputs?: readonly string[] }, options?: { cause?: unknown }) {
    super(details, options);
    this.badUserInput = parsed.badUserInput;
    this.unusableInputs = parsed.unusableInputs;
    this.rejectedVtxoIds = details.identifiers.filter(isVtxoIdText);
  }
  /**
   * Whether an offboard rejection proves the server found the inputs spendable: its fee-rate,
   * amount and address checks run only after the inputs passed its spendability check.
   */
  get inputsCheckedSpendable(): boolean {
    return OFFBOARD_LATE_CHECKS.some((s) => this.serverMessage.includes(s));
  }
}

const OFFBOARD_LATE_CHECKS = ["fee rate is no longer valid", "does not match expected amount", "output address is blocked"];

/** The server did not find what the request names (`not found: <reason>`, ids in the identifiers); a rejection. */
export class ArkServerNotFoundError extends ArkServerRejectedError {
  /** The reason after the last `not found: ` of the message, if present. */
  readonly notFound: string | undefined;
  constructor(details: ServerErrorDetails, parsed: { badUserInput?: string; unusableInputs?: readonly string[]; notFound?: string }, options?: { cause?: unknown }) {
    super(details, parsed, options);
    this.notFound = parsed.notFound;
  }
}

/** The call did not finish within its deadline. Transient. */
export class ArkServerDeadlineError extends ArkServerError {
  readonly isRejection = false;
}

/** The server cannot be reached, or refuses because the client or a server component is too old or missing. Transient. */
export class ArkServerUnavailableError extends ArkServerError {
  readonly isRejection = false;
  /** Whether the message asks the user to update the wallet (the server's "…NEED TO UPDATE…" texts). */
  get needsClientUpdate(): boolean {
    return /need to update/i.test(this.serverMessage);
  }
}

/**
 * The server failed (`internal error`, or its full error chain). Transient. {@link isStreamReset}
 * marks an idle stream reset by a proxy (`h2 protocol error…`): resubscribe quietly.
 */
export class ArkServerInternalError extends ArkServerError {
  readonly isRejection = false;
  get isStreamReset(): boolean {
    return this.serverMessage.startsWith(H2_RESET_PREFIX);
  }
}

/** The server does not implement the call: a removed feature (e.g. offboards in rounds) or an RPC it lacks. */
export class ArkServerUnimplementedError extends ArkServerError {
  readonly isRejection = false;
}

/** The call was cancelled (by the client closing, or the server going away mid-call). Transient. */
export class ArkServerCancelledError extends ArkServerError {
  readonly isRejection = false;
}

/** Any other failure status (unknown, resources exhausted, aborted…). Transient. */
export class ArkServerUnexpectedError extends ArkServerError {
  readonly isRejection = false;
}

/** Message prefix of an HTTP/2 stream reset passed through as an internal error. */
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
