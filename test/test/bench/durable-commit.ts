/**
 * What one durable commit costs on this machine's disk: the wallet database's settings (SQLite,
 * WAL, synchronous=full), one small row per transaction, median of `rounds`. Every payment needs
 * a few of them (the state it must keep before each server call), so this is the floor the
 * database puts under a payment whatever the code does.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Database, defineMigration, silentLogger } from "@tender/core";

const table = defineMigration({ name: "bench_0001_commits", up: () => ["create table bench_commit (id integer primary key, body text not null)"] });

export async function durableCommitMs(rounds = 60): Promise<number> {
  const dir = mkdtempSync(join(tmpdir(), "tender-commit-"));
  const db = new Database({ entities: [], migrations: [table] }, silentLogger);
  try {
    await db.open({ dialect: "sqlite", path: join(dir, "db.sqlite") });
    const times: number[] = [];
    for (let i = 0; i < rounds; i++) {
      const t = performance.now();
      await db.transaction(async () => {
        // through the transaction's entity manager (the connection itself would wait for the transaction)
        const em = db.em() as unknown as { execute(q: string, params: unknown[], method: "run"): Promise<unknown> };
        await em.execute("insert into bench_commit (body) values (?)", ["x".repeat(400)], "run");
      });
      times.push(performance.now() - t);
    }
    return times.sort((a, b) => a - b)[Math.floor(rounds / 2)]!;
  } finally {
    await db.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
