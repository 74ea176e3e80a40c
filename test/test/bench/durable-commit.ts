/**
 * What one durable commit costs on this machine's disk, with the wallet database's settings
 * (SQLite in WAL mode, the log synced once per commit off the event loop: `WalSync`), one small
 * row per transaction, median of `rounds`: its wall time (the caller waits for the sync) and the
 * time the event loop was busy with it (the statements and the commit, not the sync, which runs
 * on libuv's thread pool). Every payment needs a few of them (the state it must keep before each
 * server call), so the wall time is the floor the database puts under a payment whatever the code
 * does, and the busy time what it takes from everything else the daemon serves meanwhile.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Database, defineMigration, silentLogger } from "@tender/core";

const table = defineMigration({ name: "bench_0001_commits", up: () => ["create table bench_commit (id integer primary key, body text not null)"] });

/** Wall time of one commit and the event loop's busy time in it, in ms (medians). */
export interface CommitCost { wallMs: number; loopBusyMs: number }

const median = (xs: number[]) => xs.sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

export async function durableCommitMs(rounds = 60): Promise<CommitCost> {
  const dir = mkdtempSync(join(tmpdir(), "tender-commit-"));
  const db = new Database({ entities: [], migrations: [table] }, silentLogger);
  try {
    await db.open({ dialect: "sqlite", path: join(dir, "db.sqlite") });
    const wall: number[] = [];
    const busy: number[] = [];
    for (let i = 0; i < rounds; i++) {
      const elu = performance.eventLoopUtilization();
      const t = performance.now();
      await db.transaction(async () => {
        // through the transaction's entity manager (the connection itself would wait for the transaction)
        const em = db.em() as unknown as { execute(q: string, params: unknown[], method: "run"): Promise<unknown> };
        await em.execute("insert into bench_commit (body) values (?)", ["x".repeat(400)], "run");
      });
      wall.push(performance.now() - t);
      busy.push(performance.eventLoopUtilization(elu).active);
    }
    return { wallMs: median(wall), loopBusyMs: median(busy) };
  } finally {
    await db.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
