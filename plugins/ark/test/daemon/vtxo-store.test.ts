import { expect } from "chai";
import { Database, silentLogger, type DatabaseLocation } from "@tender/core";
import { encodeVtxo, toHex, vtxoIdString } from "@tender/ark-protocol";
import { ARK_ENTITIES, ARK_MIGRATIONS } from "../../src/daemon/persistence/entities.js";
import { VtxoNotSpendableError, VtxoStore } from "../../src/daemon/vtxos/vtxo-store.js";
import { boardOf, memoryDb } from "./fixtures.js";

/** The store's plain SQL runs on both dialects: every case runs on SQLite, and on PostgreSQL when `TENDER_TEST_PG_URL` is set. */
const dialects: [string, () => Promise<Database> | undefined][] = [
  ["SQLite", () => memoryDb()],
  ["PostgreSQL", () => {
    const url = process.env.TENDER_TEST_PG_URL;
    if (!url) return undefined;
    const loc: DatabaseLocation = { dialect: "postgresql", url, schema: `ark_store_${process.pid}_${Date.now()}_${Math.floor(Math.random() * 1e6)}` };
    const db = new Database({ entities: ARK_ENTITIES, migrations: ARK_MIGRATIONS }, silentLogger);
    return db.open(loc).then(() => db);
  }],
];

