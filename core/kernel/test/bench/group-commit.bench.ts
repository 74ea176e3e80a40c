/**
 * Durable transactions on a slow disk: how many commits per second the wallet database makes when
 * each sync of its write-ahead log takes `SLOW_MS` (an SD card, a network volume), with one
 * writer and with `WRITERS` writers at once. One writer needs one sync per commit; concurrent
 * writers commit while a sync runs and share the next one (`Database.transaction` releases the
 * connection before its sync), so the rate grows with them instead of staying at one commit per
 * sync. Each sync is the real fsync plus the delay.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Database, LeanSql, defineMigration, fsyncFile, silentLogger, type BenchReport, type FileSync } from "../../src/index.js";

const table = defineMigration({ name: "bench_0001_rows", up: () => ["create table bench_row (id integer primary key, writer integer not null, body text not null)"] });

const SLOW_MS = 10;
const WRITERS = 16;
const PER_WRITER = 15;

async function run(writers: number, sync: FileSync): Promise<{ commitsPerSec: number; syncsPerCommit: number }> {
  const dir = mkdtempSync(join(tmpdir(), "tender-group-commit-"));
  const db = new Database({ entities: [], migrations: [table] }, silentLogger, sync);
  try {
    await db.open({ dialect: "sqlite", path: join(dir, "db.sqlite") });
    const rows = new LeanSql(db, "bench_row");
    const syncs = db.walSyncs;
    const t = performance.now();
    await Promise.all(
      Array.from({ length: writers }, async (_, w) => {
        for (let i = 0; i < PER_WRITER; i++) {
          await db.transaction(() => rows.run("insert into {t} (writer, body) values (?, ?)", [w, "x".repeat(400)]));
        }
      }),
    );
    const commits = writers * PER_WRITER;
    return { commitsPerSec: commits / ((performance.now() - t) / 1000), syncsPerCommit: (db.walSyncs - syncs) / commits };
  } finally {
    await db.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

export default async function groupCommitBench(): Promise<BenchReport> {
  const slow: FileSync = async (path) => {
    await fsyncFile(path);
    await new Promise((r) => setTimeout(r, SLOW_MS));
  };
  const rows = [];
  for (const [label, sync] of [[`this disk + ${SLOW_MS} ms per sync`, slow], ["this disk", fsyncFile]] as const) {
    for (const writers of [1, WRITERS]) {
      const r = await run(writers, sync);
      rows.push({
        name: `durable transactions/s, ${writers} writer${writers > 1 ? "s" : ""} (${label})`,
        opsPerSec: r.commitsPerSec,
        note: `${r.syncsPerCommit.toFixed(2)} log syncs per commit`,
      });
    }
  }
  return { title: "Wallet database: durable commits (SQLite WAL, group commit across transactions)", rows };
}
