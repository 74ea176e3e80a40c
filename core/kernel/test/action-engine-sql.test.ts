import { expect } from "chai";
import { ActionEngine, Database, LeanSql, silentLogger, type ActionDefinition, type DatabaseLocation } from "../src/index.js";
import { DUE_ACTIONS_SQL, UNFINISHED_OF_KIND_SQL } from "../src/actions/action-engine.js";
import { indexAnswers } from "../src/testing/index-answers.js";
import { ActionRecord, actionIdWidthMigration, actionMigration, dropActionStepIndexMigration, unfinishedActionsMigration } from "../src/actions/action-record.js";
import { defineMigration } from "../src/persistence/migration.js";

/** A table a test action writes next to its own row. */
const notesMigration = defineMigration({ name: "test_0001_notes", up: () => ["create table test_note (id varchar(255) not null primary key, body text not null)"] });

interface NoteState { text: string; n: number }

/** The engine keeps its rows in plain SQL: the same behaviour on SQLite and, with `TENDER_TEST_PG_URL`, on PostgreSQL. */
const dialects: [string, () => DatabaseLocation | undefined][] = [
  ["SQLite", () => ({ dialect: "sqlite", path: ":memory:" })],
  ["PostgreSQL", () => {
    const url = process.env.TENDER_TEST_PG_URL;
    return url ? { dialect: "postgresql", url, schema: `kernel_actions_${process.pid}_${Date.now()}` } : undefined;
  }],
];

