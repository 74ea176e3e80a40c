import { HttpError } from "@tender/core";

/** 429 `{"message"}`: too many wrong passphrases in a row. */
export class TooManyAttemptsError extends HttpError {
  readonly status = 429;
}

/** Wrong passphrases allowed before the daemon makes the caller wait. */
const FREE_ATTEMPTS = 3;
const MAX_WAIT_MS = 5 * 60_000;

/**
 * Slows down passphrase guessing: after a few wrong passphrases in a row, each further attempt
 * must wait twice as long as the one before (1 s, 2 s, 4 s … up to 5 min). A right passphrase
 * clears it. Every attempt also costs a scrypt derivation, and the lifecycle lock runs one at a time.
 */
export class UnlockThrottle {
  private failures = 0;
  private notBefore = 0;

  constructor(private readonly now: () => number = Date.now) {}

  /** Throws {@link TooManyAttemptsError} while the caller must wait. */
  check(): void {
    const wait = this.notBefore - this.now();
    if (wait > 0) throw new TooManyAttemptsError(`Too many wrong passphrases: retry in ${Math.ceil(wait / 1000)} s`);
  }

  failed(): void {
    this.failures++;
    if (this.failures >= FREE_ATTEMPTS) this.notBefore = this.now() + Math.min(MAX_WAIT_MS, 1000 * 2 ** (this.failures - FREE_ATTEMPTS));
  }

  succeeded(): void {
    this.failures = 0;
    this.notBefore = 0;
  }
}
