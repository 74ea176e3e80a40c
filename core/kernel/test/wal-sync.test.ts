import { expect } from "chai";
import { existsSync, mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Database, DurabilityError, LeanSql, WalSync, silentLogger, type FileSync, type Logger } from "../src/index.js";
import { Readiness } from "../src/health/readiness.js";
import { Metrics } from "../src/metrics/metrics.js";
import { registerKernelHealth } from "../src/health/kernel-health.js";
import type { WalletSession } from "../src/wallet/session.js";
import { defineMigration } from "../src/persistence/migration.js";

const itemsMigration = defineMigration({
  name: "test_0001_items",
  up: () => ["create table test_item (id varchar(64) not null primary key, n integer not null)"],
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A file sync the test holds and releases (or fails), recording what it was asked to sync. */
class HeldSync {
  readonly asked: string[] = [];
  private gates: { release: () => void; fail: (e: Error) => void }[] = [];
  holding = false;

  readonly sync: FileSync = (path) => {
    this.asked.push(path);
    if (!this.holding) return Promise.resolve();
    return new Promise<void>((release, fail) => this.gates.push({ release, fail }));
  };

  get waiting(): number {
    return this.gates.length;
  }

  releaseAll(): void {
    const g = this.gates;
    this.gates = [];
    for (const x of g) x.release();
  }

  failAll(e: Error): void {
    const g = this.gates;
    this.gates = [];
    for (const x of g) x.fail(e);
  }
}

/** Settles to "pending" when `p` has not settled within `ms`. */
async function stateAfter(p: Promise<unknown>, ms = 30): Promise<"resolved" | "rejected" | "pending"> {
  return Promise.race([p.then(() => "resolved" as const, () => "rejected" as const), sleep(ms).then(() => "pending" as const)]);
}

describe("durable SQLite commits with the write-ahead log synced off the event loop", () => {
  let dir: string;
  let db: Database;
  let held: HeldSync;
  let items: LeanSql;
  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), "tender-wal-"));
    held = new HeldSync();
    db = new Database({ entities: [], migrations: [itemsMigration] }, silentLogger, held.sync);
    await db.open({ dialect: "sqlite", path: join(dir, "wallet.sqlite") });
    items = new LeanSql(db, "test_item");
  });
  afterEach(async () => {
    held.holding = false;
    held.releaseAll();
    await db.close().catch(() => undefined);
    rmSync(dir, { recursive: true, force: true });
  });

  it("a transaction's caller goes on only once the write-ahead log is synced", async () => {
    held.holding = true;
    held.asked.length = 0;
    const tx = db.transaction(() => items.run("insert into {t} (id, n) values (?, ?)", ["a", 1]));
    expect(await stateAfter(tx), "before the sync ended").to.equal("pending");
    expect(held.asked, "the log was asked to sync").to.deep.equal([join(dir, "wallet.sqlite-wal")]);
    held.releaseAll();
    expect(await tx).to.equal(1);
  });

  it("a write on its own (prepared statement outside a transaction) returns only once it is synced, and a read waits for the sync under way", async () => {
    held.holding = true;
    const write = items.run("insert into {t} (id, n) values (?, ?)", ["b", 2]);
    expect(await stateAfter(write), "the write before the sync ended").to.equal("pending");
    // the row is committed on the connection but not on disk yet: a read must not see it
    const read = items.all<{ id: string }>("select id from {t}");
    expect(await stateAfter(read), "the read while the sync runs").to.equal("pending");
    held.releaseAll();
    expect(await write).to.equal(1);
    expect((await read).map((r) => r.id)).to.deep.equal(["b"]);
  });

  it("a transaction's connection is free while its log syncs: the next transaction commits meanwhile and shares the next sync", async () => {
    const logSize = () => statSync(join(dir, "wallet.sqlite-wal")).size;
    held.holding = true;
    const first = db.transaction(() => items.run("insert into {t} (id, n) values (?, ?)", ["a", 1]));
    expect(await stateAfter(first), "the first transaction, its sync held").to.equal("pending");
    const before = logSize();
    const second = db.transaction(() => items.run("insert into {t} (id, n) values (?, ?)", ["b", 2]));
    const third = db.transaction(() => items.run("insert into {t} (id, n) values (?, ?)", ["c", 3]));
    expect(await stateAfter(Promise.all([second, third])), "the later transactions, before any sync covers them").to.equal("pending");
    expect(logSize(), "the later transactions committed while the first one's sync ran").to.be.greaterThan(before);
    const syncs = held.asked.length;
    held.releaseAll(); // the first transaction's sync: it began before the later commits
    expect(await first).to.equal(1);
    expect(await stateAfter(Promise.all([second, third])), "the later transactions, their sync held").to.equal("pending");
    held.releaseAll();
    expect(await Promise.all([second, third])).to.deep.equal([1, 1]);
    expect(held.asked.length - syncs, "one sync for both later transactions").to.equal(1);
  });

  /** Refuses when the row was seen. */
  const refuseIfThere = (rows: readonly unknown[]): string => {
    if (rows.length) throw new Error("already there");
    return "inserted";
  };

  /** Runs `refuse` (a transaction that refuses on the row it reads) while the row's write is syncing: it must be answered only after that sync. */
  async function refusalWaitsForTheRowsSync(refuse: () => Promise<string>): Promise<void> {
    held.holding = true;
    const write = items.run("insert into {t} (id, n) values (?, ?)", ["a", 1]);
    await sleep(5);
    const refused = refuse().then((v) => v, (e: Error) => e.message);
    expect(await stateAfter(refused), "the refusal, while the row it saw is not on disk").to.equal("pending");
    held.releaseAll();
    await write;
    expect(await refused).to.equal("already there");
  }

  it("a transaction that fails on what it read is answered once that read is on disk", () =>
    refusalWaitsForTheRowsSync(() => db.transaction(async () => refuseIfThere(await items.all("select n from {t} where id = ?", ["a"])))));

  it("a MikroORM transaction of its own that rolls back is answered once what it read is on disk", () => {
    const em = db.em() as unknown as { transactional<T>(cb: (em: { execute(q: string, p: unknown[], m: string): Promise<unknown> }) => Promise<T>): Promise<T> };
    return refusalWaitsForTheRowsSync(() => em.transactional(async (tx) => refuseIfThere((await tx.execute("select n from test_item where id = ?", ["a"], "all")) as unknown[])));
  });

  it("a read that saw a commit made while a sync ran is answered only after the sync that covers that commit", async () => {
    held.holding = true;
    const first = items.run("insert into {t} (id, n) values (?, ?)", ["a", 1]);
    await sleep(5);
    expect(held.waiting, "the first write's sync is held").to.equal(1);
    // written at once (a writer does not wait for a sync), covered only by the next sync
    const second = items.run("insert into {t} (id, n) values (?, ?)", ["b", 2]);
    const read = items.all<{ id: string }>("select id from {t} order by id");
    held.releaseAll(); // the first write's sync: it began before the second write
    await first;
    expect(await stateAfter(read), "the read, while the second write's sync is held").to.equal("pending");
    expect(held.waiting, "the second write's sync is under way").to.equal(1);
    held.releaseAll();
    await second;
    expect((await read).map((r) => r.id)).to.deep.equal(["a", "b"]);
  });

  it("a read waits for nothing when what it saw is on disk, and for the sync under way alone when that sync covers it", async () => {
    await items.run("insert into {t} (id, n) values (?, ?)", ["a", 1]);
    const asked = held.asked.length;
    expect((await items.all<{ id: string }>("select id from {t}")).length).to.equal(1);
    expect(held.asked.length, "no sync for a read of synced rows").to.equal(asked);
    held.holding = true;
    const write = items.run("insert into {t} (id, n) values (?, ?)", ["b", 2]);
    await sleep(5);
    const read = items.all<{ id: string }>("select id from {t}");
    expect(await stateAfter(read), "the read, while the write's sync is held").to.equal("pending");
    held.releaseAll();
    await write;
    expect((await read).length).to.equal(2);
    expect(held.asked.length, "the read asked for no sync of its own").to.equal(asked + 1);
  });

  it("MikroORM's statements outside a transaction are synced as well (an entity manager's own commit)", async () => {
    held.holding = true;
    const em = db.em() as unknown as { execute(q: string, p: unknown[], m: string): Promise<unknown> };
    const write = em.execute("insert into test_item (id, n) values (?, ?)", ["c", 3], "run");
    expect(await stateAfter(write)).to.equal("pending");
    held.releaseAll();
    await write;
    const reads = held.asked.length;
    await em.execute("select * from test_item", [], "all");
    expect(held.asked.length, "a read asks for no sync").to.equal(reads);
  });

  it("a failed sync fails that commit and every later one (after an fsync error a later sync proves nothing)", async () => {
    held.holding = true;
    const tx = db.transaction(() => items.run("insert into {t} (id, n) values (?, ?)", ["d", 4]));
    await sleep(10);
    held.failAll(Object.assign(new Error("EIO: i/o error, fsync"), { code: "EIO" }));
    const err = await tx.then(() => undefined, (e: unknown) => e);
    expect(err).to.be.instanceOf(DurabilityError);
    expect(String(err)).to.contain("must be reopened");
    held.holding = false;
    const later = await db.transaction(() => items.run("insert into {t} (id, n) values (?, ?)", ["e", 5])).then(() => undefined, (e: unknown) => e);
    expect(later, "a later commit, though its own sync would succeed").to.be.instanceOf(DurabilityError);
    expect(db.durabilityFailed).to.equal(true);
    const readiness = new Readiness(silentLogger);
    registerKernelHealth(readiness, new Metrics(silentLogger), db, { isLoaded: true, isLocked: false } as WalletSession);
    const report = await readiness.report();
    expect(report.checks.database, "readiness says why").to.deep.include({ ok: false });
    expect(report.checks.database!.detail).to.contain("refused to sync");
  });

  it("logs the first failed sync once, as an error", async () => {
    const errors: string[] = [];
    const logger: Logger = { ...silentLogger, error: (m: string) => { errors.push(m); } };
    await db.close();
    held = new HeldSync();
    db = new Database({ entities: [], migrations: [itemsMigration] }, logger, async (p) => { if (p.endsWith("-wal") && failing) throw new Error("EIO"); });
    let failing = false;
    await db.open({ dialect: "sqlite", path: join(dir, "wallet.sqlite") });
    items = new LeanSql(db, "test_item");
    failing = true;
    for (const id of ["x", "y"]) await items.run("insert into {t} (id, n) values (?, ?)", [id, 1]).catch(() => undefined);
    expect(errors).to.have.length(1);
    expect(errors[0]).to.contain("could not make its commits durable");
  });

  it("a slow disk does not stall the event loop: timers keep firing while a commit waits 60 ms for its sync", async () => {
    await db.close();
    db = new Database({ entities: [], migrations: [itemsMigration] }, silentLogger, async () => { await sleep(60); });
    await db.open({ dialect: "sqlite", path: join(dir, "wallet.sqlite") });
    items = new LeanSql(db, "test_item");
    let ticks = 0;
    const timer = setInterval(() => ticks++, 5);
    const t0 = performance.now();
    await db.transaction(() => items.run("insert into {t} (id, n) values (?, ?)", ["slow", 1]));
    const took = performance.now() - t0;
    clearInterval(timer);
    expect(took, "the commit waited for its sync").to.be.greaterThanOrEqual(55);
    expect(ticks, "a 5 ms timer kept firing meanwhile").to.be.greaterThanOrEqual(6);
  });

  it("each sync's duration is heard by the log-sync observer and summed (the disk's share of a commit), the directory's own sync not counted", async () => {
    await db.close();
    const asked: string[] = [];
    db = new Database({ entities: [], migrations: [itemsMigration] }, silentLogger, async (p) => {
      asked.push(p);
      await sleep(p.endsWith("-wal") ? 25 : 40);
    });
    const heard: number[] = [];
    db.logSyncObserver = (s) => heard.push(s);
    await db.open({ dialect: "sqlite", path: join(dir, "wallet.sqlite") });
    items = new LeanSql(db, "test_item");
    const [syncs0, seconds0, heard0] = [db.walSyncs, db.walSyncSeconds, heard.length];
    for (const id of ["p", "q"]) await db.transaction(() => items.run("insert into {t} (id, n) values (?, ?)", [id, 1]));
    const logSyncs = db.walSyncs - syncs0;
    expect(logSyncs, "one sync a commit").to.equal(2);
    expect(heard.length - heard0).to.equal(logSyncs);
    // the open's migrations committed too (the first sync, with the directory's): every one heard is the log's alone
    expect(heard.length).to.equal(db.walSyncs);
    for (const s of heard) expect(s).to.be.within(0.024, 0.039);
    expect(db.walSyncSeconds - seconds0).to.be.closeTo(heard.slice(heard0).reduce((a, b) => a + b, 0), 1e-9);
    expect(asked.filter((p) => !p.endsWith("-wal")), "the directory synced once").to.have.length(1);
  });

  it("with the real fsync, commits are synced and the data is there after a reopen", async () => {
    await db.close();
    db = new Database({ entities: [], migrations: [itemsMigration] }, silentLogger);
    const path = join(dir, "wallet.sqlite");
    await db.open({ dialect: "sqlite", path });
    items = new LeanSql(db, "test_item");
    const before = db.walSyncs;
    await db.transaction(() => items.run("insert into {t} (id, n) values (?, ?)", ["f", 6]));
    expect(db.walSyncs).to.be.greaterThan(before);
    expect(existsSync(`${path}-wal`)).to.equal(true);
    await db.close();
    db = new Database({ entities: [], migrations: [itemsMigration] }, silentLogger);
    await db.open({ dialect: "sqlite", path });
    items = new LeanSql(db, "test_item");
    expect((await items.all<{ id: string }>("select id from {t}")).map((r) => r.id)).to.deep.equal(["f"]);
  });
});