for (const [dialect, location] of dialects) describe(`action engine rows in plain SQL on ${dialect}`, () => {
  let db: Database;
  let loc: DatabaseLocation;
  let notes: LeanSql;
  let now = 1_000_000;
  before(async function () {
    const where = location();
    if (!where) {
      console.log(`    ${dialect} action engine cases skipped: TENDER_TEST_PG_URL is not set (.ci/run starts PostgreSQL and sets it)`);
      this.skip();
      return;
    }
    db = new Database({ entities: [ActionRecord], migrations: [actionMigration, actionIdWidthMigration, unfinishedActionsMigration, dropActionStepIndexMigration, notesMigration] }, silentLogger);
    loc = where;
    await db.open(loc);
    notes = new LeanSql(db, "test_note");
  });
  after(async () => {
    if (!db) return;
    if (dialect === "PostgreSQL") await db.destroy();
    else await db.close();
  });

  /** write (local) → wait once → end; the note and the end commit together. */
  const noteAction = (): ActionDefinition<NoteState> => ({
    kind: "test.note",
    firstStep: "write",
    localSteps: ["write"],
    steps: {
      write: async (s, { id }) => {
        await notes.run("insert into {t} (id, body) values (?, ?)", [id, s.text]);
        return { next: "settle", state: { ...s, n: s.n + 1 } };
      },
      settle: async (s) => (s.n < 2 ? { waitMs: 60_000, state: { ...s, n: s.n + 1 } } : { failed: `gave up: "${s.text}" \\ ok`, state: s }),
    },
  });

  it("begin's persist writes in the transaction that stores the action: both or neither", async () => {
    const engine = new ActionEngine(db, silentLogger, () => now);
    engine.define(noteAction());
    const refused = await engine.begin("test.note", { text: "x", n: 0 }, "refused", async () => {
      await notes.run("insert into {t} (id, body) values (?, ?)", ["persisted-by-refused", "y"]);
      throw new Error("no");
    }).catch((e: unknown) => e);
    expect((refused as Error).message).to.equal("no");
    expect(await engine.status("refused")).to.equal(undefined);
    expect(await notes.all("select id from {t} where id = ?", ["persisted-by-refused"])).to.deep.equal([]);

    await engine.begin("test.note", { text: "x", n: 0 }, "kept", () => notes.run("insert into {t} (id, body) values (?, ?)", ["persisted-by-kept", "y"]).then(() => undefined));
    expect((await engine.status("kept"))?.step).to.equal("settle");
    expect((await notes.all<{ id: string }>("select id from {t} where id in (?)", [["persisted-by-kept", "kept"]])).map((r) => r.id).sort()).to.deep.equal(["kept", "persisted-by-kept"]);
  });

  it("records steps, waits and the end with the state as written (quotes, backslashes, non-ASCII), and resumes a wait only once it is over", async () => {
    const engine = new ActionEngine(db, silentLogger, () => now);
    engine.define(noteAction());
    const text = `it's "quoted" \\ back\\slashed — ünïcode ✓`;
    const started = await engine.start("test.note", { text, n: 0 }, "a-long-id-".padEnd(120, "z"));
    expect(started).to.deep.include({ step: "settle", state: { text, n: 2 } });
    const [note] = await notes.all<{ body: string }>("select body from {t} where id = ?", [started.id]);
    expect(note?.body).to.equal(text);
    expect((await engine.unfinished<NoteState>("test.note")).map((a) => a.id)).to.include(started.id);

    await engine.resumeAll(); // the wait is not over: nothing runs
    expect((await engine.status<NoteState>(started.id))?.state.n).to.equal(2);
    now += 60_000;
    await engine.resumeAll();
    const ended = await engine.status<NoteState>(started.id);
    expect(ended).to.deep.include({ step: "failed", error: `gave up: "${text}" \\ ok` });
  });

  it("reads the due and the unfinished actions from an index of the unfinished ones, however many ended", async () => {
    const rows = new LeanSql(db, "kernel_action");
    // ended actions stay in the table (one a payment): many of them, and a few unfinished
    for (let i = 0; i < 300; i++) {
      await rows.run("insert into {t} (id, kind, step, state, error, not_before, updated_at) values (?, ?, ?, ?, null, 0, ?)", [`ended-${i}`, "test.other", i % 3 ? "done" : "failed", "{}", i]);
    }
    const unfinished = (id: string, kind: string, notBefore: number, updatedAt: number) =>
      rows.run("insert into {t} (id, kind, step, state, error, not_before, updated_at) values (?, ?, 'wait', '{}', null, ?, ?)", [id, kind, notBefore, updatedAt]);
    await unfinished("u-late", "test.other", now + 5_000, 3);
    await unfinished("u-due-2", "test.other", now - 10, 1);
    await unfinished("u-due-1", "test.other", now - 20, 2);
    const engine = new ActionEngine(db, silentLogger, () => now);
    expect((await engine.unfinished("test.other")).map((a) => a.id)).to.deep.equal(["u-due-2", "u-due-1", "u-late"]);
    expect((await rows.all<{ id: string }>(DUE_ACTIONS_SQL, [now])).map((r) => r.id)).to.deep.equal(["u-due-1", "u-due-2"]);
    for (const [q, p] of [[DUE_ACTIONS_SQL, [now]], [UNFINISHED_OF_KIND_SQL, ["test.other"]]] as const) {
      const r = await indexAnswers((sql, params) => rows.all(sql, params), loc, "kernel_action_unfinished", q, p, /\(not_before\) WHERE/);
      expect(r.ok, `${q}: ${r.evidence}`).to.equal(true);
    }
    await rows.run("delete from {t} where id like 'ended-%' or id like 'u-%'", []);
  });

  it("keeps the primary key and the index of the unfinished actions only: no index on step alone for every step to rewrite", async () => {
    const rows = new LeanSql(db, "kernel_action");
    const names = loc.dialect === "postgresql"
      ? (await rows.all<{ name: string }>("select indexname as name from pg_indexes where schemaname = ? and tablename = 'kernel_action'", [loc.schema])).map((r) => r.name)
      : (await rows.all<{ name: string }>("select name from sqlite_master where type = 'index' and tbl_name = 'kernel_action'", [])).map((r) => r.name);
    expect(names.filter((n) => !/pkey|autoindex/.test(n)).sort()).to.deep.equal(["kernel_action_unfinished"]);
  });
});
