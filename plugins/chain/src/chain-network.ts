import type { ChainNetwork } from "@tender/core";

/** The wallet's network is not one tender knows how to reach. */
export class UnsupportedWalletNetworkError extends Error {
  constructor(readonly network: string) {
    super(`unsupported wallet network: ${network}`);
  }
}

/** A wallet network (bark's `Network`) as the chain sees it: mutinynet is a signet. */
export function chainNetworkOf(walletNetwork: string): ChainNetwork {
  switch (walletNetwork) {
    case "mainnet": return "mainnet";
    case "signet":
    case "mutinynet": return "signet";
    case "regtest": return "regtest";
    default: throw new UnsupportedWalletNetworkError(walletNetwork);
  }
}
