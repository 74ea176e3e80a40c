import { causeChainMessage } from "@tender/core";

/** An error's message with its causes (`outer: inner`), as barkd shows errors. */
export function errorText(e: unknown): string {
  return causeChainMessage(e);
}

/** barkd's context of a refresh whose participation could not be built (500). */
export const BUILD_CONTEXT = "Failed to build round participation";
/** barkd's context of a refresh whose participation could not be stored or handed to the server (500). */
export const STORE_CONTEXT = "Failed to store round participation";
