import { Entity, PrimaryKey, Property } from "@mikro-orm/decorators/legacy";
import { defineMigration } from "@tender/core";

/** The wallet's identity, written once at creation (single row, id 1). */
@Entity({ tableName: "wallet_properties" })
export class WalletProperties {
  @PrimaryKey({ type: "integer", autoincrement: false })
  id: number = 1;

  @Property({ type: "string" })
  network!: string;

  @Property({ type: "string" })
  fingerprint!: string;

  @Property({ type: "string", fieldName: "created_at" })
  createdAt!: string;
}

/** Creates `wallet_properties`. */
export const walletInitMigration = defineMigration({
  name: "wallet_0001_properties",
  up: () => [
    `create table wallet_properties (id integer not null primary key, network varchar(32) not null, fingerprint varchar(8) not null, created_at varchar(64) not null)`,
  ],
});
