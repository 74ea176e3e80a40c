import type { Network } from "@tender/ark-protocol";
import { UnknownWalletNetworkError } from "@tender/ark-protocol/server";

export { UnknownWalletNetworkError };

/** The protocol core's network of a wallet network (addresses use it for their HRP). */
export function protocolNetworkOf(walletNetwork: string): Network {
  switch (walletNetwork) {
    case "mainnet": return "bitcoin";
    case "signet": return "signet";
    case "mutinynet": return "mutinynet";
    case "regtest": return "regtest";
    default: throw new UnknownWalletNetworkError(walletNetwork);
  }
}
