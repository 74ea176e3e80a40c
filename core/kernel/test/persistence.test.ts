import { expect } from "chai";
import { mkdtempSync, existsSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Entity, PrimaryKey, Property } from "@mikro-orm/decorators/legacy";
import { ActionEngine, Database, defineMigration, silentLogger, type DatabaseLocation, type MigrationDefinition } from "../src/index.js";
import { ActionRecord, actionIdWidthMigration, actionMigration } from "../src/actions/action-record.js";

@Entity({ tableName: "test_note" })
class Note {
  @PrimaryKey({ type: "integer" })
  id!: number;

  @Property({ type: "string" })
  text!: string;

  @Property({ type: "bigint" })
  amountSat!: bigint;
}

const createNotes = defineMigration({
  name: "test_0001_notes",
  up: (dialect) => [
    dialect === "postgresql"
      ? "create table test_note (id serial primary key, text varchar(255) not null, amount_sat bigint not null)"
      : "create table test_note (id integer primary key autoincrement, text varchar(255) not null, amount_sat bigint not null)",
  ],
});
const addIndex = defineMigration({ name: "test_0002_index", up: () => ["create index test_note_text on test_note (text)"] });
const broken: MigrationDefinition = { name: "test_0003_broken", up: () => ["create table test_broken (id integer)", "this is not sql"] };

