import { Entity, PrimaryKey, Property } from "@mikro-orm/decorators/legacy";
import { defineMigration } from "@tender/core";

/**
 * One row of `round_participation`: a refresh the wallet asked for, from its creation to its end.
 * Everything a crash must not lose is here before the step that needs it talks to the server:
 * the inputs, the requested outputs with the index of their freshly derived key, the unlock hash,
 * the round's funding transaction and the (still hash-locked) output VTXOs. Secret nonces never
 * are. JSON columns hold arrays; amounts are decimal strings of sats; bytes are hex.
 */
@Entity({ tableName: "round_participation" })
export class RoundParticipationRow {
  @PrimaryKey({ type: "integer" })
  id!: number;

  /** `interactive` (the daemon follows the round) or `delegated` (the server carries it). */
  @Property({ type: "string", length: 16 })
  kind!: string;

  /** `explicit` (a refresh route: fails as a whole) or `maintenance` (the daemon's own: drops rejected inputs). */
  @Property({ type: "string", length: 16 })
  origin!: string;

  /** `pending`, `submitted`, `finished`, `forfeiting`, `done`, `failed` or `canceled`. */
  @Property({ type: "string", length: 16 })
  status!: string;

  /** JSON array of the input VTXO ids. */
  @Property({ type: "text" })
  inputs!: string;

  /** JSON array of `{ amountSat, keyIndex, pubkey }`: the requested outputs. */
  @Property({ type: "text" })
  outputs!: string;

  @Property({ type: "bigint", fieldName: "fee_sat" })
  feeSat!: bigint;

  /** Delegated: the height the server must wait for before including it. */
  @Property({ type: "integer", nullable: true, fieldName: "scheduled_height" })
  scheduledHeight: number | null = null;

  /** Interactive, while submitted: the round and attempt joined (decimal). */
  @Property({ type: "string", length: 24, nullable: true, fieldName: "round_seq" })
  roundSeq: string | null = null;

  @Property({ type: "string", length: 24, nullable: true, fieldName: "attempt_seq" })
  attemptSeq: string | null = null;

  @Property({ type: "string", length: 64, nullable: true, fieldName: "unlock_hash" })
  unlockHash: string | null = null;

  @Property({ type: "string", length: 64, nullable: true, fieldName: "funding_txid" })
  fundingTxid: string | null = null;

  @Property({ type: "text", nullable: true, fieldName: "funding_tx" })
  fundingTx: string | null = null;

  /** JSON array of the output VTXOs (hex) as the round made them: hash-locked, no leaf signature. */
  @Property({ type: "text", nullable: true, fieldName: "output_vtxos" })
  outputVtxos: string | null = null;

  /** The unlock preimage, once the server released it in exchange for the forfeits. */
  @Property({ type: "string", length: 64, nullable: true, fieldName: "unlock_preimage" })
  unlockPreimage: string | null = null;

  /** Whether the inputs are held by this participation through the shared VTXO locks. */
  @Property({ type: "boolean", fieldName: "inputs_locked" })
  inputsLocked!: boolean;

  @Property({ type: "integer", nullable: true, fieldName: "movement_id" })
  movementId: number | null = null;

  @Property({ type: "text", nullable: true })
  error: string | null = null;

  @Property({ type: "bigint", fieldName: "created_at_ms" })
  createdAtMs!: bigint;

  @Property({ type: "bigint", fieldName: "updated_at_ms" })
  updatedAtMs!: bigint;
}

/** Creates `round_participation` (SQLite and PostgreSQL). */
export const roundsInitMigration = defineMigration({
  name: "rounds_0001_participations",
  up: (dialect) => [
    `create table round_participation (
      id ${dialect === "postgresql" ? "serial primary key" : "integer primary key autoincrement"},
      kind varchar(16) not null,
      origin varchar(16) not null,
      status varchar(16) not null,
      inputs text not null,
      outputs text not null,
      fee_sat bigint not null,
      scheduled_height integer null,
      round_seq varchar(24) null,
      attempt_seq varchar(24) null,
      unlock_hash varchar(64) null,
      funding_txid varchar(64) null,
      funding_tx text null,
      output_vtxos text null,
      unlock_preimage varchar(64) null,
      inputs_locked boolean not null,
      movement_id integer null,
      error text null,
      created_at_ms bigint not null,
      updated_at_ms bigint not null
    )`,
    "create index round_participation_status on round_participation (status)",
  ],
});

/** The participations that have not ended (see `FINAL_STATUSES`): the terms of the partial index below. */
export const ACTIVE_PARTICIPATION = "status not in ('done', 'failed', 'canceled')";

/**
 * An index of the participations that have not ended. Ended ones stay in the table (one a round
 * or refresh), and the rounds' progress (every 2 s) asks for the others: with the index on
 * `status`, `not in` still read every row.
 */
export const roundsActiveIndexMigration = defineMigration({
  name: "rounds_0002_active_index",
  up: () => [`create index round_participation_active on round_participation (id) where ${ACTIVE_PARTICIPATION}`],
});

export const ROUNDS_ENTITIES = [RoundParticipationRow];
export const ROUNDS_MIGRATIONS = [roundsInitMigration, roundsActiveIndexMigration];
