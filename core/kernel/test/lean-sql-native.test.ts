import { expect } from "chai";
import { Database, LeanSql, silentLogger } from "../src/index.js";
import { defineMigration } from "../src/persistence/migration.js";
import { expandPlaceholders } from "../src/persistence/sqlite-statements.js";

const itemsMigration = defineMigration({
  name: "test_0001_items",
  up: () => ["create table test_item (id varchar(64) not null primary key, n integer not null, flag boolean not null default false, data blob null)"],
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe("plain SQL on SQLite's own connection (prepared statements under LeanSql)", () => {
  let db: Database;
  let items: LeanSql;
  beforeEach(async () => {
    db = new Database({ entities: [], migrations: [itemsMigration] }, silentLogger);
    await db.open({ dialect: "sqlite", path: ":memory:" });
    items = new LeanSql(db, "test_item");
  });
  afterEach(() => db.close());

  it("runs statements natively outside a transaction and inside this context's transaction, not inside another caller's", async () => {
    expect(db.sqliteNow(), "outside any transaction").to.not.equal(undefined);
    let inOwn: unknown = "unset";
    let fromOther: unknown = "unset";
    let release!: () => void;
    const held = new Promise<void>((r) => { release = r; });
    const tx = db.transaction(async () => {
      await items.run("insert into {t} (id, n) values (?, ?)", ["a", 1]);
      inOwn = db.sqliteNow();
      await held;
    });
    await sleep(20);
    // another caller, while the transaction above is open on the connection
    fromOther = db.sqliteNow();
    release();
    await tx;
    expect(inOwn, "inside its own transaction").to.not.equal(undefined);
    expect(fromOther, "while someone else's transaction is open").to.equal(undefined);
  });

  it("a write made by another caller while a transaction is open is not rolled back with it", async () => {
    let release!: () => void;
    const held = new Promise<void>((r) => { release = r; });
    const tx = db.transaction(async () => {
      await items.run("insert into {t} (id, n) values (?, ?)", ["rolled-back", 1]);
      await held;
      throw new Error("roll back");
    }).catch((e: unknown) => e);
    await sleep(20);
    const outside = items.run("insert into {t} (id, n) values (?, ?)", ["kept", 2]);
    release();
    expect(String(await tx)).to.contain("roll back");
    expect(await outside).to.equal(1);
    expect((await items.all<{ id: string }>("select id from {t} order by id")).map((r) => r.id)).to.deep.equal(["kept"]);
  });

  it("writes inside a transaction commit or roll back with it", async () => {
    await db.transaction(async () => {
      await items.run("insert into {t} (id, n) values (?, ?)", ["committed", 1]);
    });
    await db.transaction(async () => {
      await items.run("insert into {t} (id, n) values (?, ?)", ["dropped", 2]);
      throw new Error("no");
    }).catch(() => undefined);
    expect((await items.all<{ id: string }>("select id from {t}")).map((r) => r.id)).to.deep.equal(["committed"]);
  });

  it("binds lists, booleans, bytes and bigints as MikroORM writes them", async () => {
    await items.run("insert into {t} (id, n, flag, data) values (?, ?, ?, ?)", ["x", 5n, true, Uint8Array.of(1, 2, 3)]);
    await items.run("insert into {t} (id, n, flag) values (?, ?, ?)", ["y", 6, false]);
    await items.run("insert into {t} (id, n) values (?, ?)", ["z", 7]);
    const rows = await items.all<{ id: string; n: number; flag: number; data: Buffer | null }>("select id, n, flag, data from {t} where id in (?) and n > ? order by id", [["x", "y"], 0]);
    expect(rows.map((r) => [r.id, r.n, r.flag, r.data ? [...r.data] : null])).to.deep.equal([["x", 5, 1, [1, 2, 3]], ["y", 6, 0, null]]);
    expect(await items.run("update {t} set flag = true where id in (?)", [["y", "z"]])).to.equal(2);
    expect((await items.all<{ n: number }>("select n from {t} where flag = ? order by n", [true])).map((r) => r.n)).to.deep.equal([5, 6, 7]);
  });

  it("widens a list parameter to one placeholder per element, leaves quoted text alone, and declines what it cannot bind", () => {
    expect(expandPlaceholders("select * from t where a in (?) and b = ? and c = 'why?'", [[1, 2, 3], "x"])).to.deep.equal({
      sql: "select * from t where a in (?, ?, ?) and b = ? and c = 'why?'", values: [1, 2, 3, "x"],
    });
    expect(expandPlaceholders("select ? ", [[]]), "an empty list").to.equal(undefined);
    expect(expandPlaceholders("select ?", [new Date()]), "a date").to.equal(undefined);
    expect(expandPlaceholders("select ?", [undefined]), "undefined").to.equal(undefined);
    expect(expandPlaceholders("select ?, ?", [1]), "too few parameters").to.equal(undefined);
    expect(expandPlaceholders("select ?", [1, 2]), "too many parameters").to.equal(undefined);
  });

  it("keeps a statement of single values as it is, the same asked again, a list in any place, and a quoted ? as text", () => {
    const q = "update t set a = ?, b = 'is it?' where id = ? and n in (?)";
    for (let k = 0; k < 2; k++) {
      const e = expandPlaceholders(q, [true, "x", [7]]);
      expect(e).to.deep.equal({ sql: q, values: [1, "x", 7] });
      expect(e!.sql === q, "the statement text itself").to.equal(true);
    }
    expect(expandPlaceholders(q, [false, "y", [7, 8]])).to.deep.equal({
      sql: "update t set a = ?, b = 'is it?' where id = ? and n in (?, ?)", values: [0, "y", 7, 8],
    });
    expect(expandPlaceholders("select ? from t where x in (?) and y = ?", [[1, 2], [3, 4, 5], null])).to.deep.equal({
      sql: "select ?, ? from t where x in (?, ?, ?) and y = ?", values: [1, 2, 3, 4, 5, null],
    });
    expect(expandPlaceholders("select 'a?b' || ?", ["c"]), "one placeholder outside the quotes").to.deep.equal({ sql: "select 'a?b' || ?", values: ["c"] });
    expect(expandPlaceholders("select 'a?b' || ?", []), "too few parameters for the one outside the quotes").to.equal(undefined);
  });
});
