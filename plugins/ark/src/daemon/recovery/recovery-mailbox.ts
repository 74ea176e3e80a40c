import { decodeExact, decodeVtxo, formatOutPoint, readOutPoint, vtxoIdString } from "@tender/ark-protocol";
import type { ArkServer, MailboxMessage } from "@tender/ark-protocol/server";
import type { Logger } from "@tender/core";
import { mailboxAuthorization } from "../mailbox/mailbox-authorization.js";
import { RECOVERY_AUTH_SECS } from "../mailbox/recovery-ids.js";

/** The VTXO ids a recovery mailbox holds, and the checkpoint its reading reached. */
export interface RecoveryMailboxIds {
  /** Distinct ids (`txid:vout`), in the order first seen. */
  readonly ids: string[];
  readonly checkpoint: bigint;
}

/** The ids a message names: backed-up ids, or the ids of arkoor VTXOs; undecodable entries are logged and left out. */
function idsOf(msg: MailboxMessage, logger: Logger): string[] | undefined {
  const out: string[] = [];
  if (msg.kind === "recovery-vtxo-ids") {
    for (const raw of msg.vtxoIds) {
      try {
        out.push(formatOutPoint(decodeExact(raw, readOutPoint)));
      } catch {
        logger.warn(`recovery: ignoring an undecodable VTXO id of ${raw.length} bytes`);
      }
    }
    return out;
  }
  if (msg.kind === "arkoor") {
    for (const raw of msg.vtxos) {
      try {
        out.push(vtxoIdString(decodeVtxo(raw)));
      } catch {
        logger.warn(`recovery: ignoring an undecodable VTXO of ${raw.length} bytes`);
      }
    }
    return out;
  }
  return undefined;
}

/**
 * Reads a recovery mailbox from the start, page by page while the server says more follow (the
 * page size is the server's), and collects the ids of its recovery-id and arkoor messages, each
 * once. Stops when a page moved the checkpoint nowhere, so a server that keeps saying "more"
 * cannot hold it in a loop.
 */
export async function readRecoveryMailbox(server: Pick<ArkServer, "readMailbox">, key: { mailboxKey(): { secretKey: Uint8Array; publicKey: Uint8Array } }, logger: Logger): Promise<RecoveryMailboxIds> {
  const seen = new Set<string>();
  let checkpoint = 0n;
  for (let page = 1; ; page++) {
    const res = await server.readMailbox({ mailboxId: key.mailboxKey().publicKey, authorization: mailboxAuthorization(key, RECOVERY_AUTH_SECS), checkpoint });
    const before = checkpoint;
    for (const msg of res.messages) {
      const ids = idsOf(msg, logger);
      if (ids === undefined) continue;
      if (msg.checkpoint > checkpoint) checkpoint = msg.checkpoint;
      for (const id of ids) seen.add(id);
    }
    if (!res.haveMore) break;
    if (checkpoint === before) {
      logger.warn(`recovery: the recovery mailbox page ${page} moved past no checkpoint (${checkpoint}); stopping there`);
      break;
    }
  }
  return { ids: [...seen], checkpoint };
}
