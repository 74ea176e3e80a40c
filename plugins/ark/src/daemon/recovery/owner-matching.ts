import { toHex, type Vtxo } from "@tender/ark-protocol";
import type { VtxoKey } from "../keys/ark-keys.js";

/** Unused VTXO key indexes tolerated past the last match before a VTXO is taken for someone else's. */
export const RECOVERY_GAP_LIMIT = 50;

/** What owner matching needs of the wallet's keys. */
export interface OwnerKeys {
  keyByPubkey(pubkey: Uint8Array): Promise<VtxoKey | undefined>;
  deriveVtxoKey(index: number): VtxoKey;
  readonly nextUnusedIndex: number;
  revealUpTo(index: number): Promise<void>;
}

/** The VTXOs of the seed with their keys, and those no key within the gap limit owns. */
export interface OwnerMatch {
  readonly owned: { vtxo: Vtxo; key: VtxoKey }[];
  readonly foreign: Vtxo[];
}

/**
 * Finds the key of each VTXO. A VTXO whose key the wallet handed out already matches at once;
 * the others are looked for from the first unused index on, key by key, until
 * {@link RECOVERY_GAP_LIMIT} keys in a row matched nothing. Each match records every key up to
 * it as handed out (the wallet hands keys out in order) and moves the window past it, so the
 * order of the VTXOs does not matter. Keys past the last match are not recorded, so a scan
 * that matched nothing leaves no trace and a repeated recovery ends with the same keys.
 */
export async function matchOwners(vtxos: readonly Vtxo[], keys: OwnerKeys, gapLimit = RECOVERY_GAP_LIMIT): Promise<OwnerMatch> {
  const owned: { vtxo: Vtxo; key: VtxoKey }[] = [];
  const pending = new Map<string, Vtxo[]>();
  for (const vtxo of vtxos) {
    const key = await keys.keyByPubkey(vtxo.policy.userPubkey);
    if (key) owned.push({ vtxo, key });
    else {
      const hex = toHex(vtxo.policy.userPubkey);
      pending.set(hex, [...(pending.get(hex) ?? []), vtxo]);
    }
  }
  let frontier = keys.nextUnusedIndex + gapLimit;
  for (let index = keys.nextUnusedIndex; index <= frontier && pending.size > 0; index++) {
    const key = keys.deriveVtxoKey(index);
    const hex = toHex(key.publicKey);
    const mine = pending.get(hex);
    if (!mine) continue;
    pending.delete(hex);
    await keys.revealUpTo(index);
    frontier = index + gapLimit;
    for (const vtxo of mine) owned.push({ vtxo, key });
  }
  return { owned, foreign: [...pending.values()].flat() };
}
