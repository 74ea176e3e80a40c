import * as ecc from "tiny-secp256k1";
import { crypto, initEccLib, networks, payments, toXOnly, type Network, type Signer } from "bitcoinjs-lib";
import type { BIP32Interface } from "bip32";

initEccLib(ecc);

/** The bitcoinjs network parameters (address encodings) of a wallet network. */
export function addressNetworkOf(walletNetwork: string): Network {
  switch (walletNetwork) {
    case "mainnet": return networks.bitcoin;
    case "regtest": return networks.regtest;
    default: return networks.testnet; // signet and mutinynet use testnet encodings (tb1…)
  }
}

/** One derived key of the keychain: its index, x-only internal key, output script and address. */
export interface DerivedKey {
  readonly index: number;
  readonly internalKey: Uint8Array;
  readonly script: Uint8Array;
  readonly scriptHex: string;
  readonly address: string;
}

/**
 * The wallet's BIP-86 keychain `tr(m/86'/c'/0'/0/*)` (c = 0 on mainnet, 1 elsewhere). Like
 * bark's on-chain wallet it uses the external chain only: change goes to a fresh external
 * address too. Keys are derived once and cached.
 *
 * @example
 * const chain = new Bip86Keychain(master, "regtest");
 * chain.key(0).address; // "bcrt1p…"
 */
export class Bip86Keychain {
  readonly network: Network;
  private readonly external: BIP32Interface;
  private readonly cache = new Map<number, DerivedKey>();
  private readonly byScript = new Map<string, number>();

  constructor(master: BIP32Interface, readonly walletNetwork: string) {
    this.network = addressNetworkOf(walletNetwork);
    const coin = walletNetwork === "mainnet" ? 0 : 1;
    this.external = master.derivePath(`m/86'/${coin}'/0'/0`);
  }

  /** The key at `index` of the external chain. */
  key(index: number): DerivedKey {
    let k = this.cache.get(index);
    if (!k) {
      const internalKey = toXOnly(this.external.derive(index).publicKey);
      const p = payments.p2tr({ internalPubkey: internalKey, network: this.network });
      const scriptHex = Buffer.from(p.output!).toString("hex");
      k = { index, internalKey, script: p.output!, scriptHex, address: p.address! };
      this.cache.set(index, k);
      this.byScript.set(scriptHex, index);
    }
    return k;
  }

  /** Derives keys `0..count-1` (so {@link indexOfScript} knows them). */
  deriveUpTo(count: number): void {
    for (let i = 0; i < count; i++) this.key(i);
  }

  /** The index of a derived key paying `scriptHex`, or `undefined`. */
  indexOfScript(scriptHex: string): number | undefined {
    return this.byScript.get(scriptHex);
  }

  /** A signer for the key-path spend of the output at `index` (the BIP-341 tweaked key, no script tree). */
  signer(index: number): Signer {
    const child = this.external.derive(index);
    return child.tweak(crypto.taggedHash("TapTweak", toXOnly(child.publicKey)));
  }
}
