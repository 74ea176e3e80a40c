import { Entity, PrimaryKey, Property } from "@mikro-orm/decorators/legacy";
import type { Opt } from "@mikro-orm/core";
import { defineMigration } from "@tender/core";

/**
 * A row of `ark_vtxo`: one VTXO the wallet holds or held, with its wallet state. Its encoding is
 * in `ark_vtxo_encoding` ({@link ArkVtxoEncodingRow}), which a state change never rewrites.
 */
@Entity({ tableName: "ark_vtxo" })
export class ArkVtxoRow {
  /** `txid:vout`. */
  @PrimaryKey({ type: "string", length: 80 })
  id!: string;

  @Property({ type: "bigint", fieldName: "amount_sat" })
  amountSat!: bigint;

  @Property({ type: "integer", fieldName: "expiry_height" })
  expiryHeight!: number;

  /** `spendable`, `locked`, `spent` or `exited`. */
  @Property({ type: "string", length: 16 })
  state!: string;

  /** The action holding the lock while `state` is `locked`. */
  @Property({ type: "string", length: 255, nullable: true, fieldName: "locked_by" })
  lockedBy: string | null = null;

  @Property({ type: "bigint", fieldName: "created_at_ms" })
  createdAtMs!: bigint;

  @Property({ type: "bigint", fieldName: "updated_at_ms" })
  updatedAtMs!: bigint;

  /**
   * Whether the VTXO's recovery state is known to be on the server: its id posted to the
   * recovery mailbox and its signed chain registered. Set once both succeeded; the sync catches
   * up the VTXOs (not spent) where it is not set.
   */
  @Property({ type: "boolean", fieldName: "recovery_registered" })
  recoveryRegistered: Opt<boolean> = false;
}

/** A row of `ark_vtxo_encoding`: the full encoding of a VTXO of `ark_vtxo`, written once. */
@Entity({ tableName: "ark_vtxo_encoding" })
export class ArkVtxoEncodingRow {
  /** `txid:vout`, as in `ark_vtxo`. */
  @PrimaryKey({ type: "string", length: 80 })
  id!: string;

  /** The VTXO's encoding (bytes). */
  @Property({ type: "blob" })
  encoded!: Buffer;
}

/** A row of `ark_key`: a VTXO key index the wallet has handed out, with its public key. */
@Entity({ tableName: "ark_key" })
export class ArkKeyRow {
  @PrimaryKey({ type: "integer", autoincrement: false, fieldName: "key_index" })
  keyIndex!: number;

  /** 33-byte compressed public key, hex. */
  @Property({ type: "string", length: 66 })
  pubkey!: string;
}

/** The single row (id 1) of `ark_state`: pinned server keys and the mailbox checkpoint. */
@Entity({ tableName: "ark_state" })
export class ArkStateRow {
  @PrimaryKey({ type: "integer", autoincrement: false })
  id: number = 1;

  @Property({ type: "string", length: 66, nullable: true, fieldName: "server_pubkey" })
  serverPubkey: string | null = null;

  @Property({ type: "string", length: 66, nullable: true, fieldName: "mailbox_pubkey" })
  mailboxPubkey: string | null = null;

  @Property({ type: "bigint", fieldName: "mailbox_checkpoint" })
  mailboxCheckpoint: bigint = 0n;
}

/**
 * A row of `ark_kept_mailbox_message`: a mailbox message of a kind no handler claimed when it
 * arrived, kept until a plugin handling its kind is loaded.
 */
@Entity({ tableName: "ark_kept_mailbox_message" })
export class ArkKeptMailboxMessageRow {
  /** The message's mailbox checkpoint (unique in the wallet's mailbox). */
  @PrimaryKey({ type: "bigint", autoincrement: false })
  checkpoint!: bigint;

  /** The message kind (`recovery-vtxo-ids`, `unknown`, …). */
  @Property({ type: "string", length: 64 })
  kind!: string;

  /** The message as JSON (bytes as hex, bigints as decimal strings). */
  @Property({ type: "text" })
  message!: string;

  @Property({ type: "bigint", fieldName: "kept_at_ms" })
  keptAtMs!: bigint;
}

