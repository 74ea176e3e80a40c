/**
 * Bitcoin networks the protocol distinguishes (BIP-86 coin type, Ark address HRP).
 */

/** A network a wallet or an Ark server runs on. */
export type Network = "bitcoin" | "testnet" | "signet" | "regtest" | "mutinynet";

/** All supported networks. */
export const NETWORKS: readonly Network[] = ["bitcoin", "testnet", "signet", "regtest", "mutinynet"];

/** True only for mainnet. */
export function isMainnet(network: Network): boolean {
  return network === "bitcoin";
}

/** Segwit (BIP-173/350) human-readable part of on-chain addresses on `network`. */
export function segwitHrp(network: Network): string {
  switch (network) {
    case "bitcoin":
      return "bc";
    case "regtest":
      return "bcrt";
    default:
      return "tb";
  }
}
