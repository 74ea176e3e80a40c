import { UnknownWalletNetworkError } from "./errors.js";
import type { NetworkName } from "./ark-info.js";

/**
 * The bitcoin network an Ark server announces for a wallet network: `mainnet` → `bitcoin`,
 * `signet` and `mutinynet` (a signet) → `signet`, `regtest` → `regtest`.
 */
export function serverNetworkOf(walletNetwork: string): NetworkName {
  switch (walletNetwork) {
    case "mainnet": return "bitcoin";
    case "signet": case "mutinynet": return "signet";
    case "regtest": return "regtest";
    default: throw new UnknownWalletNetworkError(walletNetwork);
  }
}
