import { faultPoint } from "@tender/core";
import { decodeVtxo, toHex, vtxoIdString, type Vtxo } from "@tender/ark-protocol";
import type { ArkRail } from "../ark-rail.js";
import { arkAddressOf } from "../keys/ark-addresses.js";
import { backUpVtxoIds } from "../recovery/recovery-backup.js";
import { checkReceivedVtxo, VtxoNotAcceptedError } from "../vtxos/received-vtxo.js";
import type { MailboxAck } from "./mailbox-handlers.js";

/**
 * Fault points (`TENDER_FAULT_INJECT`) of an arkoor receive, in order: the VTXOs checked; the
 * server told (chains registered, ids backed up); everything written but not committed; committed.
 */
export const ARKOOR_RECEIVE_FAULT_POINTS = ["ark-receive:checked", "ark-receive:server-told", "ark-receive:before-commit", "ark-receive:committed"] as const;

/** A received VTXO that passed the checks, with the bytes it arrived as. */
interface Accepted {
  readonly vtxo: Vtxo;
  readonly id: string;
  readonly bytes: Uint8Array;
}

/**
 * Processes the VTXOs of one arkoor mailbox message (the receiving side of an arkoor payment): each is decoded and
 * checked (anchor, signatures, policy, server, expiry, ownership); invalid ones are logged and
 * dropped. New ones are registered with the server and backed up in the recovery mailbox (both
 * best effort, idempotent on the server, at once), then stored as spendable and recorded as one
 * `bark.arkoor`/`receive` movement per receiving address, in one commit that also marks their
 * recovery backup (when both server calls succeeded) and settles the message through `ack` (the
 * mailbox checkpoint moves past it). Returns the ids stored.
 * Throws when the server or chain could not be asked (the checkpoint must then not advance).
 */
export async function receiveArkoorVtxos(w: ArkRail, encoded: readonly Uint8Array[], ack?: MailboxAck): Promise<string[]> {
  const info = (await w.server.connect()).arkInfo;
  const accepted: Accepted[] = [];
  for (const bytes of encoded) {
    let vtxo: Vtxo;
    try {
      vtxo = decodeVtxo(bytes);
    } catch (e) {
      w.logger.warn(`mailbox: dropping an undecodable VTXO: ${e instanceof Error ? e.message : String(e)}`);
      continue;
    }
    const id = vtxoIdString(vtxo);
    if (await w.vtxos.get(id)) continue; // already stored (redelivery, or our own)
    try {
      await checkReceivedVtxo(vtxo, { chain: w.chain, keys: w.keys, serverPubkey: info.serverPubkey, exitDelta: info.vtxoExitDelta });
    } catch (e) {
      if (e instanceof VtxoNotAcceptedError) {
        w.logger.warn(`mailbox: dropping VTXO ${id}: ${e.message}`);
        continue;
      }
      throw e;
    }
    accepted.push({ vtxo, id, bytes });
  }
  if (accepted.length === 0) return [];
  faultPoint("ark-receive:checked");
  // Registering the chains and backing the ids up before the store: a crash before the store's
  // commit leaves the message unsettled, and its redelivery repeats both (idempotent); with the
  // outcome known, the store's commit also records the backup, so no commit of its own follows.
  const [registered, backedUp] = await Promise.all([
    w.server.registerVtxoTransactions(accepted.map((a) => a.bytes)).then(() => true, (e: unknown) => {
      w.logger.debug(`mailbox: re-registering received VTXOs failed (best effort): ${e instanceof Error ? e.message : String(e)}`);
      return false;
    }),
    backUpVtxoIds(w, accepted.map((a) => a.id)),
  ]);
  faultPoint("ark-receive:server-told");
  const byKey = new Map<string, Accepted[]>();
  for (const a of accepted) {
    const k = toHex(a.vtxo.policy.userPubkey);
    byKey.set(k, [...(byKey.get(k) ?? []), a]);
  }
  // The VTXOs, their movements and the message's checkpoint commit together: a crash in between
  // must neither leave received funds without their history entry nor skip the message before
  // its VTXOs are stored (a redelivery skips VTXOs that are already stored).
  const stored = await w.db.transaction(async () => {
    const ids: string[] = [];
    for (const [pubkey, group] of byKey) {
      const added: Accepted[] = [];
      for (const a of group) if (await w.vtxos.add(a.vtxo, "spendable")) added.push(a);
      if (added.length === 0) continue;
      const key = (await w.keys.keyByPubkey(pubkey))!;
      const amount = added.reduce((s, a) => s + a.vtxo.amount, 0n);
      await w.movements.create({
        status: "successful",
        subsystem: { name: "bark.arkoor", kind: "receive" },
        intendedBalanceSat: Number(amount),
        effectiveBalanceSat: Number(amount),
        receivedOn: [{ destination: { type: "ark", value: arkAddressOf(w.keys, key, info, w.settings().network) }, amount_sat: Number(amount) }],
        outputVtxos: added.map((a) => a.id),
      });
      ids.push(...added.map((a) => a.id));
    }
    if (registered && backedUp) await w.vtxos.markRecoveryRegistered(ids);
    await ack?.settleInTransaction();
    faultPoint("ark-receive:before-commit");
    return ids;
  });
  faultPoint("ark-receive:committed");
  return stored;
}
