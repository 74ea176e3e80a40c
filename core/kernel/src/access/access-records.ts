import { Entity, PrimaryKey, Property } from "@mikro-orm/decorators/legacy";
import { defineMigration } from "../persistence/migration.js";

/** A scoped API key. Its secret is never stored, only a hash of it. */
@Entity({ tableName: "kernel_api_key" })
export class ApiKeyRecord {
  /** 16 hex characters, part of the bearer text. */
  @PrimaryKey({ type: "string" })
  id!: string;

  @Property({ type: "string", nullable: true })
  name?: string | null;

  /** SHA-256 of the secret part, hex. */
  @Property({ type: "string", fieldName: "secret_hash" })
  secretHash!: string;

  /** Comma-separated scopes (`read`, `receive`, `send`, `admin`). */
  @Property({ type: "string" })
  scopes!: string;

  /** JSON of the spending caps by rail, `null` without caps. */
  @Property({ type: "text", nullable: true })
  caps?: string | null;

  /** Epoch ms. */
  @Property({ type: "bigint", fieldName: "created_at" })
  createdAt!: bigint;

  @Property({ type: "bigint", fieldName: "expires_at", nullable: true })
  expiresAt?: bigint | null;

  @Property({ type: "bigint", fieldName: "revoked_at", nullable: true })
  revokedAt?: bigint | null;
}

/** One request made with an API key (or a mutating request of the owner token, `keyId` null). */
@Entity({ tableName: "kernel_api_audit" })
export class ApiAuditRecord {
  @PrimaryKey({ type: "integer" })
  id!: number;

  @Property({ type: "string", fieldName: "key_id", nullable: true })
  keyId?: string | null;

  @Property({ type: "string" })
  method!: string;

  /** The path without its query string. */
  @Property({ type: "text" })
  path!: string;

  @Property({ type: "integer" })
  status!: number;

  /** Epoch ms. */
  @Property({ type: "bigint" })
  at!: bigint;
}

/** An amount a key spent (or is spending) on a rail, counted against its daily cap. */
@Entity({ tableName: "kernel_api_spend" })
export class ApiSpendRecord {
  @PrimaryKey({ type: "string" })
  id!: string;

  @Property({ type: "string", fieldName: "key_id" })
  keyId!: string;

  @Property({ type: "string" })
  rail!: string;

  @Property({ type: "bigint", fieldName: "amount_sat" })
  amountSat!: bigint;

  /** Epoch ms. */
  @Property({ type: "bigint" })
  at!: bigint;
}

/** The kernel's API key tables. */
export const apiKeysMigration = defineMigration({
  name: "kernel_0005_api_keys",
  up: (dialect) => [
    `create table kernel_api_key (
      id varchar(32) not null primary key,
      name varchar(255) null,
      secret_hash varchar(64) not null,
      scopes varchar(64) not null,
      caps text null,
      created_at bigint not null,
      expires_at bigint null,
      revoked_at bigint null
    )`,
    `create table kernel_api_audit (
      id ${dialect === "postgresql" ? "serial primary key" : "integer primary key autoincrement"},
      key_id varchar(32) null,
      method varchar(8) not null,
      path text not null,
      status integer not null,
      at bigint not null
    )`,
    "create index kernel_api_audit_key on kernel_api_audit (key_id, id)",
    `create table kernel_api_spend (
      id varchar(64) not null primary key,
      key_id varchar(32) not null,
      rail varchar(16) not null,
      amount_sat bigint not null,
      at bigint not null
    )`,
    "create index kernel_api_spend_key on kernel_api_spend (key_id, rail, at)",
  ],
});
