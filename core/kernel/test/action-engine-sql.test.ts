import { expect } from "chai";
import { ActionEngine, Database, LeanSql, silentLogger, type ActionDefinition, type DatabaseLocation } from "../src/index.js";
import { ActionRecord, actionIdWidthMigration, actionMigration } from "../src/actions/action-record.js";
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
  let notes: LeanSql;
  let now = 1_000_000;
  before(async function () {
    const loc = location();
    if (!loc) {
      this.skip();
      return;
    }
    db = new Database({ entities: [ActionRecord], migrations: [actionMigration, actionIdWidthMigration, notesMigration] }, silentLogger);
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
});
