import { InternalServerError, NoWalletError, defineWalletService, type WalletService } from "@tender/core";
import type { OnchainWallet } from "./onchain-wallet.js";

/**
 * The loaded wallet's BIP-86 on-chain wallet (addresses, coins, sends, PSBT signing, CPFP
 * funding), opened from its stored transactions when the wallet loads. Provided by the onchain
 * plugin.
 */
export const OnchainWalletService = defineWalletService<OnchainWallet>("onchain.wallet");

/**
 * The loaded wallet's on-chain wallet, as the HTTP routes answer for it: 422 `No wallet set`
 * without a wallet, 500 `the on-chain wallet could not be opened: …` when it failed to open.
 */
export async function openedOnchainWallet(onchain: WalletService<OnchainWallet>): Promise<OnchainWallet> {
  try {
    return await onchain.get();
  } catch (e) {
    if (e instanceof NoWalletError) throw e;
    throw new InternalServerError(`the on-chain wallet could not be opened: ${e instanceof Error ? e.message : String(e)}`);
  }
}
