import type { ChainSource } from "@tender/core";
import type { WalletCreationCheck } from "@tender/plugin-wallet";
import { chainNetworkOf, chainSourceFromConfig, type ChainSourceTuning } from "./chain-source-factory.js";

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
 * The wallet creation check of the bitcoin plugin: the configured chain source must answer, on
 * the wallet's network. A failure aborts the creation before anything is written. On success
 * `onBirthday` receives the wallet's chain birthday height.
 */
export function chainSourceCreationCheck(tuning: ChainSourceTuning, onBirthday?: (height: number) => void): WalletCreationCheck {
  return async (ctx) => {
    const source = chainSourceFromConfig(ctx.config, ctx.network, tuning);
    await checkChainNetwork(source, ctx.network);
    if (!onBirthday) return;
    // A restore scans from its given birthday (or the genesis block); a new wallet from today's tip.
    onBirthday(ctx.restoring ? (ctx.birthdayHeight ?? 0) : (await source.getTip()).height);
  };
}