describe("WalSync", () => {
  it("flushes asked while a sync runs wait for the next sync, and share it", async () => {
    const held = new HeldSync();
    held.holding = true;
    const wal = new WalSync("/nowhere/db.sqlite", held.sync);
    const first = wal.flush();
    await sleep(5);
    const later = [wal.flush(), wal.flush(), wal.flush()];
    expect(held.waiting, "one sync runs").to.equal(1);
    held.releaseAll(); // the log sync of the first flush
    await sleep(5);
    held.releaseAll(); // the directory sync that follows the first log sync
    await first;
    expect(await stateAfter(Promise.all(later), 10), "the later flushes are not answered by the sync that began before them").to.equal("pending");
    expect(held.waiting, "one more sync for all three").to.equal(1);
    held.releaseAll();
    await Promise.all(later);
    expect(wal.syncs).to.equal(2);
    expect(held.asked).to.deep.equal(["/nowhere/db.sqlite-wal", "/nowhere", "/nowhere/db.sqlite-wal"]);
  });

  it("with no log file yet, syncs the database file itself", async () => {
    const asked: string[] = [];
    const wal = new WalSync("/nowhere/db.sqlite", async (p) => {
      asked.push(p);
      if (p.endsWith("-wal")) throw Object.assign(new Error("ENOENT"), { code: "ENOENT" });
    });
    await wal.flush();
    expect(asked).to.deep.equal(["/nowhere/db.sqlite-wal", "/nowhere/db.sqlite", "/nowhere"]);
  });
});
