import { encodeOutPoint, parseOutPoint } from "@tender/ark-protocol";
import type { ArkRail } from "../ark-rail.js";
import { mailboxAuthorization } from "./mailbox-authorization.js";

/** Most ids one `PostRecoveryVtxoIds` may carry (`MAX_NB_MAILBOX_RECOVERY_IDS`). */
export const MAX_RECOVERY_IDS = 20;
/** Validity of the recovery mailbox authorization (bark: 60 s). */
export const RECOVERY_AUTH_SECS = 60;

/**
 * Backs up the ids of VTXOs the wallet now holds in its recovery mailbox (`m/350'/2'`, from which
 * a wallet restored from its seed can find them again), in chunks of 20. Best effort: failures are logged, never thrown.
 */
export async function postRecoveryIds(w: ArkRail, ids: readonly string[]): Promise<void> {
  if (ids.length === 0) return;
  try {
    const key = w.keys.recoveryMailboxKey();
    for (let i = 0; i < ids.length; i += MAX_RECOVERY_IDS) {
      const chunk = ids.slice(i, i + MAX_RECOVERY_IDS).map((id) => encodeOutPoint(parseOutPoint(id)));
      await w.server.postRecoveryVtxoIds({
        mailboxId: key.publicKey, vtxoIds: chunk, authorization: mailboxAuthorization({ mailboxKey: () => key }, RECOVERY_AUTH_SECS),
      });
    }
  } catch (e) {
    w.logger.warn(`posting ${ids.length} VTXO id(s) to the recovery mailbox failed: ${e instanceof Error ? e.message : String(e)}`);
  }
}
