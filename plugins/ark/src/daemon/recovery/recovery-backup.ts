import { ArkServerNotFoundError, ArkServerRejectedError, type ArkServer } from "@tender/ark-protocol/server";
import { encodeOutPoint, encodeVtxo, parseOutPoint, type DerivedKey } from "@tender/ark-protocol";
import type { Logger } from "@tender/core";
import { mailboxAuthorization } from "../mailbox/mailbox-authorization.js";
import type { VtxoStore } from "../vtxos/vtxo-store.js";

/** Most ids one `PostRecoveryVtxoIds` may carry (`MAX_NB_MAILBOX_RECOVERY_IDS`). */
export const MAX_RECOVERY_IDS = 20;
/** Validity of the recovery mailbox authorization (bark: 60 s). */
export const RECOVERY_AUTH_SECS = 60;
/** VTXOs per `RegisterVtxoTransactions` of the catch-up (a chunk that fails is retried VTXO by VTXO). */
export const RECOVERY_REGISTER_CHUNK = 20;

/** What backing VTXOs up for recovery works with: the wallet's Ark server, its keys and its VTXOs. */
export interface RecoveryBackupPorts {
  readonly server: Pick<ArkServer, "postRecoveryVtxoIds" | "registerVtxoTransactions">;
  readonly keys: { recoveryMailboxKey(): DerivedKey };
  readonly vtxos: Pick<VtxoStore, "get" | "notRecoveryRegistered" | "markRecoveryRegistered">;
  readonly logger: Logger;
}

const text = (e: unknown): string => (e instanceof Error ? e.message : String(e));

/** Posts `ids` to the recovery mailbox in chunks of {@link MAX_RECOVERY_IDS}; throws on the first failure. */
async function post(p: Pick<RecoveryBackupPorts, "server" | "keys">, ids: readonly string[]): Promise<void> {
  const key = p.keys.recoveryMailboxKey();
  for (let i = 0; i < ids.length; i += MAX_RECOVERY_IDS) {
    await p.server.postRecoveryVtxoIds({
      mailboxId: key.publicKey,
      vtxoIds: ids.slice(i, i + MAX_RECOVERY_IDS).map((id) => encodeOutPoint(parseOutPoint(id))),
      authorization: mailboxAuthorization({ mailboxKey: () => key }, RECOVERY_AUTH_SECS),
    });
  }
}

/**
 * Backs up the ids of VTXOs the wallet just stored in its recovery mailbox (`m/350'/2'`, from
 * which a wallet restored from its seed finds them again). Best effort: a failure is logged, never
 * thrown, and the next sync's {@link catchUpRecovery} posts what was missed. When the caller has
 * registered the VTXOs' signed chains with the server (`chainsRegistered`) and the post
 * succeeded, the VTXOs are marked, so the catch-up leaves them alone. Answers whether the post
 * succeeded.
 *
 * Every rail that stores VTXOs calls it (arkoor send and receive, imports here; Lightning,
 * rounds, offboards, boards in their plugins).
 */
export async function backUpVtxoIds(p: RecoveryBackupPorts, ids: readonly string[], opts: { chainsRegistered?: boolean } = {}): Promise<boolean> {
  if (ids.length === 0) return true;
  try {
    await post(p, ids);
  } catch (e) {
    p.logger.warn(`posting ${ids.length} VTXO id(s) to the recovery mailbox failed (the next sync posts them again): ${text(e)}`);
    return false;
  }
  if (opts.chainsRegistered) {
    await p.vtxos.markRecoveryRegistered(ids).catch((e: unknown) => p.logger.warn(`recording the recovery backup of ${ids.length} VTXO(s) failed: ${text(e)}`));
  }
  return true;
}

/** What one {@link catchUpRecovery} did, by VTXO id. */
export interface RecoveryCatchUp {
  /** Ids posted to the recovery mailbox (empty when the post failed). */
  readonly posted: string[];
  /** Ids now marked: posted and their chains registered. */
  readonly marked: string[];
  /** Ids whose chain registration the server refused or could not take (retried at the next sync). */
  readonly failed: string[];
  /** Ids of VTXOs the server does not know yet (a board not registered yet): left for later. */
  readonly unknown: string[];
}

/**
 * The sync-time recovery catch-up: every VTXO not spent and not marked yet gets its signed chain
 * registered with the server and its id posted to the recovery mailbox, so a wallet restored
 * from the seed finds it even when a backup at store time was lost (server down, crash). The two
 * are independent and idempotent on the server, and one failing does not stop the other.
 * Chains are registered in chunks of {@link RECOVERY_REGISTER_CHUNK}; a chunk the server refuses
 * is retried VTXO by VTXO, so one rejected VTXO does not hold the others back. A VTXO the server
 * does not know yet (a board before its registration) is neither registered nor posted. A VTXO
 * is marked once its chain was registered and the post succeeded, and later syncs skip it.
 * Throws when the server cannot be reached (nothing is marked then).
 */
export async function catchUpRecovery(p: RecoveryBackupPorts): Promise<RecoveryCatchUp> {
  const candidates = await p.vtxos.notRecoveryRegistered();
  const result: RecoveryCatchUp = { posted: [], marked: [], failed: [], unknown: [] };
  if (candidates.length === 0) return result;
  const registered: string[] = [];
  const known: string[] = [];
  const register = async (chunk: typeof candidates): Promise<void> => {
    await p.server.registerVtxoTransactions(chunk.map((v) => encodeVtxo(v.vtxo)));
    for (const v of chunk) {
      registered.push(v.id);
      known.push(v.id);
    }
  };
  // a refusal is about the VTXO; anything else (server down, connection lost) stops the catch-up
  const refused = (id: string, e: unknown): void => {
    if (!(e instanceof ArkServerRejectedError)) throw e;
    if (e instanceof ArkServerNotFoundError) {
      result.unknown.push(id);
      return;
    }
    p.logger.warn(`recovery catch-up: registering VTXO ${id} failed; a recovery from the seed may miss it until it succeeds: ${text(e)}`);
    result.failed.push(id);
    known.push(id);
  };
  for (let i = 0; i < candidates.length; i += RECOVERY_REGISTER_CHUNK) {
    const chunk = candidates.slice(i, i + RECOVERY_REGISTER_CHUNK);
    try {
      await register(chunk);
      continue;
    } catch (e) {
      if (!(e instanceof ArkServerRejectedError)) throw e;
      if (chunk.length === 1) {
        refused(chunk[0]!.id, e);
        continue;
      }
      p.logger.debug(`recovery catch-up: registering ${chunk.length} VTXO chains failed, trying one by one: ${text(e)}`);
    }
    for (const v of chunk) await register([v]).catch((e: unknown) => refused(v.id, e));
  }
  if (known.length > 0) {
    try {
      await post(p, known);
      result.posted.push(...known);
    } catch (e) {
      p.logger.warn(`recovery catch-up: posting ${known.length} VTXO id(s) to the recovery mailbox failed (retried at the next sync): ${text(e)}`);
    }
  }
  if (result.posted.length > 0 && registered.length > 0) {
    await p.vtxos.markRecoveryRegistered(registered);
    result.marked.push(...registered);
  }
  if (result.posted.length > 0 || result.failed.length > 0) {
    p.logger.info(`recovery catch-up: ${result.posted.length} VTXO id(s) posted, ${result.marked.length} marked, ${result.failed.length} registration(s) failed`);
  }
  return result;
}