/** The same suite against one backend. */
function persistenceSuite(backend: string, location: () => DatabaseLocation | undefined): void {
  describe(`persistence on ${backend}`, function () {
    this.timeout(60_000);
    let loc: DatabaseLocation;
    before(function () {
      const l = location();
      if (!l) {
        console.log(`    PostgreSQL suite skipped: TENDER_TEST_PG_URL is not set (.ci/run starts PostgreSQL and sets it)`);
        this.skip();
      }
      loc = l!;
    });
    after(async () => {
      if (loc) await new Database({ entities: [Note], migrations: [createNotes] }, silentLogger).destroy(loc);
    });

    it("applies the plugins' migrations in order, once, and stores bigint sats exactly", async () => {
      const db = new Database({ entities: [Note], migrations: [createNotes, addIndex] }, silentLogger);
      await db.open(loc);
      expect(await db.appliedMigrations()).to.deep.equal(["test_0001_notes", "test_0002_index"]);
      const em = db.em();
      em.create(Note, { text: "hello", amountSat: 2_100_000_000_000_000n });
      await em.flush();
      await db.close();

      const again = new Database({ entities: [Note], migrations: [createNotes, addIndex] }, silentLogger);
      await again.open(loc);
      expect(await again.appliedMigrations()).to.deep.equal(["test_0001_notes", "test_0002_index"]);
      const notes = await again.em().find(Note, {});
      expect(notes.map((n) => [n.text, n.amountSat])).to.deep.equal([["hello", 2_100_000_000_000_000n]]);
      await again.close();
    });

    it("rolls a failing migration back completely and refuses to open", async () => {
      const db = new Database({ entities: [Note], migrations: [createNotes, addIndex, broken] }, silentLogger);
      let error: unknown;
      await db.open(loc).catch((e: unknown) => { error = e; });
      expect(error).to.be.instanceOf(Error);
      expect(db.isOpen).to.equal(false);
      const ok = new Database({ entities: [Note], migrations: [createNotes, addIndex] }, silentLogger);
      await ok.open(loc);
      expect(await ok.appliedMigrations()).to.deep.equal(["test_0001_notes", "test_0002_index"]);
      const rows = await ok.em().getConnection().execute(
        loc.dialect === "sqlite"
          ? "select name from sqlite_master where name = 'test_broken'"
          : `select table_name from information_schema.tables where table_schema = '${loc.dialect === "postgresql" ? loc.schema : ""}' and table_name = 'test_broken'`,
      );
      expect(rows).to.have.length(0);
      await ok.close();
      // destroying never runs migrations: it works even when a pending one is broken
      await new Database({ entities: [Note], migrations: [createNotes, addIndex, broken] }, silentLogger).destroy(loc);
      const fresh = new Database({ entities: [Note], migrations: [createNotes] }, silentLogger);
      await fresh.open(loc);
      expect(await fresh.appliedMigrations()).to.deep.equal(["test_0001_notes"]);
      await fresh.close();
    });

    it("commits the writes of a transaction together, and none of them when it fails", async () => {
      const db = new Database({ entities: [Note], migrations: [createNotes] }, silentLogger);
      await db.open(loc);
      const add = async (text: string) => { const em = db.em(); em.create(Note, { text, amountSat: 1n }); await em.flush(); };
      await db.transaction(async () => { await add("tx-a"); await add("tx-b"); });
      let err: unknown;
      await db.transaction(async () => { await add("tx-c"); await db.transaction(() => add("tx-d")); throw new Error("boom"); })
        .catch((e: unknown) => { err = e; });
      expect(String(err)).to.contain("boom");
      const texts = (await db.em().find(Note, { text: { $like: "tx-%" } })).map((n) => n.text).sort();
      expect(texts).to.deep.equal(["tx-a", "tx-b"]);
      await db.close();
    });

    it("closes while queries are still taking connections: the close ends, and every query is answered or refused", async () => {
      // The wallet's delete closed the database while a background task's query was taking a
      // connection: the pool handed that query a client after the close began, the client was never
      // given back, and the close waited for it forever (the daemon hung on PostgreSQL).
      const db = new Database({ entities: [Note], migrations: [createNotes] }, silentLogger);
      // on PostgreSQL a query the close overtook is refused as such; SQLite answers at once or fails on the closed file
      const refusal = loc.dialect === "postgresql" ? "database is closed" : "";
      const outcomes = new Set<string>();
      // the close begins at different moments of the queries' way to a connection
      for (const delayMs of [0, 0.5, 1, 2, 3, 5, 8]) {
        await db.open(loc);
        const queries = Array.from({ length: 30 }, () => db.em()).map((em) =>
          em.count(Note, {}).then(() => "answered", (e: unknown) => (String(e).includes(refusal) ? "refused" : String(e))));
        await new Promise((resolve) => setTimeout(resolve, delayMs));
        const ended = Promise.all([db.close(), ...queries]);
        let timer: NodeJS.Timeout | undefined;
        const hung = new Promise<"hung">((resolve) => { timer = setTimeout(() => resolve("hung"), 10_000); });
        const outcome = await Promise.race([ended, hung]).finally(() => clearTimeout(timer));
        expect(outcome, `the close ${delayMs} ms after the queries, and the queries, ended`).to.not.equal("hung");
        for (const a of (outcome as string[]).slice(1)) {
          expect(a, `a query ${delayMs} ms before the close`).to.be.oneOf(["answered", "refused"]);
          outcomes.add(a);
        }
      }
      expect([...outcomes], "some queries ran before the close").to.include("answered");
      // and it opens again afterwards
      await db.open(loc);
      expect(await db.em().count(Note, {})).to.be.a("number");
      await db.close();
    });

    it("runs after-commit work once the outermost transaction commits, at once outside one, never after a rollback", async () => {
      const db = new Database({ entities: [Note], migrations: [createNotes] }, silentLogger);
      await db.open(loc);
      const heard: string[] = [];
      const add = async (text: string) => { const em = db.em(); em.create(Note, { text, amountSat: 1n }); await em.flush(); };
      db.afterCommit(() => heard.push("outside"));
      expect(heard).to.deep.equal(["outside"]);
      await db.transaction(async () => {
        await add("ac-a");
        db.afterCommit(() => heard.push("a"));
        await db.transaction(async () => { await add("ac-b"); db.afterCommit(() => heard.push("b")); });
        // the nested transaction joined the outer one: nothing is heard before the outer commit
        expect(heard).to.deep.equal(["outside"]);
      });
      expect(heard).to.deep.equal(["outside", "a", "b"]);
      await db.transaction(async () => { await add("ac-c"); db.afterCommit(() => heard.push("c")); throw new Error("boom"); }).catch(() => undefined);
      expect(heard).to.deep.equal(["outside", "a", "b"]);
      await db.close();
    });

    it("keeps action ids longer than 64 characters (a kind, a payment hash and a nonce)", async () => {
      const db = new Database({ entities: [Note, ActionRecord], migrations: [createNotes, actionMigration, actionIdWidthMigration] }, silentLogger);
      await db.open(loc);
      const engine = new ActionEngine(db, silentLogger);
      engine.define({ kind: "test.long", firstStep: "one", steps: { one: async (s: { n: number }) => ({ done: true, state: s }) } });
      const id = `lightning-send:${"ab".repeat(32)}:0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0`;
      expect(id.length).to.be.greaterThan(64);
      expect((await engine.start("test.long", { n: 1 }, id)).step).to.equal("done");
      expect((await engine.status(id))?.step).to.equal("done");
      await db.close();
    });

    it("destroys all data", async () => {
      const db = new Database({ entities: [Note], migrations: [createNotes] }, silentLogger);
      await db.open(loc);
      await db.destroy();
      if (loc.dialect === "sqlite") expect(existsSync(loc.path)).to.equal(false);
      const fresh = new Database({ entities: [Note], migrations: [createNotes] }, silentLogger);
      await fresh.open(loc);
      expect(await fresh.em().find(Note, {})).to.have.length(0);
      await fresh.close();
    });
  });
}

const dir = mkdtempSync(join(tmpdir(), "tender-db-"));
after(() => rmSync(dir, { recursive: true, force: true }));
persistenceSuite("SQLite", () => ({ dialect: "sqlite", path: join(dir, "db.sqlite") }));
persistenceSuite("PostgreSQL", () => {
  const url = process.env.TENDER_TEST_PG_URL;
  return url ? { dialect: "postgresql", url, schema: `t_${process.pid}_${Date.now()}` } : undefined;
});
