import type { BIP32Interface } from "bip32";
import * as bip39 from "bip39";
import { bip32 } from "@tender/ark-protocol";

/** Path of bark's "bark node" key: the wallet fingerprint is its BIP-32 identifier, not the master's. */
export const WALLET_NODE_PATH = "m/350'";

/** The mnemonic is not a valid BIP-39 English phrase. */
export class InvalidMnemonicError extends Error {}

/** A new 12-word BIP-39 mnemonic (128 bits of entropy). */
export function generateMnemonic(): string {
  return bip39.generateMnemonic(128);
}

/** Normalizes and validates a BIP-39 phrase; throws {@link InvalidMnemonicError}. */
export function parseMnemonic(phrase: string): string {
  const words = phrase.trim().split(/\s+/).join(" ").normalize("NFKD");
  if (words.length === 0) throw new InvalidMnemonicError("mnemonic is empty");
  const n = words.split(" ").length;
  if (![12, 15, 18, 21, 24].includes(n)) throw new InvalidMnemonicError(`invalid word count ${n}`);
  try {
    bip39.mnemonicToEntropy(words);
  } catch (e) {
    throw new InvalidMnemonicError(e instanceof Error ? e.message : String(e));
  }
  return words;
}

/** The BIP-32 master key of a mnemonic (empty passphrase). */
export function masterKey(mnemonic: string): BIP32Interface {
  return bip32.fromSeed(bip39.mnemonicToSeedSync(mnemonic, ""));
}

/**
 * The wallet fingerprint: the first 4 bytes of HASH160 of the compressed public key of `m/350'`
 * (its BIP-32 identifier), as 8 lowercase hex characters — not the master fingerprint.
 */
export function walletFingerprint(master: BIP32Interface): string {
  return Buffer.from(master.derivePath(WALLET_NODE_PATH).fingerprint).toString("hex");
}
