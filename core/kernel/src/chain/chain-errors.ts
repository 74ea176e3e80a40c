/** Options of a {@link ChainSourceError}. */
export interface ChainSourceErrorOptions {
  readonly cause?: unknown;
  /**
   * The backend certainly did not act on the request: it was never delivered (connection refused,
   * no DNS answer, an unreadable cookie file) or the backend answered that it did not run it
   * (bitcoind warming up). Default `false`: the request may have been carried out, e.g. after a
   * timeout or a connection lost mid-answer.
   */
  readonly notProcessed?: boolean;
}

/** Base class of every error a {@link ChainSource} throws. `source` never carries credentials. */
export abstract class ChainSourceError extends Error {
  /** See {@link ChainSourceErrorOptions.notProcessed}. */
  readonly notProcessed: boolean;

  constructor(
    readonly source: string,
    message: string,
    options?: ChainSourceErrorOptions,
  ) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    this.notProcessed = options?.notProcessed ?? false;
  }
}

/**
 * Whether `err` proves that the chain source did not act on the request (see
 * {@link ChainSourceErrorOptions.notProcessed}). A broadcast that failed this way never reached a
 * node; any other failure of a broadcast leaves it undecided.
 */
export function certainlyNotProcessed(err: unknown): boolean {
  return err instanceof ChainSourceError && err.notProcessed;
}

/** Why a backend was considered unreachable. */
export type UnavailableKind = "connection" | "timeout" | "server-error" | "warming-up";

/**
 * The backend could not be reached or kept failing transiently (connection refused, timeout,
 * HTTP 5xx), after all retries.
 */
export class ChainSourceUnavailableError extends ChainSourceError {
  constructor(
    source: string,
    readonly kind: UnavailableKind,
    readonly detail: string,
    readonly attempts = 1,
    options?: ChainSourceErrorOptions,
  ) {
    super(
      source,
      `chain source ${source} is unavailable (${kind}${attempts > 1 ? `, ${attempts} attempts` : ""}): ${detail}`,
      options,
    );
  }

  /**
   * The same failure, recording how many attempts were made; `notProcessed` is whether none of
   * them can have been carried out (default: this attempt's).
   */
  withAttempts(attempts: number, notProcessed = this.notProcessed): ChainSourceUnavailableError {
    return new ChainSourceUnavailableError(this.source, this.kind, this.detail, attempts, { cause: this.cause, notProcessed });
  }
}

/** The backend refused a transaction or package; `reason` is its message (e.g. `min relay fee not met`). */
export class ChainSourceRejectedError extends ChainSourceError {
  constructor(
    source: string,
    readonly reason: string,
    readonly code?: number,
  ) {
    super(source, `chain source ${source} rejected the transaction: ${reason}`);
  }
}

/** The backend answered something this client does not understand, or refused the request itself. */
export class ChainSourceProtocolError extends ChainSourceError {
  constructor(source: string, detail: string, options?: ChainSourceErrorOptions) {
    super(source, `chain source ${source} gave an unexpected answer: ${detail}`, options);
  }
}

/** The caller passed something malformed (not a 64-hex txid, an invalid address…); nothing was sent. */
export class ChainSourceInvalidRequestError extends ChainSourceError {
  constructor(source: string, detail: string) {
    super(source, `invalid request to chain source ${source}: ${detail}`, { notProcessed: true });
  }
}

/** Throws {@link ChainSourceInvalidRequestError} unless `value` is a 64-hex-digit hash or txid. */
export function assertHash(source: string, value: string, what = "hash"): void {
  if (!/^[0-9a-fA-F]{64}$/.test(value)) throw new ChainSourceInvalidRequestError(source, `${what} must be 64 hex digits`);
}

/** Throws {@link ChainSourceInvalidRequestError} unless `value` is a non-negative safe integer. */
export function assertIndex(source: string, value: number, what: string): void {
  if (!Number.isSafeInteger(value) || value < 0) throw new ChainSourceInvalidRequestError(source, `${what} must be a non-negative integer`);
}

/**
 * A URL safe to show in messages and logs: user info (user, password) and query are removed.
 * Unparseable input is replaced by a placeholder rather than echoed.
 */
export function redactUrl(url: string): string {
  try {
    const u = new URL(url);
    u.username = "";
    u.password = "";
    u.search = "";
    return u.toString().replace(/\/$/, "");
  } catch {
    return "<invalid url>";
  }
}
