import { address, networks, type Network } from "bitcoinjs-lib";
import { InvalidAddressError, WrongNetworkAddressError } from "./errors.js";

const ALL_NETWORKS: readonly Network[] = [networks.bitcoin, networks.testnet, networks.regtest];

/** The longest bitcoin address: a bech32(m) string is at most 90 characters. */
const MAX_ADDRESS_LENGTH = 90;

/**
 * The output script of `addr` on the wallet's network. Throws {@link WrongNetworkAddressError}
 * for an address of another network and {@link InvalidAddressError} for anything else.
 */
export function destinationScript(addr: string, network: Network, walletNetwork: string): Uint8Array {
  // taken as given, as barkd does (surrounding whitespace makes it invalid); no address is longer
  // than a bech32 string's 90 characters, and longer input is refused before base58 decoding,
  // whose cost grows with the square of the length
  const trimmed = addr;
  if (addr.length > MAX_ADDRESS_LENGTH) throw new InvalidAddressError(`${addr.slice(0, 16)}…`, `longer than ${MAX_ADDRESS_LENGTH} characters`);
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
