import type { NetworkName } from "@tender/ark-grpc";
import type { Network } from "@tender/ark-protocol";

/** A wallet network name this plugin does not know. */
export class UnknownWalletNetworkError extends Error {
  constructor(readonly network: string) {
    super(`unknown wallet network: ${network}`);
  }
}

/** The network an Ark server announces for a wallet network (`mainnet` → `bitcoin`, `mutinynet` → `signet`). */
export function serverNetworkOf(walletNetwork: string): NetworkName {
  switch (walletNetwork) {
    case "mainnet": return "bitcoin";
    case "signet": case "mutinynet": return "signet";
    case "regtest": return "regtest";
    default: throw new UnknownWalletNetworkError(walletNetwork);
  }
}

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
