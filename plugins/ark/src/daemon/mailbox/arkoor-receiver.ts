import { decodeVtxo, encodeVtxo, toHex, vtxoIdString, type Vtxo } from "@tender/ark-protocol";
import type { ArkRail } from "../ark-rail.js";
import { arkAddressOf } from "../keys/ark-addresses.js";
import { checkReceivedVtxo, VtxoNotAcceptedError } from "../vtxos/received-vtxo.js";
import { postRecoveryIds } from "./recovery-ids.js";

/**
 * Processes the VTXOs of one arkoor mailbox message (the receiving side of an arkoor payment): each is decoded and
 * checked (anchor, signatures, policy, server, expiry, ownership); invalid ones are logged and
 * dropped. New ones are registered with the server (best effort), stored as spendable, and
 * recorded as one `bark.arkoor`/`receive` movement per receiving address. Returns the ids stored.
 * Throws when the server or chain could not be asked (the checkpoint must then not advance).
 */
export async function receiveArkoorVtxos(w: ArkRail, encoded: readonly Uint8Array[]): Promise<string[]> {
  const info = (await w.server.connect()).arkInfo;
  const accepted: Vtxo[] = [];
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
    accepted.push(vtxo);
  }
  if (accepted.length === 0) return [];
  // the (best effort) registration runs while the VTXOs are stored; the recovery backup waits for it
  const registering = w.server.registerVtxoTransactions(accepted.map((v) => encodeVtxo(v))).then(() => true, (e: unknown) => {
    w.logger.debug(`mailbox: re-registering received VTXOs failed (best effort): ${e instanceof Error ? e.message : String(e)}`);
    return false;
  });
  const byKey = new Map<string, Vtxo[]>();
  for (const v of accepted) {
    const k = toHex(v.policy.userPubkey);
    byKey.set(k, [...(byKey.get(k) ?? []), v]);
  }
  const stored: string[] = [];
  for (const [pubkey, vtxos] of byKey) {
    // The VTXOs and their movement commit together: a crash in between must not leave received
    // funds without their history entry (a redelivery skips VTXOs that are already stored).
    const fresh = await w.db.transaction(async () => {
      const added: Vtxo[] = [];
      for (const v of vtxos) if (await w.vtxos.add(v, "spendable")) added.push(v);
      if (added.length === 0) return added;
      const key = w.keys.keyByPubkey(pubkey)!;
      const amount = added.reduce((s, v) => s + v.amount, 0n);
      await w.movements.create({
        status: "successful",
        subsystem: { name: "bark.arkoor", kind: "receive" },
        intendedBalanceSat: Number(amount),
        effectiveBalanceSat: Number(amount),
        receivedOn: [{ destination: { type: "ark", value: arkAddressOf(w.keys, key, info, w.settings().network) }, amount_sat: Number(amount) }],
        outputVtxos: added.map(vtxoIdString),
      });
      return added;
    });
    stored.push(...fresh.map(vtxoIdString));
  }
  const registered = await registering;
  await postRecoveryIds(w, stored, { chainsRegistered: registered });
  return stored;
}
