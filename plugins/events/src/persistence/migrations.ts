import { defineMigration, type SqlDialect } from "@tender/core";

const autoId = (d: SqlDialect) => (d === "postgresql" ? "serial primary key" : "integer primary key autoincrement");

/** The event log, webhooks and their deliveries. */
export const eventsMigration = defineMigration({
  name: "events_0001_log_and_webhooks",
  up: (d) => [
    `create table event_log (
      id ${autoId(d)},
      cursor bigint null,
      type varchar(64) not null,
      created_at bigint not null,
      payload text not null
    )`,
    "create unique index event_log_cursor on event_log (cursor)",
    "create index event_log_created on event_log (created_at)",
    `create table webhook (
      id varchar(64) primary key,
      url text not null,
      secret varchar(128) not null,
      event_types text not null,
      description text not null,
      enabled boolean not null,
      consecutive_failures integer not null,
      disabled_reason text null,
      created_at bigint not null
    )`,
    `create table webhook_delivery (
      id ${autoId(d)},
      webhook_id varchar(64) not null,
      event_cursor bigint not null,
      event_type varchar(64) not null,
      status varchar(16) not null,
      attempts integer not null,
      next_attempt_at bigint null,
      attempt_log text not null,
      created_at bigint not null,
      delivered_at bigint null
    )`,
    "create index webhook_delivery_due on webhook_delivery (status, next_attempt_at)",
    "create index webhook_delivery_webhook on webhook_delivery (webhook_id, id)",
  ],
});
