import { Entity, PrimaryKey, Property } from "@mikro-orm/decorators/legacy";
import { defineMigration } from "@tender/core";

/**
 * One row of `exit_preimage`: the preimage of a payment hash, handed over with the exit of an
 * HTLC-recv VTXO so its claim can use the hash clause (kept after the Lightning receive ended).
 */
@Entity({ tableName: "exit_preimage" })
export class ExitPreimageRow {
  /** hex */
  @PrimaryKey({ type: "string", length: 64, fieldName: "payment_hash" })
  paymentHash!: string;

  /** hex */
  @Property({ type: "string", length: 64 })
  preimage!: string;
}

/** Adds `exit_preimage` (same SQL on SQLite and PostgreSQL). */
export const exitsPreimagesMigration = defineMigration({
  name: "exits_0002_preimages",
  up: () => ["create table exit_preimage (payment_hash varchar(64) not null primary key, preimage varchar(64) not null)"],
});
