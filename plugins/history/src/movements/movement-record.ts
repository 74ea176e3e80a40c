import { Entity, PrimaryKey, Property } from "@mikro-orm/decorators/legacy";
import { defineMigration } from "@tender/core";

/** One row of the `movement` table: the stored form of barkd's `Movement`. */
@Entity({ tableName: "movement" })
export class MovementRecord {
  @PrimaryKey({ type: "integer" })
  id!: number;

  @Property({ type: "string" })
  status!: string;

  @Property({ type: "string", fieldName: "subsystem_name" })
  subsystemName!: string;

  @Property({ type: "string", fieldName: "subsystem_kind" })
  subsystemKind!: string;

  /** JSON object text; `{}` when empty. */
  @Property({ type: "text" })
  metadata!: string;

  @Property({ type: "bigint", fieldName: "intended_balance_sat" })
  intendedBalanceSat!: bigint;

  @Property({ type: "bigint", fieldName: "effective_balance_sat" })
  effectiveBalanceSat!: bigint;

  @Property({ type: "bigint", fieldName: "offchain_fee_sat" })
  offchainFeeSat!: bigint;

  /** JSON arrays. */
  @Property({ type: "text", fieldName: "sent_to" })
  sentTo!: string;

  @Property({ type: "text", fieldName: "received_on" })
  receivedOn!: string;

  @Property({ type: "text", fieldName: "input_vtxos" })
  inputVtxos!: string;

  @Property({ type: "text", fieldName: "output_vtxos" })
  outputVtxos!: string;

  @Property({ type: "text", fieldName: "exited_vtxos" })
  exitedVtxos!: string;

  /** Epoch milliseconds. */
  @Property({ type: "bigint", fieldName: "created_at" })
  createdAt!: bigint;

  @Property({ type: "bigint", fieldName: "updated_at" })
  updatedAt!: bigint;

  @Property({ type: "bigint", fieldName: "completed_at", nullable: true })
  completedAt?: bigint | null;
}

/** Creates the `movement` table. */
export const movementMigration = defineMigration({
  name: "history_0001_movements",
  up: (dialect) => [
    `create table movement (
      id ${dialect === "postgresql" ? "serial primary key" : "integer primary key autoincrement"},
      status varchar(16) not null,
      subsystem_name varchar(64) not null,
      subsystem_kind varchar(64) not null,
      metadata text not null,
      intended_balance_sat bigint not null,
      effective_balance_sat bigint not null,
      offchain_fee_sat bigint not null,
      sent_to text not null,
      received_on text not null,
      input_vtxos text not null,
      output_vtxos text not null,
      exited_vtxos text not null,
      created_at bigint not null,
      updated_at bigint not null,
      completed_at bigint null
    )`,
    "create index movement_created on movement (created_at)",
  ],
});
