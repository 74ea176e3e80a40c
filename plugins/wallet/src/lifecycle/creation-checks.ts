import type { WalletSettings } from "../config/wallet-settings.js";

/** What a creation check sees: the request's network, the new wallet's settings, restore data. */
export interface WalletCreationContext {
  network: string;
  config: WalletSettings;
  /** True when restoring from a given mnemonic. */
  restoring: boolean;
  birthdayHeight?: number;
}

/** A check run during wallet creation before anything is written (e.g. "the chain source answers, on this network"). */
export type WalletCreationCheck = (ctx: WalletCreationContext & { force: boolean }) => Promise<void>;

/**
 * Extension point of the wallet plugin: other plugins add checks that a new wallet's
 * configuration must pass. A check that throws aborts the creation with
 * `500 Error while creating wallet: <message>`, before any file is written.
 */
export class WalletCreationChecks {
  private readonly checks: { name: string; check: WalletCreationCheck }[] = [];

  add(name: string, check: WalletCreationCheck): void {
    this.checks.push({ name, check });
  }

  async runAll(ctx: WalletCreationContext & { force: boolean }): Promise<void> {
    for (const c of this.checks) await c.check(ctx);
  }
}
