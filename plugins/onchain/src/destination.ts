import { address, networks, type Network } from "bitcoinjs-lib";
import { InvalidAddressError, WrongNetworkAddressError } from "./errors.js";

const ALL_NETWORKS: readonly Network[] = [networks.bitcoin, networks.testnet, networks.regtest];

/**
 * The output script of `addr` on the wallet's network. Throws {@link WrongNetworkAddressError}
 * for an address of another network and {@link InvalidAddressError} for anything else.
 */
export function destinationScript(addr: string, network: Network, walletNetwork: string): Uint8Array {
  const trimmed = addr.trim();
  try {
    return address.toOutputScript(trimmed, network);
  } catch (e) {
    for (const other of ALL_NETWORKS) {
      if (other === network) continue;
      try {
        address.toOutputScript(trimmed, other);
        throw new WrongNetworkAddressError(trimmed, walletNetwork);
      } catch (inner) {
        if (inner instanceof WrongNetworkAddressError) throw inner;
      }
    }
    throw new InvalidAddressError(trimmed, e instanceof Error ? e.message : String(e));
  }
}
