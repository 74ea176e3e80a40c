/**
 * The participations that have not ended are read from an index of their own: ended ones stay in
 * the table, and the rounds' progress asks for the others every 2 s. On SQLite and, with
 * `TENDER_TEST_PG_URL`, on PostgreSQL.
 */
import { expect } from "chai";
import { Database, LeanSql, silentLogger, type DatabaseLocation } from "@tender/core";
import { indexAnswers } from "@tender/core/testing";
import { ACTIVE_PARTICIPATION, ROUNDS_ENTITIES, ROUNDS_MIGRATIONS } from "../src/participation-row.js";
import { ACTIVE_IDS_SQL, ParticipationStore } from "../src/participation-store.js";
import { FINAL_STATUSES, type ParticipationStatus } from "../src/participation.js";

const dialects: [string, () => DatabaseLocation | undefined][] = [
  ["SQLite", () => ({ dialect: "sqlite", path: ":memory:" })],
  ["PostgreSQL", () => {
    const url = process.env.TENDER_TEST_PG_URL;
    return url ? { dialect: "postgresql", url, schema: `rounds_store_${process.pid}_${Date.now()}` } : undefined;
  }],
];

for (const [dialect, location] of dialects) describe(`round participations that have not ended, on ${dialect}`, () => {
  let db: Database | undefined;
  let loc: DatabaseLocation;
  before(async function () {
    const where = location();
    if (!where) {
      console.log(`    ${dialect} case skipped: TENDER_TEST_PG_URL is not set (.ci/run starts PostgreSQL and sets it)`);
      return this.skip();
    }
    loc = where;
    db = new Database({ entities: [...ROUNDS_ENTITIES], migrations: [...ROUNDS_MIGRATIONS] }, silentLogger);
    await db.open(loc);
  });
  after(async () => {
    if (!db) return;
    if (dialect === "PostgreSQL") await db.destroy();
    else await db.close();
  });

  it("names the final statuses in its query and index", () => {
    expect(ACTIVE_PARTICIPATION).to.equal(`status not in (${FINAL_STATUSES.map((s) => `'${s}'`).join(", ")})`);
  });

  it("lists the participations that have not ended, oldest first, from the index of those alone", async () => {
    const store = new ParticipationStore(db!);
    const statuses: ParticipationStatus[] = ["done", "pending", "failed", "submitted", "canceled", "done", "forfeiting", "finished"];
    const created = [];
    for (const status of statuses) {
      const p = await store.create({ kind: "interactive", origin: "explicit", inputs: [], outputs: [], feeSat: 0n, inputsLocked: false });
      created.push((await store.update(p.id, { status })).id);
    }
    const active = await store.active();
    expect(active.map((p) => p.status)).to.deep.equal(["pending", "submitted", "forfeiting", "finished"]);
    expect(active.map((p) => p.id)).to.deep.equal([created[1], created[3], created[6], created[7]]);
    const rows = new LeanSql(db!, "round_participation");
    const r = await indexAnswers((q, p) => rows.all(q, p), loc, "round_participation_active", ACTIVE_IDS_SQL, [], /\(id\) WHERE/);
    expect(r.ok, r.evidence).to.equal(true);
  });
});