/** Creates the Ark daemon's tables (same SQL on SQLite and PostgreSQL). */
export const arkInitMigration = defineMigration({
  name: "ark_0001_daemon",
  up: () => [
    "create table ark_vtxo (id varchar(80) not null primary key, encoded text not null, amount_sat bigint not null, expiry_height integer not null, " +
      "state varchar(16) not null, locked_by varchar(64) null, created_at_ms bigint not null, updated_at_ms bigint not null)",
    "create index ark_vtxo_state on ark_vtxo (state)",
    "create table ark_key (key_index integer not null primary key, pubkey varchar(66) not null unique)",
    "create table ark_state (id integer not null primary key, server_pubkey varchar(66) null, mailbox_pubkey varchar(66) null, mailbox_checkpoint bigint not null default 0)",
    "insert into ark_state (id, server_pubkey, mailbox_pubkey, mailbox_checkpoint) values (1, null, null, 0)",
  ],
});

/** Adds the table of kept mailbox messages (those no handler claimed yet). */
export const arkKeptMailboxMigration = defineMigration({
  name: "ark_0002_kept_mailbox_messages",
  up: () => [
    "create table ark_kept_mailbox_message (checkpoint bigint not null primary key, kind varchar(64) not null, message text not null, kept_at_ms bigint not null)",
  ],
});

/** A VTXO's lock holder is an action id, which may outgrow 64 characters (PostgreSQL enforces the length; SQLite does not). */
export const arkWideLockHolderMigration = defineMigration({
  name: "ark_0003_wide_lock_holder",
  up: (d) => (d === "postgresql" ? ["alter table ark_vtxo alter column locked_by type varchar(255)"] : []),
});

/**
 * Adds `ark_vtxo.recovery_registered`. Existing VTXOs start unset, so the first sync after the
 * upgrade backs every one of them up once (posts and registrations are idempotent on the server).
 */
export const arkRecoveryRegisteredMigration = defineMigration({
  name: "ark_0004_recovery_registered",
  up: () => ["alter table ark_vtxo add column recovery_registered boolean not null default false"],
});

/**
 * Moves each VTXO's encoding out of `ark_vtxo` into `ark_vtxo_encoding`, as bytes instead of hex.
 * A VTXO's row changes state two or three times (locked, spent) and SQLite rewrites a whole row on
 * an update, so the encoding (≈ 7.5 KB of hex at an exit depth of 24: overflow pages) was written
 * out again at every change; written once as bytes (≈ 3.7 KB) it usually fits on its leaf page.
 * The copy and the drop run in the migration's one transaction: every encoding moves, or none.
 */
export const arkVtxoEncodingMigration = defineMigration({
  name: "ark_0005_vtxo_encoding",
  up: (d) => [
    `create table ark_vtxo_encoding (id varchar(80) not null primary key, encoded ${d === "postgresql" ? "bytea" : "blob"} not null)`,
    `insert into ark_vtxo_encoding (id, encoded) select id, ${d === "postgresql" ? "decode(encoded, 'hex')" : "unhex(encoded)"} from ark_vtxo`,
    "alter table ark_vtxo drop column encoded",
  ],
});

/**
 * An index of the VTXOs the recovery catch-up looks at (each sync: not backed up yet, not spent).
 * Spent VTXOs stay in `ark_vtxo` (one or two a payment) and the query's `state <> 'spent'` cannot
 * use the index on `state`: SQLite read every row (3.9 ms at 100,000 VTXOs). The partial index
 * holds the few it asks for, in the order it reads them.
 */
export const arkRecoveryPendingIndexMigration = defineMigration({
  name: "ark_0006_recovery_pending_index",
  up: () => ["create index ark_vtxo_recovery_pending on ark_vtxo (created_at_ms, id) where recovery_registered = false and state <> 'spent'"],
});

/** The Ark daemon plugin's migrations, in order. */
export const ARK_MIGRATIONS = [arkInitMigration, arkKeptMailboxMigration, arkWideLockHolderMigration, arkRecoveryRegisteredMigration, arkVtxoEncodingMigration, arkRecoveryPendingIndexMigration];

/** Every entity of the Ark daemon plugin. */
export const ARK_ENTITIES = [ArkVtxoRow, ArkVtxoEncodingRow, ArkKeyRow, ArkStateRow, ArkKeptMailboxMessageRow];
