/** The formats the Lightning destination decoders read. */
export type LightningFormat = "bolt11" | "bolt12-offer" | "bolt12-invoice" | "lnurl";

/**
 * A string or byte sequence that is not a valid value of `format`. `code` names the rule it breaks
 * (stable, for tests and callers); `message` says it for a person.
 */
export class LightningDecodeError extends Error {
  override readonly name = "LightningDecodeError";
  constructor(readonly format: LightningFormat, readonly code: string, message: string) {
    super(`invalid ${format}: ${message}`);
  }
}

/** Whether `e` is a {@link LightningDecodeError}, optionally of one format. */
export function isLightningDecodeError(e: unknown, format?: LightningFormat): e is LightningDecodeError {
  return e instanceof LightningDecodeError && (format === undefined || e.format === format);
}
