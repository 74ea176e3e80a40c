import type { Database } from "@tender/core";
import { fromHex, toHex } from "@tender/ark-protocol";
import type { MailboxMessage } from "@tender/ark-protocol/server";
import { ArkKeptMailboxMessageRow } from "../persistence/entities.js";

/** JSON of a mailbox message as kept: bytes as `{ "$hex": … }`, bigints as `{ "$bigint": "…" }`. */
function toJson(v: unknown): unknown {
  if (v instanceof Uint8Array) return { $hex: toHex(v) };
  if (typeof v === "bigint") return { $bigint: v.toString() };
  if (Array.isArray(v)) return v.map(toJson);
  if (v !== null && typeof v === "object") return Object.fromEntries(Object.entries(v).filter(([, x]) => x !== undefined).map(([k, x]) => [k, toJson(x)]));
  return v;
}

function fromJson(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(fromJson);
  if (v !== null && typeof v === "object") {
    const o = v as Record<string, unknown>;
    if (typeof o.$hex === "string") return fromHex(o.$hex);
    if (typeof o.$bigint === "string") return BigInt(o.$bigint);
    return Object.fromEntries(Object.entries(o).map(([k, x]) => [k, fromJson(x)]));
  }
  return v;
}

/** A kept message with when it was kept. */
export interface KeptMailboxMessage {
  readonly message: MailboxMessage;
  readonly keptAtMs: number;
}

/**
 * Mailbox messages no handler claimed yet (`ark_kept_mailbox_message`), kept in the wallet
 * database so the mailbox checkpoint can move past them without losing them.
 */
export class KeptMailboxMessages {
  constructor(private readonly db: Database, private readonly now: () => number = Date.now) {}

  /** Keeps `message` (idempotent: a message is kept once, by its checkpoint). */
  async keep(message: MailboxMessage): Promise<void> {
    const em = this.db.em();
    if (await em.findOne(ArkKeptMailboxMessageRow, { checkpoint: message.checkpoint })) return;
    em.create(ArkKeptMailboxMessageRow, { checkpoint: message.checkpoint, kind: message.kind, message: JSON.stringify(toJson(message)), keptAtMs: BigInt(this.now()) });
    await em.flush();
  }

  /** Every kept message, oldest checkpoint first. */
  async list(): Promise<KeptMailboxMessage[]> {
    const rows = await this.db.em().find(ArkKeptMailboxMessageRow, {}, { orderBy: { checkpoint: "asc" } });
    return rows.map((r) => ({ message: fromJson(JSON.parse(r.message)) as MailboxMessage, keptAtMs: Number(r.keptAtMs) }));
  }

  /** Forgets the message at `checkpoint` (its handler processed it). */
  async remove(checkpoint: bigint): Promise<void> {
    await this.db.em().nativeDelete(ArkKeptMailboxMessageRow, { checkpoint });
  }
}
