/**
 * The offboard tables of the reference server (a migration of its own):
 *
 * | Table / column | Holds |
 * |---|---|
 * | `ark_server_vtxo.offboard_spent_txid` | txid of the offboard tx that spent the VTXO |
 * | `ark_server_offboard` | finished offboards: the signed offboard tx, its inputs, the signed connector fan-out tx (several inputs), whether it was handed to the chain (`committed`) |
 * | `ark_server_offboard_forfeit` | the signed forfeit tx of each offboarded VTXO |
 */
import { defineMigration, type SqlDialect } from "@tender/core";

const blob = (d: SqlDialect) => (d === "postgresql" ? "bytea" : "blob");

/** Offboards and their forfeits. */
export const arkServerOffboardsMigration = defineMigration({
  name: "ark_server_0003_offboards",
  up: (d) => [
    `alter table ark_server_vtxo add column offboard_spent_txid varchar(64) null`,
    `create table ark_server_offboard (offboard_txid varchar(64) not null primary key, signed_tx ${blob(d)} not null, input_vtxo_ids text not null, connector_tx ${blob(d)} null, committed integer not null, created_at varchar(40) not null)`,
    `create table ark_server_offboard_forfeit (vtxo_id varchar(80) not null primary key, offboard_txid varchar(64) not null, forfeit_txid varchar(64) not null, forfeit_tx ${blob(d)} not null)`,
    `create index ark_server_offboard_forfeit_offboard on ark_server_offboard_forfeit (offboard_txid)`,
  ],
});
