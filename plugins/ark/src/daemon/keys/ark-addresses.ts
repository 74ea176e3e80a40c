import { encodeArkAddress, walletArkAddress } from "@tender/ark-protocol";
import type { ArkInfo } from "@tender/ark-protocol/server";
import type { ArkKeys, VtxoKey } from "./ark-keys.js";
import { protocolNetworkOf } from "../connection/networks.js";

/**
 * The Ark address (`ark1…`/`tark1…`) of one VTXO key: the key as `pubkey` policy, the server's
 * Ark id, and delivery to the wallet's mailbox blinded with that key (bark's `ServerMailbox`
 * delivery: only the server can unblind it, with its mailbox key).
 */
export function arkAddressOf(keys: ArkKeys, key: VtxoKey, info: Pick<ArkInfo, "serverPubkey" | "mailboxPubkey">, walletNetwork: string): string {
  return encodeArkAddress(walletArkAddress({
    network: protocolNetworkOf(walletNetwork),
    serverPubkey: info.serverPubkey,
    serverMailboxPubkey: info.mailboxPubkey,
    mailboxId: keys.mailboxKey().publicKey,
    vtxoPubkey: key.publicKey,
    vtxoSecretKey: key.secretKey,
  }));
}
