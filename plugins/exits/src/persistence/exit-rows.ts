import { Entity, PrimaryKey, Property } from "@mikro-orm/decorators/legacy";
import { defineMigration } from "@tender/core";
import { ExitPreimageRow, exitsPreimagesMigration } from "./exit-preimage-row.js";

/** One row of `exit_vtxo`: the exit of one VTXO (its current state and the states before it). */
@Entity({ tableName: "exit_vtxo" })
export class ExitVtxoRow {
  /** `txid:vout`. */
  @PrimaryKey({ type: "string", length: 80, fieldName: "vtxo_id" })
  vtxoId!: string;

  @Property({ type: "integer" })
  seq!: number;

  @Property({ type: "bigint", fieldName: "amount_sat" })
  amountSat!: bigint;

  /** The state's kebab-case tag, for listing live or finished exits. */
  @Property({ type: "string", length: 24 })
  kind!: string;

  /** The state as bark's serde JSON. */
  @Property({ type: "text" })
  state!: string;

  /** JSON array of the earlier states. */
  @Property({ type: "text" })
  history!: string;

  @Property({ type: "integer", nullable: true, fieldName: "movement_id" })
  movementId: number | null = null;

  @Property({ type: "string", length: 64, nullable: true, fieldName: "lock_id" })
  lockId: string | null = null;

  @Property({ type: "bigint", fieldName: "created_at_ms" })
  createdAtMs!: bigint;
}

/** One row of `exit_child_tx`: a CPFP child of an exit transaction, stored before its broadcast. */
@Entity({ tableName: "exit_child_tx" })
export class ExitChildRow {
  @PrimaryKey({ type: "string", length: 64, fieldName: "child_txid" })
  childTxid!: string;

  @Property({ type: "string", length: 64, fieldName: "exit_txid" })
  exitTxid!: string;

  @Property({ type: "text" })
  hex!: string;

  @Property({ type: "bigint", fieldName: "fee_sat" })
  feeSat!: bigint;

  @Property({ type: "integer" })
  vsize!: number;

  @Property({ type: "boolean" })
  ours!: boolean;

  /** `ExitTxOrigin` JSON. */
  @Property({ type: "text" })
  origin!: string;

  /** `built`, `broadcast`, `replaced` or `dropped`. */
  @Property({ type: "string", length: 16 })
  status!: string;

  @Property({ type: "bigint", fieldName: "created_at_ms" })
  createdAtMs!: bigint;
}

/** One row of `exit_claim_tx`: a claim sweeping claimable exits, stored before its broadcast. */
@Entity({ tableName: "exit_claim_tx" })
export class ExitClaimRow {
  @PrimaryKey({ type: "string", length: 64 })
  txid!: string;

  @Property({ type: "text" })
  hex!: string;

  /** JSON array of the VTXO ids it claims. */
  @Property({ type: "text", fieldName: "vtxo_ids" })
  vtxoIds!: string;

  @Property({ type: "bigint", fieldName: "fee_sat" })
  feeSat!: bigint;

  @Property({ type: "boolean", fieldName: "own_destination" })
  ownDestination!: boolean;

  /** `built`, `broadcast` or `dropped`. */
  @Property({ type: "string", length: 16 })
  status!: string;

  @Property({ type: "bigint", fieldName: "created_at_ms" })
  createdAtMs!: bigint;
}

/** Creates the exits plugin's tables (same SQL on SQLite and PostgreSQL). */
export const exitsInitMigration = defineMigration({
  name: "exits_0001_init",
  up: () => [
    "create table exit_vtxo (vtxo_id varchar(80) not null primary key, seq integer not null, amount_sat bigint not null, kind varchar(24) not null, " +
      "state text not null, history text not null, movement_id integer null, lock_id varchar(64) null, created_at_ms bigint not null)",
    "create index exit_vtxo_seq on exit_vtxo (seq)",
    "create table exit_child_tx (child_txid varchar(64) not null primary key, exit_txid varchar(64) not null, hex text not null, fee_sat bigint not null, " +
      "vsize integer not null, ours boolean not null, origin text not null, status varchar(16) not null, created_at_ms bigint not null)",
    "create index exit_child_tx_exit on exit_child_tx (exit_txid)",
    "create table exit_claim_tx (txid varchar(64) not null primary key, hex text not null, vtxo_ids text not null, fee_sat bigint not null, " +
      "own_destination boolean not null, status varchar(16) not null, created_at_ms bigint not null)",
  ],
});

export const EXITS_MIGRATIONS = [exitsInitMigration, exitsPreimagesMigration];
export const EXITS_ENTITIES = [ExitVtxoRow, ExitChildRow, ExitClaimRow, ExitPreimageRow];
