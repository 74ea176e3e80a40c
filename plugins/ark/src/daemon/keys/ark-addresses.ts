import { encodeArkAddress, toHex, walletArkAddress } from "@tender/ark-protocol";
import type { ArkInfo } from "@tender/ark-protocol/server";
import type { ArkKeys, VtxoKey } from "./ark-keys.js";
import { protocolNetworkOf } from "../connection/networks.js";

/** Addresses already encoded, per wallet's keys (blinding the mailbox id costs a point multiplication). */
const encoded = new WeakMap<ArkKeys, Map<string, string>>();
const ENCODED_MAX = 4_096;

/**
 * The Ark address (`ark1…`/`tark1…`) of one VTXO key: the key as `pubkey` policy, the server's
 * Ark id, and delivery to the wallet's mailbox blinded with that key (bark's `ServerMailbox`
 * delivery: only the server can unblind it, with its mailbox key).
 */
export function arkAddressOf(keys: ArkKeys, key: VtxoKey, info: Pick<ArkInfo, "serverPubkey" | "mailboxPubkey">, walletNetwork: string): string {
  let byKey = encoded.get(keys);
  if (!byKey) encoded.set(keys, (byKey = new Map()));
  const id = `${walletNetwork}|${toHex(info.serverPubkey)}|${toHex(info.mailboxPubkey)}|${toHex(key.publicKey)}`;
  const known = byKey.get(id);
  if (known) return known;
  const address = encodeArkAddress(walletArkAddress({
    network: protocolNetworkOf(walletNetwork),
    serverPubkey: info.serverPubkey,
    serverMailboxPubkey: info.mailboxPubkey,
    mailboxId: keys.mailboxKey().publicKey,
    vtxoPubkey: key.publicKey,
    vtxoSecretKey: key.secretKey,
  }));
  if (byKey.size >= ENCODED_MAX) byKey.clear();
  byKey.set(id, address);
  return address;
}
