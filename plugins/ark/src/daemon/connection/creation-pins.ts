import type { PinnedServerKeys } from "@tender/ark-protocol/server";

/**
 * The server keys the creation check saw, handed to the new wallet's connection when it opens
 * (and written to `ark_state` then). Only the last creation attempt's keys are kept.
 */
export class CreationPins {
  private keys: PinnedServerKeys | undefined;

  remember(keys: PinnedServerKeys): void {
    this.keys = keys;
  }

  forget(): void {
    this.keys = undefined;
  }

  /** The remembered keys, forgotten from then on. */
  take(): PinnedServerKeys | undefined {
    const k = this.keys;
    this.keys = undefined;
    return k;
  }
}
