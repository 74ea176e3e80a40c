import { Entity, PrimaryKey, Property } from "@mikro-orm/decorators/legacy";
import { defineMigration } from "@tender/core";

/** A row of `onchain_tx`: one wallet transaction (see `StoredTx`). */
@Entity({ tableName: "onchain_tx" })
export class OnchainTxRow {
  @PrimaryKey({ type: "string", length: 64 })
  txid!: string;

  @Property({ type: "text" })
  hex!: string;

  @Property({ type: "string", length: 16 })
  origin!: string;

  @Property({ type: "string", length: 16 })
  state!: string;

  @Property({ type: "integer", nullable: true, fieldName: "block_height" })
  blockHeight: number | null = null;

  @Property({ type: "string", length: 64, nullable: true, fieldName: "block_hash" })
  blockHash: string | null = null;

  @Property({ type: "bigint", nullable: true, fieldName: "block_time" })
  blockTime: bigint | null = null;

  @Property({ type: "bigint", nullable: true, fieldName: "fee_sat" })
  feeSat: bigint | null = null;

  @Property({ type: "boolean", fieldName: "is_cpfp" })
  isCpfp: boolean = false;

  @Property({ type: "bigint", fieldName: "first_seen_ms" })
  firstSeenMs!: bigint;

  @Property({ type: "bigint", nullable: true, fieldName: "last_broadcast_ms" })
  lastBroadcastMs: bigint | null = null;

  @Property({ type: "boolean" })
  held: boolean = false;
}

/** Adds `onchain_tx.held` (transactions stored for another plugin to broadcast). */
export const onchainHeldMigration = defineMigration({
  name: "onchain_0002_held",
  up: () => ["alter table onchain_tx add column held boolean not null default false"],
});

/** The single row (id 1) of `onchain_state`. */
@Entity({ tableName: "onchain_state" })
export class OnchainStateRow {
  @PrimaryKey({ type: "integer", autoincrement: false })
  id: number = 1;

  @Property({ type: "integer", fieldName: "next_index" })
  nextIndex: number = 0;
}

/** Creates the on-chain wallet's tables (same SQL on SQLite and PostgreSQL). */
export const onchainInitMigration = defineMigration({
  name: "onchain_0001_wallet",
  up: () => [
    "create table onchain_tx (txid varchar(64) not null primary key, hex text not null, origin varchar(16) not null, state varchar(16) not null, " +
      "block_height integer null, block_hash varchar(64) null, block_time bigint null, fee_sat bigint null, is_cpfp boolean not null default false, " +
      "first_seen_ms bigint not null, last_broadcast_ms bigint null)",
    "create table onchain_state (id integer not null primary key, next_index integer not null)",
    "insert into onchain_state (id, next_index) values (1, 0)",
  ],
});