for (const [dialect, open] of dialects) describe(`VTXO store (states, locks, balance) on ${dialect}`, () => {
  let db: Database;
  let store: VtxoStore;
  beforeEach(async function () {
    const opening = open();
    if (!opening) {
      this.skip();
      return;
    }
    db = await opening;
    let t = 1_000;
    store = new VtxoStore(db, () => t++);
  });
  afterEach(async () => {
    if (!db) return;
    if (dialect === "PostgreSQL") await db.destroy();
    else await db.close();
  });

  it("stores a VTXO once: adding it again keeps the stored state", async () => {
    const v = boardOf(50_000n);
    expect(await store.add(v)).to.equal(true);
    await store.markSpent([vtxoIdString(v)]);
    expect(await store.add(v)).to.equal(false);
    const got = await store.get(vtxoIdString(v));
    expect(got?.state).to.equal("spent");
    expect(got?.amountSat).to.equal(50_000n);
    expect(vtxoIdString(got!.vtxo)).to.equal(vtxoIdString(v));
  });

  it("sums spendable and locked VTXOs apart and leaves spent and exited ones out", async () => {
    const [a, b, c, d] = [boardOf(1_000n), boardOf(2_000n), boardOf(4_000n), boardOf(8_000n)];
    for (const v of [a, b, c, d]) await store.add(v!);
    await store.lock([vtxoIdString(b!)], "action-1");
    await store.markSpent([vtxoIdString(c!)]);
    await store.markExited([vtxoIdString(d!)]);
    expect(await store.balance()).to.deep.equal({ spendableSat: 1_000n, lockedSat: 2_000n });
    expect((await store.list(["spendable", "locked"])).map((v) => v.amountSat)).to.deep.equal([1_000n, 2_000n]);
    expect((await store.listAll()).length).to.equal(4);
  });

  it("locks all or none, refuses VTXOs locked by another action, spent or unknown, and relocking by the same action is a no-op", async () => {
    const [a, b] = [boardOf(1_000n), boardOf(2_000n)];
    await store.add(a);
    await store.add(b);
    const [ia, ib] = [vtxoIdString(a), vtxoIdString(b)];
    await store.lock([ia], "first");
    await store.lock([ia], "first");
    const err = await store.lock([ib, ia], "second").catch((e: unknown) => e);
    expect(err).to.be.instanceOf(VtxoNotSpendableError);
    expect((await store.get(ib))?.state).to.equal("spendable"); // nothing of the batch was locked
    expect(await store.lock(["00".repeat(32) + ":0"], "second").catch((e: unknown) => (e as VtxoNotSpendableError).state)).to.equal("unknown");
    await store.markSpent([ib]);
    expect(await store.lock([ib], "second").catch((e: unknown) => (e as VtxoNotSpendableError).state)).to.equal("spent");
    expect((await store.lockedBy("first")).map((v) => v.id)).to.deep.equal([ia]);
  });

  it("unlocks what an action holds back to spendable, and a spent VTXO stays spent", async () => {
    const [a, b] = [boardOf(1_000n), boardOf(2_000n)];
    await store.add(a);
    await store.add(b);
    await store.lock([vtxoIdString(a), vtxoIdString(b)], "x");
    await store.markSpent([vtxoIdString(b)]);
    await store.unlock("x");
    expect((await store.get(vtxoIdString(a)))?.state).to.equal("spendable");
    expect((await store.get(vtxoIdString(a)))?.lockedBy).to.equal(null);
    expect((await store.get(vtxoIdString(b)))?.state).to.equal("spent");
  });

  it("stores a VTXO locked by an action (a pending board) and keeps it out of the spendable sum", async () => {
    const v = boardOf(7_000n);
    await store.add(v, "locked", "board-1");
    expect((await store.get(vtxoIdString(v)))?.lockedBy).to.equal("board-1");
    expect(await store.balance()).to.deep.equal({ spendableSat: 0n, lockedSat: 7_000n });
  });

  it("reads several VTXOs in one call, in the order asked, with their recovery flags, and undefined for an unknown id", async () => {
    const [a, b] = [boardOf(1_000n), boardOf(2_000n)];
    await store.add(a);
    await store.add(b);
    const [ia, ib] = [vtxoIdString(a), vtxoIdString(b)];
    await store.markRecoveryRegistered([ib]);
    const unknown = "11".repeat(32) + ":0";
    const got = await store.getMany([ib, unknown, ia]);
    expect(got.map((g) => g && [g.stored.id, g.stored.amountSat, g.recoveryRegistered])).to.deep.equal([[ib, 2_000n, true], undefined, [ia, 1_000n, false]]);
    expect(toHex(encodeVtxo(got[2]!.stored.vtxo))).to.equal(toHex(encodeVtxo(a)));
  });

  it("adds a VTXO already backed up (chain registered, id posted) with its flag set, and sets the flag on one stored before", async () => {
    const [a, b, c] = [boardOf(1_000n), boardOf(2_000n), boardOf(3_000n)];
    expect(await store.add(a, "spendable", null, { recoveryRegistered: true })).to.equal(true);
    expect(await store.add(b)).to.equal(true);
    // stored before without the flag: adding it again flagged keeps the row and sets the flag
    expect(await store.add(b, "spendable", null, { recoveryRegistered: true })).to.equal(false);
    await store.add(c, "spendable", null, { recoveryRegistered: false });
    const got = await store.getMany([a, b, c].map(vtxoIdString));
    expect(got.map((g) => g?.recoveryRegistered)).to.deep.equal([true, true, false]);
    expect((await store.notRecoveryRegistered()).map((v) => v.id)).to.deep.equal([vtxoIdString(c)]);
  });

  it("a fresh store on the same database decodes what another stored; amounts beyond 32 bits and timestamps come back exact", async () => {
    const v = boardOf(2_100_000_000_000_000n);
    await store.add(v, "locked", "action-with-a-long-id-" + "x".repeat(100));
    const other = new VtxoStore(db);
    const [got] = await other.list(["locked"]);
    expect(got?.amountSat).to.equal(2_100_000_000_000_000n);
    expect(got?.createdAtMs).to.equal(1_000);
    expect(got?.lockedBy).to.equal("action-with-a-long-id-" + "x".repeat(100));
    expect(toHex(encodeVtxo(got!.vtxo))).to.equal(toHex(encodeVtxo(v)));
    expect(await other.balance()).to.deep.equal({ spendableSat: 0n, lockedSat: 2_100_000_000_000_000n });
  });

  it("writes inside a transaction commit with it, and a rolled back transaction leaves neither the new VTXO nor the lock", async () => {
    const [a, b] = [boardOf(1_000n), boardOf(2_000n)];
    await store.add(a);
    const [ia, ib] = [vtxoIdString(a), vtxoIdString(b)];
    const err = await db.transaction(async () => {
      await store.lock([ia], "rolled-back");
      await store.add(b);
      throw new Error("abort");
    }).catch((e: unknown) => e);
    expect((err as Error).message).to.equal("abort");
    expect((await store.get(ia))?.state).to.equal("spendable");
    expect(await store.get(ib)).to.equal(undefined);
    await db.transaction(async () => {
      await store.lock([ia], "kept");
      await store.add(b);
    });
    expect((await store.get(ia))?.lockedBy).to.equal("kept");
    expect((await store.get(ib))?.state).to.equal("spendable");
  });
});
