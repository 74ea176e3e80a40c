import { Entity, PrimaryKey, Property } from "@mikro-orm/decorators/legacy";
import { defineMigration } from "../persistence/migration.js";

/** One persisted multi-step action: its kind, the step to run next and its state (JSON). */
@Entity({ tableName: "kernel_action" })
export class ActionRecord {
  @PrimaryKey({ type: "string" })
  id!: string;

  @Property({ type: "string" })
  kind!: string;

  /** Name of the next step to run, or `done` / `failed`. */
  @Property({ type: "string" })
  step!: string;

  @Property({ type: "text" })
  state!: string;

  /** Why the action failed, when `step` is `failed`. */
  @Property({ type: "text", nullable: true })
  error?: string | null;

  /** Epoch ms before which a waiting action is not driven again. */
  @Property({ type: "bigint", fieldName: "not_before" })
  notBefore!: bigint;

  @Property({ type: "bigint", fieldName: "updated_at" })
  updatedAt!: bigint;
}

/** The kernel's own table of actions. */
export const actionMigration = defineMigration({
  name: "kernel_0001_actions",
  up: () => [
    "create table kernel_action (id varchar(64) not null primary key, kind varchar(64) not null, step varchar(64) not null, state text not null, error text null, not_before bigint not null, updated_at bigint not null)",
    "create index kernel_action_step on kernel_action (step)",
  ],
});

/**
 * Action ids may name what they act on (a payment hash, a VTXO id, plus a nonce), so they outgrow
 * 64 characters; PostgreSQL enforces the declared length (SQLite never did, so it needs nothing).
 */
export const actionIdWidthMigration = defineMigration({
  name: "kernel_0002_wide_action_ids",
  up: (d) => (d === "postgresql" ? ["alter table kernel_action alter column id type varchar(255)"] : []),
});

/**
 * An index of the unfinished actions only. Ended actions stay in the table (one a payment), and
 * the due-action poll (every 2 s) and the per-kind queries asked for `step not in ('done',
 * 'failed')`, which the index on `step` cannot answer: SQLite read every row, 39 ms at 100,000
 * actions, on the daemon's only thread. A partial index holds the few unfinished ones.
 */
export const unfinishedActionsMigration = defineMigration({
  name: "kernel_0003_unfinished_actions",
  up: () => ["create index kernel_action_unfinished on kernel_action (not_before) where step not in ('done', 'failed')"],
});

/**
 * The index on `step` alone goes: no query reads it (the unfinished and due actions are read from
 * `kernel_action_unfinished`, one action by its id), and every step an action takes rewrote an
 * entry of it — 3 of the ≈ 36 pages an arkoor send writes to the log.
 */
export const dropActionStepIndexMigration = defineMigration({
  name: "kernel_0006_drop_action_step_index",
  up: () => ["drop index if exists kernel_action_step"],
});
