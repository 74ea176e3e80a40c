/**
 * The Lightning receive tables of the reference server (a migration of its own):
 *
 * | Table | Holds |
 * |---|---|
 * | `ark_server_ln_receive` | receive subscriptions: payment hash, invoice, amount, receiver mailbox, status (`created`, `accepted`, `htlcs-ready`, `settled`, `canceled`), lowest incoming HTLC expiry and acceptance time, granted HTLC-recv VTXO ids, preimage once claimed, whether the hold invoice was settled, the intra-Ark payment attempt, whether the receiver was told |
 * | `ark_server_ln_pool_issue` | funding txs of VTXO pool issuances (signed, stored before broadcast; re-broadcast until confirmed) |
 * | `ark_server_ln_receive_token` | single-use anti-DoS tokens for Lightning receive claims |
 */
import { defineMigration } from "@tender/core";

/** Receive subscriptions, pool issuances and anti-DoS tokens. */
export const arkServerLightningReceiveMigration = defineMigration({
  name: "ark_server_0005_lightning_receive",
  up: (d) => [
    `create table ark_server_ln_receive (payment_hash varchar(64) not null primary key, invoice text not null, amount_sat bigint not null, mailbox_id varchar(66) null, status varchar(16) not null, lowest_htlc_expiry integer null, accepted_at varchar(40) null, htlc_vtxo_ids text not null, preimage varchar(64) null, hold_settled integer not null, intra_ark_attempt bigint null, notified integer not null, created_at varchar(40) not null, updated_at varchar(40) not null)`,
    `create index ark_server_ln_receive_status on ark_server_ln_receive (status)`,
    `create table ark_server_ln_pool_issue (txid varchar(64) not null primary key, tx ${d === "postgresql" ? "bytea" : "blob"} not null, confirmed integer not null, created_at varchar(40) not null)`,
    `create table ark_server_ln_receive_token (token varchar(128) not null primary key, kind varchar(32) not null, status varchar(16) not null, expires_at_secs bigint not null, created_at varchar(40) not null)`,
  ],
});
