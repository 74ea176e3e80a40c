import { HttpError } from "../http/errors.js";

/**
 * The wallet's seed is encrypted and the daemon has not been given its passphrase: nothing that
 * needs the wallet's keys can run. 423 Locked with barkd's error body (`{"message"}`).
 */
export class WalletLockedError extends HttpError {
  readonly status = 423;
  constructor() {
    super("Wallet is locked: unlock it with POST /api/v1/wallet/unlock");
  }
}
