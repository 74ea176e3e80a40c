import { Entity, PrimaryKey, Property } from "@mikro-orm/decorators/legacy";
import { defineMigration } from "@tender/core";

/**
 * One row of `lightning_receive_cancel`: the user asked to cancel the receive of this payment
 * hash. Written before anything else happens, so a cancel survives a crash; the receive action
 * honours it while it still awaits payment, and the row is removed once the receive ended.
 */
@Entity({ tableName: "lightning_receive_cancel" })
export class ReceiveCancelRow {
  @PrimaryKey({ type: "string", length: 64, fieldName: "payment_hash" })
  paymentHash!: string;

  @Property({ type: "bigint", fieldName: "requested_at_ms" })
  requestedAtMs!: bigint;
}

/** Creates `lightning_receive_cancel` (SQLite and PostgreSQL). */
export const lightningReceiveCancelMigration = defineMigration({
  name: "lightning_0010_receive_cancels",
  up: () => [
    `create table lightning_receive_cancel (
      payment_hash varchar(64) primary key,
      requested_at_ms bigint not null
    )`,
  ],
});

export const RECEIVE_ENTITIES = [ReceiveCancelRow];
export const RECEIVE_MIGRATIONS = [lightningReceiveCancelMigration];
