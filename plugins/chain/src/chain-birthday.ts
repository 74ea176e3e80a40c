import { Entity, PrimaryKey, Property } from "@mikro-orm/decorators/legacy";
import { defineMigration, type Database } from "@tender/core";

/**
 * The wallet's chain birthday: the first block that can hold its transactions (the tip when it
 * was created, or the `birthday_height` of a restore). A bitcoind source scans from there, since
 * bitcoind has no address index. Single row, id 1.
 */
@Entity({ tableName: "bitcoin_chain_state" })
export class ChainBirthdayRow {
  @PrimaryKey({ type: "integer", autoincrement: false })
  id: number = 1;

  @Property({ type: "integer", fieldName: "birthday_height" })
  birthdayHeight!: number;
}

/** Creates `bitcoin_chain_state`. */
export const bitcoinChainStateMigration = defineMigration({
  name: "bitcoin_0001_chain_state",
  up: () => ["create table bitcoin_chain_state (id integer not null primary key, birthday_height integer not null)"],
});

/** The stored birthday, or `undefined` (wallets created before this table, or without a check). */
export async function readBirthday(db: Database): Promise<number | undefined> {
  return (await db.em().findOne(ChainBirthdayRow, { id: 1 }))?.birthdayHeight;
}

/** Stores the birthday once; an existing one is kept. */
export async function writeBirthday(db: Database, height: number): Promise<void> {
  const em = db.em();
  if (await em.findOne(ChainBirthdayRow, { id: 1 })) return;
  em.persist(Object.assign(new ChainBirthdayRow(), { id: 1, birthdayHeight: height }));
  await em.flush();
}
