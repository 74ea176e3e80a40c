import { expect } from "chai";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Database, type DatabaseLocation, EventBus, WalletNotificationRaised, silentLogger, type WalletNotification } from "@tender/core";
import { MovementRecord, MovementStore, PaymentMethodParsers, movementMigration } from "@tender/plugin-history";
import { EventLog } from "../src/log/event-log.js";
import type { LoggedEvent } from "../src/log/logged-event.js";
import { EventRecord, EVENTS_ENTITIES } from "../src/persistence/records.js";
import { eventsMigration } from "../src/persistence/migrations.js";

const movement = { subsystem: { name: "test", kind: "receive" }, intendedBalanceSat: 1000, effectiveBalanceSat: 1000 };

const dir = mkdtempSync(join(tmpdir(), "tender-events-"));
after(() => rmSync(dir, { recursive: true, force: true }));

function logSuite(name: string, location: () => DatabaseLocation | undefined): void {
describe(`event log (${name})`, () => {
  let loc: DatabaseLocation;
  let db: Database;
  let log: EventLog;
  let store: MovementStore;
  let clock = 1_700_000_000_000;
  const seen: WalletNotification[] = [];
  let n = 0;
  before(function () {
    const l = location();
    if (!l) {
      console.log(`    ${name} event log suite skipped: TENDER_TEST_PG_URL is not set`);
      this.skip();
    }
    loc = l!;
  });
  beforeEach(async () => {
    db = new Database({ entities: [MovementRecord, ...EVENTS_ENTITIES], migrations: [movementMigration, eventsMigration] }, silentLogger);
    await db.open(loc.dialect === "sqlite" ? { dialect: "sqlite", path: join(dir, `db-${n++}.sqlite`) } : { ...loc, schema: `${loc.schema}_${n++}` });
    const bus = new EventBus(silentLogger);
    log = new EventLog(db, silentLogger, () => clock);
    store = new MovementStore(db, bus, new PaymentMethodParsers());
    store.addJournal((n) => log.journal(n));
    bus.on(WalletNotificationRaised, (n) => { seen.push(n); log.observe(n); });
  });
  afterEach(async () => {
    await log.idle();
    await db.destroy();
  });

  it("records a movement's notification in the movement's transaction, visible once sequenced, with increasing cursors", async () => {
    const m = await store.create(movement);
    await store.update(m.id, { status: "successful" });
    const rows = await db.em().find(EventRecord, {}, { orderBy: { id: "asc" } });
    expect(rows.map((r) => r.type)).to.deep.equal(["movement-created", "movement-updated"]);
    await log.idle();
    const events = await log.read(0n, 10);
    expect(events.map((e) => [e.cursor, e.type])).to.deep.equal([["1", "movement-created"], ["2", "movement-updated"]]);
    expect(events[0]!.payload).to.deep.equal(seen[0]);
    expect(events[1]!.payload).to.deep.equal({ type: "movement-updated", movement: await store.get(m.id) });
    expect(events[0]!.time).to.equal(new Date(clock).toISOString());
    expect((await log.read(1n, 10)).map((e) => e.cursor)).to.deep.equal(["2"]);
    expect(await log.latest()).to.equal(2n);
  });

  it("rolls the event back with the change when the enclosing transaction fails", async () => {
    await store.create(movement);
    await log.idle();
    const failed = await db.transaction(async () => {
      await store.create(movement);
      throw new Error("the caller's next write failed");
    }).catch((e: Error) => e.message);
    expect(failed).to.equal("the caller's next write failed");
    await log.sequence();
    expect(await db.em().count(MovementRecord, {})).to.equal(1);
    expect(await db.em().count(EventRecord, {})).to.equal(1);
    expect((await log.read(0n, 10)).map((e) => e.cursor)).to.deep.equal(["1"]);
  });

  it("keeps an unsequenced row (a crash before sequencing, or a row of an earlier version) and sequences it on the next run", async () => {
    if (name === "PostgreSQL") {
      await db.transaction(() => log.journal({ type: "movement-created", movement: { id: 7 } }));
    } else {
      const em = db.em();
      em.create(EventRecord, { cursor: null, type: "movement-created", createdAt: BigInt(clock), payload: JSON.stringify({ type: "movement-created", movement: { id: 7 } }) });
      await em.flush();
    }
    expect(await log.read(0n, 10)).to.deep.equal([]);
    const made = await log.sequence();
    expect(made.map((e) => [e.cursor, (e.payload as unknown as { movement: { id: number } }).movement.id])).to.deep.equal([["1", 7]]);
  });

  it("appends notifications raised outside the movement store, and never channel-lagging", async () => {
    log.observe({ type: "movement-updated", movement: { id: 42 } });
    log.observe({ type: "channel-lagging" });
    await log.idle();
    const events = await log.read(0n, 10);
    expect(events.map((e) => e.type)).to.deep.equal(["movement-updated"]);
  });

  it("tells subscribers each newly visible batch in cursor order", async () => {
    const batches: string[][] = [];
    log.subscribe((b) => batches.push(b.map((e) => e.cursor)));
    await store.create(movement);
    await store.create(movement);
    await log.idle();
    expect(batches.flat()).to.deep.equal(["1", "2"]);
  });

  it("prunes events older than the cutoff but keeps the newest, so cursors never restart", async () => {
    await store.create(movement);
    clock += 1000;
    await store.create(movement);
    await log.idle();
    expect(await log.prune(clock + 1)).to.equal(1);
    expect((await log.read(0n, 10)).map((e) => e.cursor)).to.deep.equal(["2"]);
    await store.create(movement);
    await log.idle();
    expect((await log.read(0n, 10)).map((e) => e.cursor)).to.deep.equal(["2", "3"]);
  });

  if (name === "SQLite") {
    it("gives the cursor in the change's own transaction: visible once it commits, before any sequencing run, with the hooks' writes in that transaction", async () => {
      const hooked: string[][] = [];
      log.onSequenced(async (events) => {
        hooked.push(events.map((e) => e.cursor));
        if (events.some((e) => (e.payload as unknown as { movement: { intended_balance_sat?: number } }).movement.intended_balance_sat === 13)) throw new Error("hook refused");
      });
      const m = await store.create(movement);
      // no log.idle() nor log.sequence(): the commit of the movement made it visible
      expect((await log.read(0n, 10)).map((e) => [e.cursor, e.type])).to.deep.equal([["1", "movement-created"]]);
      await store.update(m.id, { status: "successful" });
      expect((await log.read(0n, 10)).map((e) => e.cursor)).to.deep.equal(["1", "2"]);
      expect(hooked).to.deep.equal([["1"], ["2"]]);
      // a hook that fails takes the change down with it: neither the movement nor its event is there
      const failed = await store.create({ ...movement, intendedBalanceSat: 13 }).catch((e: Error) => e.message);
      expect(failed).to.equal("hook refused");
      expect(await db.em().count(MovementRecord, {})).to.equal(1);
      expect(await log.latest()).to.equal(2n);
      await store.create(movement);
      expect((await log.read(2n, 10)).map((e) => e.cursor)).to.deep.equal(["3"]);
    });

    it("tells subscribers only of what became visible after the log was first used, in order, after a reset as well", async () => {
      await store.create(movement);
      await log.idle();
      const batches: string[][] = [];
      log.subscribe((b) => batches.push(b.map((e) => e.cursor)));
      await store.create(movement);
      await store.create(movement);
      await log.idle();
      expect(batches.flat()).to.deep.equal(["2", "3"]);
      log.reset();
      await store.create(movement);
      await log.idle();
      expect(batches.flat()).to.deep.equal(["2", "3", "4"]);
    });
  }

  if (name === "SQLite") {
    it("tells subscribers the events it journaled without reading them back from the log, the same as the log holds", async () => {
      const batches: LoggedEvent[][] = [];
      log.subscribe((b) => batches.push(b));
      const reads: bigint[] = [];
      const read = log.read.bind(log);
      log.read = (after, limit) => (reads.push(after), read(after, limit));
      const m = await store.create(movement);
      await store.update(m.id, { status: "successful" });
      await log.idle();
      expect(reads, "rows read back").to.deep.equal([]);
      expect(batches.flat()).to.deep.equal(await read(0n, 10));
      expect(batches.flat().map((e) => [e.cursor, e.type])).to.deep.equal([["1", "movement-created"], ["2", "movement-updated"]]);
    });

    it("a sequencing run with nothing journaled since the last one reads nothing from the database", async () => {
      await store.create(movement);
      await log.idle();
      await log.sequence();
      const reads: string[] = [];
      const lean = (log as unknown as { rows: { all: (sql: string, params?: unknown[]) => Promise<unknown[]> } }).rows;
      const all = lean.all.bind(lean);
      lean.all = (sql, params) => (reads.push(sql), all(sql, params));
      await log.sequence();
      await log.sequence();
      expect(reads).to.deep.equal([]);
      await store.create(movement);
      await log.idle();
      expect(reads, "a new event is looked for").to.not.deep.equal([]);
    });

    it("never tells an event whose transaction rolled back; the change that takes its cursor next is told", async () => {
      const batches: LoggedEvent[][] = [];
      log.subscribe((b) => batches.push(b));
      await store.create(movement);
      await log.idle();
      await db.transaction(async () => {
        await store.create({ ...movement, intendedBalanceSat: 7 });
        throw new Error("rolled back");
      }).catch(() => undefined);
      await log.sequence();
      expect(batches.flat().map((e) => e.cursor)).to.deep.equal(["1"]);
      const kept = await store.create({ ...movement, intendedBalanceSat: 8 });
      await log.idle();
      const told = batches.flat();
      expect(told.map((e) => e.cursor)).to.deep.equal(["1", "2"]);
      expect((told[1]!.payload as unknown as { movement: { id: number; intended_balance_sat: number } }).movement).to.include({ id: kept.id, intended_balance_sat: 8 });
      expect(told).to.deep.equal(await log.read(0n, 10));
    });

    it("tells a row an earlier version left without a cursor as the log holds it, even when a rolled-back event had the cursor it gets", async () => {
      const batches: LoggedEvent[][] = [];
      log.subscribe((b) => batches.push(b));
      await db.transaction(async () => {
        await store.create({ ...movement, intendedBalanceSat: 7 });
        throw new Error("rolled back");
      }).catch(() => undefined);
      const em = db.em();
      em.create(EventRecord, { cursor: null, type: "movement-created", createdAt: BigInt(clock), payload: JSON.stringify({ type: "movement-created", movement: { id: 99 } }) });
      await em.flush();
      await log.sequence();
      expect(batches.flat().map((e) => [e.cursor, (e.payload as unknown as { movement: { id: number } }).movement.id])).to.deep.equal([["1", 99]]);
    });
  }

  if (name === "PostgreSQL") {
    it("gives cursors in the order rows became visible, not in the order of their ids (concurrent transactions)", async () => {
      let release!: () => void;
      const held = new Promise<void>((r) => (release = r));
      let journaled!: () => void;
      const firstWritten = new Promise<void>((r) => (journaled = r));
      // transaction A writes its row first (the lower id) but commits last
      const a = db.transaction(async () => {
        await log.journal({ type: "movement-created", movement: { id: 1 } });
        journaled();
        await held;
      });
      await firstWritten;
      await db.transaction(() => log.journal({ type: "movement-created", movement: { id: 2 } }));
      const seen = await log.sequence();
      expect(seen.map((e) => [e.cursor, (e.payload as unknown as { movement: { id: number } }).movement.id])).to.deep.equal([["1", 2]]);
      release();
      await a;
      await log.sequence();
      const after1 = await log.read(1n, 10);
      expect(after1.map((e) => [e.cursor, (e.payload as unknown as { movement: { id: number } }).movement.id])).to.deep.equal([["2", 1]]);
    });
  }
});
}

logSuite("SQLite", () => ({ dialect: "sqlite", path: "" }));
logSuite("PostgreSQL", () => {
  const url = process.env.TENDER_TEST_PG_URL;
  return url ? { dialect: "postgresql", url, schema: `events_${process.pid}_${Date.now()}` } : undefined;
});
