import { Entity, PrimaryKey, Property } from "@mikro-orm/decorators/legacy";
import { defineMigration } from "@tender/core";

/** A note the example plugin stores in the wallet database. */
@Entity({ tableName: "example_note" })
export class ExampleNote {
  @PrimaryKey({ type: "integer" })
  id!: number;

  @Property({ type: "string" })
  text!: string;
}

/** The example plugin's only migration: its table. */
export const exampleNoteMigration = defineMigration({
  name: "example_0001_notes",
  up: (dialect) => [
    dialect === "postgresql"
      ? "create table example_note (id serial primary key, text varchar(255) not null)"
      : "create table example_note (id integer primary key autoincrement, text varchar(255) not null)",
  ],
});
