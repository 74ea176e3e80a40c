/**
 * The Lightning tables of the reference server (a migration of its own):
 *
 * | Table | Holds |
 * |---|---|
 * | `ark_server_ln_attempt` | payment attempts: payment hash, invoice, amount, sender mailbox, HTLC VTXO ids, status (`pending`, `succeeded`, `failed`), preimage, whether the sender was told |
 * | `ark_server_ln_settlement` | the settlement log: every preimage the server learned for a payment hash (the source of truth for "paid") |
 */
import { defineMigration } from "@tender/core";

/** Lightning payment attempts and the settlement log. */
export const arkServerLightningMigration = defineMigration({
  name: "ark_server_0004_lightning",
  up: (d) => [
    `create table ark_server_ln_attempt (id ${d === "postgresql" ? "bigserial primary key" : "integer primary key autoincrement"}, payment_hash varchar(64) not null, invoice text not null, amount_msat bigint not null, sender_mailbox varchar(66) null, htlc_vtxo_ids text not null, status varchar(16) not null, preimage varchar(64) null, failure text null, notified integer not null, created_at varchar(40) not null, updated_at varchar(40) not null)`,
    `create index ark_server_ln_attempt_hash on ark_server_ln_attempt (payment_hash)`,
    `create table ark_server_ln_settlement (payment_hash varchar(64) not null primary key, preimage varchar(64) not null, created_at varchar(40) not null)`,
  ],
});
