import { Entity, PrimaryKey, Property } from "@mikro-orm/decorators/legacy";
import { defineMigration } from "../persistence/migration.js";

/**
 * One `Idempotency-Key` as a caller used it: the request it was first sent with (a hash of method,
 * path and body), and — once the request ended — the answer replayed to every retry.
 */
@Entity({ tableName: "kernel_idempotency_key" })
export class IdempotencyRecord {
  /** sha256(scope, key) in hex: one row per caller and key. */
  @PrimaryKey({ type: "string" })
  id!: string;

  /** Who used the key: a hash of the credential the request presented (never the credential). */
  @Property({ type: "string" })
  scope!: string;

  @Property({ type: "string", fieldName: "idem_key" })
  key!: string;

  /** sha256 of method, path with query, and body. */
  @Property({ type: "string", fieldName: "request_hash" })
  requestHash!: string;

  @Property({ type: "string" })
  method!: string;

  @Property({ type: "text" })
  path!: string;

  @Property({ type: "string", fieldName: "operation_id" })
  operationId!: string;

  /** `running` from before the handler runs until its answer is stored; then `complete`. */
  @Property({ type: "string" })
  state!: string;

  @Property({ type: "integer", fieldName: "status_code", nullable: true })
  statusCode?: number | null;

  @Property({ type: "string", fieldName: "content_type", nullable: true })
  contentType?: string | null;

  /** The answer's bytes, base64. */
  @Property({ type: "text", nullable: true })
  body?: string | null;

  /** The movements the request created, comma-separated (replayed in `Tender-Movement-Id`). */
  @Property({ type: "text", fieldName: "movement_ids", nullable: true })
  movementIds?: string | null;

  /** Epoch ms. */
  @Property({ type: "bigint", fieldName: "created_at" })
  createdAt!: bigint;

  @Property({ type: "bigint", fieldName: "completed_at", nullable: true })
  completedAt?: bigint | null;
}

/**
 * What a keyed request started that outlives it: an action, written in the same transaction as the
 * action row, so a started payment is always found after a crash.
 */
@Entity({ tableName: "kernel_idempotency_link" })
export class IdempotencyLink {
  /** sha256(record id, kind, ref) in hex. */
  @PrimaryKey({ type: "string" })
  id!: string;

  @Property({ type: "string", fieldName: "record_id" })
  recordId!: string;

  /** `action` (the only kind so far). */
  @Property({ type: "string" })
  kind!: string;

  @Property({ type: "string" })
  ref!: string;

  @Property({ type: "bigint", fieldName: "created_at" })
  createdAt!: bigint;
}

/** The kernel's idempotency tables. */
export const idempotencyMigration = defineMigration({
  name: "kernel_0003_idempotency_keys",
  up: () => [
    `create table kernel_idempotency_key (
      id varchar(64) not null primary key,
      scope varchar(64) not null,
      idem_key varchar(255) not null,
      request_hash varchar(64) not null,
      method varchar(8) not null,
      path text not null,
      operation_id varchar(128) not null,
      state varchar(16) not null,
      status_code integer null,
      content_type varchar(255) null,
      body text null,
      movement_ids text null,
      created_at bigint not null,
      completed_at bigint null
    )`,
    "create index kernel_idempotency_key_state on kernel_idempotency_key (state, completed_at)",
    `create table kernel_idempotency_link (
      id varchar(64) not null primary key,
      record_id varchar(64) not null,
      kind varchar(16) not null,
      ref varchar(255) not null,
      created_at bigint not null
    )`,
    "create index kernel_idempotency_link_record on kernel_idempotency_link (record_id)",
  ],
});
