/**
 * The round tables of the reference server (a migration of its own; the initial schema is not
 * edited):
 *
 * | Table / column | Holds |
 * |---|---|
 * | `ark_server_vtxo.round_spent_id` | funding txid of the round that spent the VTXO as an input |
 * | `ark_server_round` | finished rounds: seq, attempt, signed tree, expiry (id = funding txid; the signed funding tx is in `ark_server_tx`) |
 * | `ark_server_round_participation` | hArk participations: unlock preimage, outputs, mailbox, scheduled height, round, output ids, forfeit time |
 * | `ark_server_round_participation_input` | the inputs of each participation, in request order |
 * | `ark_server_round_forfeit` | the signed forfeit tx of each forfeited round input |
 */
import { defineMigration, type SqlDialect } from "@tender/core";

const blob = (d: SqlDialect) => (d === "postgresql" ? "bytea" : "blob");

/** Rounds, participations and forfeits. */
export const arkServerRoundsMigration = defineMigration({
  name: "ark_server_0002_rounds",
  up: (d) => [
    `alter table ark_server_vtxo add column round_spent_id varchar(64) null`,
    `create table ark_server_round (round_id varchar(64) not null primary key, round_seq bigint not null, attempt_seq integer not null, signed_tree ${blob(d)} not null, expiry_height integer not null, created_at varchar(40) not null)`,
    `create table ark_server_round_participation (unlock_hash varchar(64) not null primary key, unlock_preimage ${blob(d)} not null, kind varchar(16) not null, outputs text not null, mailbox_id varchar(66) null, scheduled_height integer null, round_id varchar(64) null, output_vtxo_ids text null, forfeited_at varchar(40) null, created_at varchar(40) not null)`,
    `create index ark_server_round_participation_round on ark_server_round_participation (round_id)`,
    `create table ark_server_round_participation_input (unlock_hash varchar(64) not null, vtxo_id varchar(80) not null, idx integer not null, primary key (unlock_hash, vtxo_id))`,
    `create index ark_server_round_participation_input_vtxo on ark_server_round_participation_input (vtxo_id)`,
    `create table ark_server_round_forfeit (vtxo_id varchar(80) not null primary key, unlock_hash varchar(64) not null, forfeit_txid varchar(64) not null, forfeit_tx ${blob(d)} not null)`,
  ],
});
