/**
 * Typed errors of the Ark protocol core. Every failure of a decoder, builder or validator in
 * this folder is one of these classes, so callers can map them once (for example to an HTTP
 * status) and never see a raw `RangeError` or `TypeError` from malformed input.
 */

/** Base class of every error thrown by the protocol core. */
export class ProtocolError extends Error {
  constructor(message: string) {
    super(message);
    this.name = new.target.name;
  }
}

/**
 * Malformed bytes or strings: truncated input, trailing bytes, an invalid key, an unknown type
 * byte, a length that cannot fit, a value out of its protocol bounds.
 */
export class ProtocolDecodeError extends ProtocolError {}

/** A VTXO that decodes but does not validate against its chain anchor, or is not standard. */
export class VtxoValidationError extends ProtocolError {}

/** Why an Ark address was refused: when decoding it, or when checking it before a payment. */
export type AddressErrorReason =
  | "hrp"
  | "arkade"
  | "unknown-version"
  | "invalid"
  | "different-network"
  | "different-server"
  | "policy-not-allowed"
  | "no-delivery";

/** An Ark address that cannot be decoded or cannot be paid to. */
export class AddressError extends ProtocolDecodeError {
  constructor(
    readonly reason: AddressErrorReason,
    message: string,
  ) {
    super(message);
  }
}
