import { InternalServerError, UnprocessableEntityError } from "@tender/core";
import type { OnchainWallet } from "./onchain-wallet.js";

/**
 * The on-chain wallet of the loaded wallet, as other plugins reach it: it opens asynchronously
 * after the wallet loads, so {@link get} waits for it.
 */
export class LoadedOnchainWallet {
  private opening: Promise<OnchainWallet> | undefined;
  private generation = 0;

  /** Starts opening for a newly loaded wallet. */
  attach(open: () => Promise<OnchainWallet>): void {
    this.generation++;
    const p = open();
    p.catch(() => undefined);
    this.opening = p;
  }

  detach(): void {
    this.generation++;
    this.opening = undefined;
  }

  /** Whether a wallet is loaded (its on-chain part may still be opening). */
  get isAttached(): boolean {
    return this.opening !== undefined;
  }

  /** The loaded wallet's on-chain wallet; 422 without a wallet, 500 if it could not open. */
  async get(): Promise<OnchainWallet> {
    if (!this.opening) throw new UnprocessableEntityError("No wallet set");
    try {
      return await this.opening;
    } catch (e) {
      throw new InternalServerError(`the on-chain wallet could not be opened: ${e instanceof Error ? e.message : String(e)}`);
    }
  }
}
