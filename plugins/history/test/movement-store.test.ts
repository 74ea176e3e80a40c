import { expect } from "chai";
import { Database, EventBus, WalletNotificationRaised, silentLogger, type DatabaseLocation, type WalletNotification } from "@tender/core";
import { MovementRecord, movementMigration } from "../src/movements/movement-record.js";
import { MovementStore, PaymentMethodParsers } from "../src/index.js";

/** The store's suite on one database (each run in its own empty database or PostgreSQL schema). */
function storeSuite(name: string, location: () => DatabaseLocation | undefined): void {
describe(`movement store (${name})`, () => {
  let db: Database;
  let store: MovementStore;
  let clock = 1_700_000_000_000;
  const seen: WalletNotification[] = [];
  before(async function () {
    const loc = location();
    if (!loc) {
      console.log(`    ${name} movement store suite skipped: TENDER_TEST_PG_URL is not set`);
      this.skip();
    }
    db = new Database({ entities: [MovementRecord], migrations: [movementMigration] }, silentLogger);
    await db.open(loc!);
    const bus = new EventBus(silentLogger);
    bus.on(WalletNotificationRaised, (n) => { seen.push(n); });
    store = new MovementStore(db, bus, new PaymentMethodParsers(), () => clock++);
  });
  after(async () => {
    if (db?.isOpen) await db.destroy();
  });

  it("creates movements with every Movement field and announces them", async () => {
    const m = await store.create({
      subsystem: { name: "bark.board", kind: "board" }, intendedBalanceSat: 10_000, effectiveBalanceSat: 10_000,
      metadata: { chain_anchor: "00".repeat(32) + ":0" },
      receivedOn: [{ destination: { type: "bitcoin", value: "bcrt1p8wpt9v4frpf3tkn0srd97pksgsxc5hs52lafxwru9kgeephvs7rqjeprhg" }, amount_sat: 10_000 }],
    });
    expect(m).to.include({ id: 1, status: "pending", intended_balance_sat: 10_000, effective_balance_sat: 10_000, offchain_fee_sat: 0 });
    expect(m.time.completed_at).to.equal(undefined);
    expect(seen.at(-1)).to.deep.equal({ type: "movement-created", movement: m });
  });

  it("sets completed_at when a movement leaves pending, and merges metadata", async () => {
    const m = await store.update(1, { status: "successful", metadata: { onchain_fee_sat: 150 }, outputVtxos: ["ab".repeat(32) + ":0"] });
    expect(m.status).to.equal("successful");
    expect(m.time.completed_at).to.be.a("string");
    expect(m.metadata).to.deep.equal({ chain_anchor: "00".repeat(32) + ":0", onchain_fee_sat: 150 });
    expect(seen.at(-1)!.type).to.equal("movement-updated");
  });

  it("lists newest first, and by payment method oldest first with canonical comparison", async () => {
    await store.create({ subsystem: { name: "bark.arkoor", kind: "send" }, intendedBalanceSat: -500, effectiveBalanceSat: -500,
      sentTo: [{ destination: { type: "custom", value: "bob" }, amount_sat: 500 }] });
    await store.create({ subsystem: { name: "bark.arkoor", kind: "receive" }, intendedBalanceSat: 700, effectiveBalanceSat: 700,
      receivedOn: [{ destination: { type: "bitcoin", value: "bcrt1p8wpt9v4frpf3tkn0srd97pksgsxc5hs52lafxwru9kgeephvs7rqjeprhg" }, amount_sat: 700 }] });
    expect((await store.list()).map((m) => m.id)).to.deep.equal([3, 2, 1]);
    const byAddr = await store.listByPaymentMethod("bitcoin", "BCRT1P8WPT9V4FRPF3TKN0SRD97PKSGSXC5HS52LAFXWRU9KGEEPHVS7RQJEPRHG");
    expect(byAddr.map((m) => m.id)).to.deep.equal([1, 3]);
    expect((await store.listByPaymentMethod("custom", "bob")).map((m) => m.id)).to.deep.equal([2]);
  });

  it("announces a change made inside a caller's transaction only once it commits, and never one rolled back", async () => {
    const before = seen.length;
    let created = 0;
    await db.transaction(async () => {
      created = (await store.create({ subsystem: { name: "bark.arkoor", kind: "send" }, intendedBalanceSat: -1, effectiveBalanceSat: -1 })).id;
      expect(seen.length, "announced before the commit").to.equal(before);
    });
    expect(seen.slice(before).map((n) => [n.type, (n as unknown as { movement: { id: number } }).movement.id])).to.deep.equal([["movement-created", created]]);
    await db.transaction(async () => {
      await store.update(created, { status: "failed" });
      throw new Error("rolled back");
    }).catch(() => undefined);
    expect(seen.length, "a rolled-back change announced").to.equal(before + 1);
    expect((await store.get(created))?.status).to.equal("pending");
  });

  it("drops the metadata key when a patch empties it, and refuses unknown ids", async () => {
    const m = await store.patchMetadata(1, { chain_anchor: null, onchain_fee_sat: null });
    expect(m).to.not.have.property("metadata");
    let err: unknown;
    await store.patchMetadata(99, {}).catch((e: unknown) => { err = e; });
    expect(String(err)).to.contain("movement not found");
  });
  it("gives amounts and times beyond 32 bits back as numbers, as the JSON of the entity did", async () => {
    const big = 2_100_000_000_000_000;
    const m = await store.create({ subsystem: { name: "bark.board", kind: "board" }, intendedBalanceSat: big, effectiveBalanceSat: -big, offchainFeeSat: 4_294_967_297 });
    const read = await store.get(m.id);
    expect(read).to.deep.equal(m);
    expect(read).to.include({ intended_balance_sat: big, effective_balance_sat: -big, offchain_fee_sat: 4_294_967_297 });
    expect(read!.id).to.be.a("number");
    const entity = await db.em().findOne(MovementRecord, { id: m.id });
    expect(entity!.intendedBalanceSat).to.equal(BigInt(big));
    expect(entity!.completedAt).to.equal(null);
    const done = await store.update(m.id, { status: "successful", effectiveBalanceSat: big - 1 });
    expect(await store.get(m.id)).to.deep.equal(done);
    expect(done.effective_balance_sat).to.equal(big - 1);
    expect(Date.parse(done.time.completed_at!)).to.equal(Number((await db.em().findOne(MovementRecord, { id: m.id }))!.completedAt));
  });

  it("stores text with quotes, backslashes, question marks and non-ASCII characters as it was given", async () => {
    const tricky = { note: `it's "paid"? \\ 100% ? ?? -- ; drop table movement; — ₿ 🙂`, "key with 'quote'?": ["?", "\\?", "'?'"] };
    const dest = [{ destination: { type: "custom" as const, value: "o'brien?\\x" }, amount_sat: 1 }];
    const m = await store.create({ subsystem: { name: "bark.arkoor", kind: "send" }, intendedBalanceSat: -1, effectiveBalanceSat: -1, metadata: tricky, sentTo: dest });
    expect(m.metadata).to.deep.equal(tricky);
    const patched = await store.update(m.id, { metadata: { more: "?'?" }, receivedOn: dest });
    expect(await store.get(m.id)).to.deep.equal(patched);
    expect(patched.metadata).to.deep.equal({ ...tricky, more: "?'?" });
    expect(patched.sent_to).to.deep.equal(dest);
    expect(patched.received_on).to.deep.equal(dest);
  });

  it("refuses a fraction of a sat and stores nothing for it", async () => {
    const count = (await store.list()).length;
    let err: unknown;
    await store.create({ subsystem: { name: "bark.arkoor", kind: "send" }, intendedBalanceSat: -1.5, effectiveBalanceSat: -1.5 }).catch((e: unknown) => { err = e; });
    expect(err).to.be.instanceOf(RangeError);
    expect((await store.list()).length).to.equal(count);
    err = undefined;
    await store.update(1, { offchainFeeSat: 0.5 }).catch((e: unknown) => { err = e; });
    expect(err).to.be.instanceOf(RangeError);
    expect((await store.get(1))!.offchain_fee_sat).to.equal(0);
  });

  it("leaves the columns an update does not change as another writer left them between its read and its write", async function () {
    if (db.dialect !== "sqlite") this.skip(); // the other writer writes synchronously on the SQLite connection
    const m = await store.create({ subsystem: { name: "bark.arkoor", kind: "send" }, intendedBalanceSat: -10, effectiveBalanceSat: -10 });
    const inputs = JSON.stringify(["ef".repeat(32) + ":2"]);
    let wrote = 0;
    // the store reads the clock after reading the row and before writing it back: the other writer goes there
    const racing = new MovementStore(db, new EventBus(silentLogger), new PaymentMethodParsers(), () => {
      wrote += db.sqliteNow()!.run("update movement set input_vtxos = ? where id = ?", [inputs, m.id])!;
      return clock++;
    });
    await racing.update(m.id, { outputVtxos: ["cd".repeat(32) + ":0"] });
    expect(wrote).to.equal(1);
    const after = (await store.get(m.id))!;
    expect(after.input_vtxos).to.deep.equal(["ef".repeat(32) + ":2"]);
    expect(after.output_vtxos).to.deep.equal(["cd".repeat(32) + ":0"]);
  });

  it("writes the movement and its journal in one transaction: a failing journal leaves neither, and nobody hears of it", async () => {
    const count = (await store.list()).length;
    const heard: WalletNotification[] = [];
    const bus = new EventBus(silentLogger);
    bus.on(WalletNotificationRaised, (n) => { heard.push(n); });
    const journaled: string[] = [];
    const journalStore = new MovementStore(db, bus, new PaymentMethodParsers(), () => clock++);
    journalStore.addJournal(async (n) => {
      journaled.push(n.type);
      throw new Error("journal failed");
    });
    let err: unknown;
    await journalStore.create({ subsystem: { name: "bark.arkoor", kind: "send" }, intendedBalanceSat: -3, effectiveBalanceSat: -3 }).catch((e: unknown) => { err = e; });
    expect(String(err)).to.contain("journal failed");
    expect(journaled).to.deep.equal(["movement-created"]);
    expect((await store.list()).length).to.equal(count);
    await journalStore.update(1, { status: "canceled" }).catch(() => undefined);
    expect((await store.get(1))!.status).to.equal("successful");
    expect(journaled).to.deep.equal(["movement-created", "movement-updated"]);
    expect(heard).to.deep.equal([]);
  });
});
}

storeSuite("SQLite", () => ({ dialect: "sqlite", path: ":memory:" }));
storeSuite("PostgreSQL", () => {
  const url = process.env.TENDER_TEST_PG_URL;
  return url ? { dialect: "postgresql", url, schema: `history_${process.pid}_${Date.now()}` } : undefined;
});
