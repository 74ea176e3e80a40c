import { BadRequestError } from "@tender/core";

/** The destination is not a bitcoin address at all (barkd: `bad request: Invalid destination address…`). */
export class InvalidAddressError extends BadRequestError {
  constructor(readonly address: string, detail: string) {
    super(`bad request: Invalid destination address: ${detail}`);
  }
}

/** The destination is an address of another network (barkd: `bad request: Address is not valid for configured network…`). */
export class WrongNetworkAddressError extends BadRequestError {
  constructor(readonly address: string, readonly network: string) {
    super(`bad request: Address is not valid for configured network ${network}: ${address}`);
  }
}

/** A `send-many` entry or amount that does not parse. */
export class InvalidAmountError extends BadRequestError {
  constructor(detail: string) {
    super(`bad request: invalid amount: ${detail}`);
  }
}

/** A `send-many` entry without `address:amount`. */
export class InvalidDestinationFormatError extends BadRequestError {
  constructor() {
    super("bad request: invalid destination format, expected address:amount");
  }
}

/** An output below the dust limit of its script. */
export class DustOutputError extends BadRequestError {
  constructor(readonly amountSat: bigint, readonly dustLimitSat: bigint) {
    super(`bad request: amount ${amountSat} sat is below the dust limit of ${dustLimitSat} sat for this destination`);
  }
}

/** The spendable coins do not cover the amounts plus the fee. Nothing was signed or stored. */
export class InsufficientFundsError extends BadRequestError {
  constructor(readonly neededSat: bigint, readonly availableSat: bigint) {
    super(`Failed to send onchain payment: Insufficient funds: needed ${neededSat} sat (amount plus fee), spendable ${availableSat} sat`);
  }
}

/** `send-many` with no destinations. */
export class NoDestinationsError extends BadRequestError {
  constructor() {
    super("bad request: no destinations given");
  }
}

/** The coins a CPFP child needs would make it larger than a TRUC child may be (1000 vB). */
export class CpfpChildTooLargeError extends Error {
  constructor(readonly vsize: number) {
    super(`a CPFP child of ${vsize} vB would exceed the 1000 vB TRUC child limit; consolidate wallet coins first`);
  }
}
