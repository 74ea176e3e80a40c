import type { ArkRail } from "../ark-rail.js";
import { backUpVtxoIds } from "../recovery/recovery-backup.js";

export { MAX_RECOVERY_IDS, RECOVERY_AUTH_SECS } from "../recovery/recovery-backup.js";

/**
 * Backs up the ids of VTXOs the Ark rail now holds in the wallet's recovery mailbox (see
 * {@link backUpVtxoIds}): best effort, caught up by the next sync when it fails.
 * `chainsRegistered`: the VTXOs' signed chains are registered with the server already.
 */
export async function postRecoveryIds(w: ArkRail, ids: readonly string[], opts: { chainsRegistered?: boolean } = {}): Promise<void> {
  await backUpVtxoIds(w, ids, opts);
}
