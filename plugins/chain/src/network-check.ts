import type { ChainSource, ChainSourceRegistry, ChainSourceTuning } from "@tender/core";
import type { WalletCreationCheck } from "@tender/plugin-wallet";
import { chainNetworkOf } from "./chain-network.js";
import { buildChainSource } from "./chain-source-kind.js";

/** The chain source answers, but for another network than the wallet's. */
export class ChainNetworkMismatchError extends Error {
  constructor(readonly walletNetwork: string, readonly sourceNetwork: string, readonly source: string) {
    super(`chain source ${source} is on ${sourceNetwork}, but the wallet is for ${walletNetwork}`);
  }
}

/**
 * Connects to `source` and checks it runs the network the wallet is for. Throws the source's
 * own error when it cannot be reached, {@link ChainNetworkMismatchError} on another network.
 */
export async function checkChainNetwork(source: ChainSource, walletNetwork: string): Promise<void> {
  const expected = chainNetworkOf(walletNetwork);
  const actual = await source.getNetwork();
  if (actual !== expected) throw new ChainNetworkMismatchError(walletNetwork, actual, source.label);
}

/**
 * The wallet creation check of the chain plugin: the daemon can build the configured chain
 * source, and it answers on the wallet's network. A failure aborts the creation before anything
 * is written. On success `onBirthday` receives the wallet's chain birthday height.
 */
export function chainSourceCreationCheck(registry: ChainSourceRegistry, tuning: ChainSourceTuning, onBirthday?: (height: number) => void): WalletCreationCheck {
  return async (ctx) => {
    const source = buildChainSource(registry, ctx.config, ctx.network, tuning);
    await checkChainNetwork(source, ctx.network);
    if (!onBirthday) return;
    // A restore scans from its given birthday (or the genesis block); a new wallet from today's tip.
    onBirthday(ctx.restoring ? (ctx.birthdayHeight ?? 0) : (await source.getTip()).height);
  };
}
