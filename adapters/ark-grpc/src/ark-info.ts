/**
 * Checks on `GetArkInfo` before the wallet uses it (the network is the wallet's, the keys are
 * compressed public keys, block deltas fit in 14 bits, the fee schedule is complete and ordered),
 * and server identity pinning (the keys never change once pinned).
 */
import type { PinnedServerKeys } from "@tender/ark-protocol/server";
import type { ArkInfo, PpmExpiryFeeEntry } from "./gen/bark_server.js";
import { InvalidArkInfoError, MailboxPubkeyChangedError, ServerPubkeyChangedError } from "./errors.js";

export type { PinnedServerKeys };

/** Largest block delta a client accepts (u16::MAX / 4). */
export const MAX_BLOCK_DELTA = 16383;

/** The network names a server may announce. */
export const NETWORKS = ["bitcoin", "testnet", "testnet4", "signet", "regtest"] as const;
/** A bitcoin network name as carried in `ArkInfo.network`. */
export type NetworkName = (typeof NETWORKS)[number];

/**
 * Validates a received `ArkInfo` for a wallet on `network`; throws {@link InvalidArkInfoError}
 * with bark's wording (`network mismatch. Expected: X, Got: Y`, `missing fees`, `invalid fee schedule`…).
 */
export function validateArkInfo(info: ArkInfo, network: NetworkName): void {
  if (info.network !== network) throw new InvalidArkInfoError(`network mismatch. Expected: ${network}, Got: ${info.network}`);
  checkPubkey("server_pubkey", info.serverPubkey);
  checkPubkey("mailbox_pubkey", info.mailboxPubkey);
  const deltas: [string, number][] = [
    ["vtxo_exit_delta", info.vtxoExitDelta],
    ["vtxo_expiry_delta", info.vtxoExpiryDelta],
    ["htlc_send_expiry_delta", info.htlcSendExpiryDelta],
    ["htlc_expiry_delta", info.htlcExpiryDelta],
    ["max_user_invoice_cltv_delta", info.maxUserInvoiceCltvDelta],
    ["vtxo_lifetime", effectiveVtxoLifetime(info)],
  ];
  for (const [name, v] of deltas) {
    if (v > MAX_BLOCK_DELTA) throw new InvalidArkInfoError(`invalid ark info: ${name} ${v} exceeds the maximum block delta ${MAX_BLOCK_DELTA}`);
  }
  if (info.maxVtxoExitDepth > 0xffff) throw new InvalidArkInfoError(`invalid ark info: max_vtxo_exit_depth ${info.maxVtxoExitDepth} does not fit 16 bits`);
  const f = info.fees;
  if (!f) throw new InvalidArkInfoError("missing fees");
  if (!f.board || !f.offboard || !f.refresh || !f.lightningReceive || !f.lightningSend) throw new InvalidArkInfoError("missing fees");
  for (const table of [f.offboard.ppmExpiryTable, f.refresh.ppmExpiryTable, f.lightningSend.ppmExpiryTable]) {
    if (!isMonotoneFeeTable(table)) throw new InvalidArkInfoError("invalid fee schedule");
  }
}

/** `vtxo_lifetime`, falling back to the deprecated `vtxo_expiry_delta` when the server leaves it 0. */
export function effectiveVtxoLifetime(info: ArkInfo): number {
  return info.vtxoLifetime !== 0 ? info.vtxoLifetime : info.vtxoExpiryDelta;
}

/** A ppm table is valid when its thresholds ascend and its ppms never decrease. */
export function isMonotoneFeeTable(table: readonly PpmExpiryFeeEntry[]): boolean {
  for (let i = 1; i < table.length; i++) {
    const a = table[i - 1]!;
    const b = table[i]!;
    if (b.expiryBlocksThreshold < a.expiryBlocksThreshold || b.ppm < a.ppm) return false;
  }
  return true;
}

/**
 * Compares the server's keys with the pinned ones; throws {@link ServerPubkeyChangedError} or
 * {@link MailboxPubkeyChangedError} with bark's texts when either changed.
 */
export function checkPinnedKeys(pinned: PinnedServerKeys, info: ArkInfo): void {
  if (!bytesEqual(pinned.serverPubkey, info.serverPubkey)) throw new ServerPubkeyChangedError(hex(pinned.serverPubkey), hex(info.serverPubkey));
  if (!bytesEqual(pinned.mailboxPubkey, info.mailboxPubkey)) throw new MailboxPubkeyChangedError(hex(pinned.mailboxPubkey), hex(info.mailboxPubkey));
}

function checkPubkey(name: string, key: Uint8Array): void {
  if (key.length !== 33 || (key[0] !== 2 && key[0] !== 3)) throw new InvalidArkInfoError(`invalid ark info: ${name} is not a 33-byte compressed public key`);
}

function bytesEqual(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && a.every((x, i) => x === b[i]);
}

/** Lower-case hex of `b`. */
export function hex(b: Uint8Array): string {
  return Buffer.from(b.buffer, b.byteOffset, b.byteLength).toString("hex");
}
