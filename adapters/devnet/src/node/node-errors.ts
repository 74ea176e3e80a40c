/** Base class of errors the devnet node raises for bad requests (never for policy refusals: see PolicyError). */
export class DevnetNodeError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
  }
}

/** Input that cannot be parsed: bad hex, a truncated transaction, an address of another network. */
export class InvalidInputError extends DevnetNodeError {}

/** A control request that cannot be carried out (unknown txid, empty faucet, unsignable conflict). */
export class ControlError extends DevnetNodeError {}

/** A block refused by consensus validation; `reason` is bitcoind's reject string (`bad-txns-…`, `bad-cb-…`). */
export class BlockValidationError extends DevnetNodeError {
  constructor(
    readonly reason: string,
    readonly debug?: string,
  ) {
    super(debug ? `${reason}, ${debug}` : reason);
  }
}

/** The datadir holds something the node cannot replay. */
export class DatadirError extends DevnetNodeError {}
