/**
 * Wallet keys derived from the BIP-39 seed as bark does: VTXO keys `m/350'/0'/i`, the mailbox key
 * `m/350'/1'`, the recovery mailbox key `m/350'/2'`, the wallet fingerprint (of `m/350'`, not of
 * the master key) and the BIP-86 on-chain keys `m/86'/c'/0'/0/i`.
 *
 * @example
 * ```ts
 * const keys = WalletKeys.fromMnemonic("abandon … about");
 * keys.fingerprint;            // "53bdf6b1"
 * keys.vtxoKey(0).publicKey;   // 33-byte compressed key of m/350'/0'/0
 * ```
 */
import type { BIP32Interface } from "bip32";
import { bip32 } from "./bip32-factory.js";
import * as bip39 from "bip39";
import { ProtocolError } from "./errors.js";
import { toHex } from "./encoding.js";
import { hash160 } from "./hashes.js";
import { isMainnet, type Network } from "./network.js";

/** A derived secp256k1 key pair with its derivation path. */
export interface DerivedKey {
  readonly path: string;
  readonly secretKey: Uint8Array;
  /** 33-byte compressed public key. */
  readonly publicKey: Uint8Array;
}

/** BIP-32 purpose index under which all Ark keys live. */
export const ARK_PURPOSE = 350;

/** Thrown for an invalid mnemonic or seed. */
export class KeyDerivationError extends ProtocolError {}

function toKey(node: BIP32Interface, path: string): DerivedKey {
  if (!node.privateKey) throw new KeyDerivationError("derived node has no private key");
  return { path, secretKey: Uint8Array.from(node.privateKey), publicKey: Uint8Array.from(node.publicKey) };
}

/** The key tree of one wallet seed. */
export class WalletKeys {
  private readonly root: BIP32Interface;
  private readonly arkNode: BIP32Interface;

  private constructor(seed: Uint8Array) {
    if (seed.length < 16 || seed.length > 64) throw new KeyDerivationError("seed must be 16..64 bytes");
    try {
      this.root = bip32.fromSeed(seed);
    } catch (e) {
      throw new KeyDerivationError(`invalid seed: ${(e as Error).message}`);
    }
    this.arkNode = this.root.deriveHardened(ARK_PURPOSE);
  }

  /** Keys of a BIP-39 mnemonic with the empty passphrase (as bark does). */
  static fromMnemonic(mnemonic: string): WalletKeys {
    if (!bip39.validateMnemonic(mnemonic)) throw new KeyDerivationError("invalid BIP-39 mnemonic");
    return new WalletKeys(mnemonicToSeed(mnemonic));
  }

  /** Keys of a 64-byte BIP-39 seed. */
  static fromSeed(seed: Uint8Array): WalletKeys {
    return new WalletKeys(seed);
  }

  /** Master fingerprint (of the root key; informative, not the wallet fingerprint). */
  get rootFingerprint(): string {
    return toHex(this.root.fingerprint);
  }

  /** Wallet fingerprint: first 4 bytes of HASH160 of the `m/350'` pubkey, as 8 hex chars. */
  get fingerprint(): string {
    return toHex(hash160(this.arkNode.publicKey).slice(0, 4));
  }

  /** VTXO key `m/350'/0'/index` (index not hardened). */
  vtxoKey(index: number): DerivedKey {
    if (!Number.isInteger(index) || index < 0 || index >= 0x80000000) throw new KeyDerivationError("invalid VTXO key index");
    return toKey(this.arkNode.deriveHardened(0).derive(index), `m/350'/0'/${index}`);
  }

  /** Mailbox key `m/350'/1'`; its pubkey is the wallet's unified mailbox id. */
  mailboxKey(): DerivedKey {
    return toKey(this.arkNode.deriveHardened(1), "m/350'/1'");
  }

  /** Recovery mailbox key `m/350'/2'`. */
  recoveryMailboxKey(): DerivedKey {
    return toKey(this.arkNode.deriveHardened(2), "m/350'/2'");
  }

  /** BIP-86 on-chain key `m/86'/c'/0'/0/index`, c = 0 on mainnet and 1 elsewhere. */
  onchainKey(network: Network, index: number): DerivedKey {
    if (!Number.isInteger(index) || index < 0 || index >= 0x80000000) throw new KeyDerivationError("invalid address index");
    const coin = isMainnet(network) ? 0 : 1;
    const path = `m/86'/${coin}'/0'/0/${index}`;
    return toKey(this.root.derivePath(path), path);
  }
}

/** The 64-byte BIP-39 seed of `mnemonic` with the empty passphrase. */
export function mnemonicToSeed(mnemonic: string, passphrase = ""): Uint8Array {
  return Uint8Array.from(bip39.mnemonicToSeedSync(mnemonic, passphrase));
}

/** A fresh 12-word English BIP-39 mnemonic (bark's default length). */
export function generateMnemonic(): string {
  return bip39.generateMnemonic(128);
}

/** Whether `mnemonic` is a valid English BIP-39 mnemonic. */
export function isValidMnemonic(mnemonic: string): boolean {
  return bip39.validateMnemonic(mnemonic);
}
