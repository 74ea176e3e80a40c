import type { Database } from "@tender/core";
import type { PinnedServerKeys } from "@tender/ark-protocol/server";
import { fromHex, toHex } from "@tender/ark-protocol";
import { ArkStateRow } from "../persistence/entities.js";

/** Reads the server keys the wallet pinned, if any (`ark_state`). */
export async function readPinnedKeys(db: Database): Promise<PinnedServerKeys | undefined> {
  const row = await db.em().findOne(ArkStateRow, { id: 1 });
  if (!row?.serverPubkey || !row.mailboxPubkey) return undefined;
  return { serverPubkey: fromHex(row.serverPubkey), mailboxPubkey: fromHex(row.mailboxPubkey) };
}

/** Pins the server keys (first connection, or the creation check's result). */
export async function writePinnedKeys(db: Database, keys: PinnedServerKeys): Promise<void> {
  const em = db.em();
  const row = await em.findOne(ArkStateRow, { id: 1 });
  if (row) {
    row.serverPubkey = toHex(keys.serverPubkey);
    row.mailboxPubkey = toHex(keys.mailboxPubkey);
  } else {
    em.persist(Object.assign(new ArkStateRow(), { id: 1, serverPubkey: toHex(keys.serverPubkey), mailboxPubkey: toHex(keys.mailboxPubkey) }));
  }
  await em.flush();
}

/** The mailbox checkpoint up to which messages were processed. */
export async function readMailboxCheckpoint(db: Database): Promise<bigint> {
  const row = await db.em().findOne(ArkStateRow, { id: 1 });
  return row ? BigInt(row.mailboxCheckpoint) : 0n;
}

/** Stores the mailbox checkpoint (never moves it backwards). */
export async function writeMailboxCheckpoint(db: Database, checkpoint: bigint): Promise<void> {
  const em = db.em();
  const row = await em.findOne(ArkStateRow, { id: 1 });
  if (!row) return;
  if (BigInt(row.mailboxCheckpoint) >= checkpoint) return;
  row.mailboxCheckpoint = checkpoint;
  await em.flush();
}
