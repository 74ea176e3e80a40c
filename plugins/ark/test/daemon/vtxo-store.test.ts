import { expect } from "chai";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Database, LeanSql, silentLogger, type DatabaseLocation } from "@tender/core";
import { indexAnswers } from "@tender/core/testing";
import { encodeVtxo, toHex, vtxoIdString } from "@tender/ark-protocol";
import { ARK_ENTITIES, ARK_MIGRATIONS, arkVtxoEncodingMigration } from "../../src/daemon/persistence/entities.js";
import { NOT_RECOVERY_REGISTERED, VtxoNotSpendableError, VtxoStore } from "../../src/daemon/vtxos/vtxo-store.js";
import { boardOf, memoryDb } from "./fixtures.js";

/** The store's plain SQL runs on both dialects: every case runs on SQLite, and on PostgreSQL when `TENDER_TEST_PG_URL` is set. */
const dialects: [string, () => Promise<{ db: Database; loc: DatabaseLocation }> | undefined][] = [
  ["SQLite", () => memoryDb().then((db) => ({ db, loc: { dialect: "sqlite", path: ":memory:" } }))],
  ["PostgreSQL", () => {
    const url = process.env.TENDER_TEST_PG_URL;
    if (!url) return undefined;
    const loc: DatabaseLocation = { dialect: "postgresql", url, schema: `ark_store_${process.pid}_${Date.now()}_${Math.floor(Math.random() * 1e6)}` };
    const db = new Database({ entities: ARK_ENTITIES, migrations: ARK_MIGRATIONS }, silentLogger);
    return db.open(loc).then(() => ({ db, loc }));
  }],
];

for (const [dialect, open] of dialects) describe(`VTXO store (states, locks, balance) on ${dialect}`, () => {
  let db: Database;
  let loc: DatabaseLocation;
  let store: VtxoStore;
  beforeEach(async function () {
    const opening = open();
    if (!opening) {
      console.log(`    ${dialect} VTXO store case skipped: TENDER_TEST_PG_URL is not set (.ci/run starts PostgreSQL and sets it)`);
      this.skip();
      return;
    }
    ({ db, loc } = await opening);
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

  it("the recovery catch-up's query reads its VTXOs from an index of those not backed up and not spent", async () => {
    const [a, b, c] = [boardOf(1_000n), boardOf(2_000n), boardOf(3_000n)];
    for (const v of [a, b, c]) await store.add(v);
    await store.markRecoveryRegistered([vtxoIdString(b)]);
    await store.markSpent([vtxoIdString(c)]);
    expect((await store.notRecoveryRegistered()).map((v) => v.id)).to.deep.equal([vtxoIdString(a)]);
    const rows = new LeanSql(db, "ark_vtxo");
    const query = `select id from {t} where ${NOT_RECOVERY_REGISTERED} order by created_at_ms asc, id asc`;
    const r = await indexAnswers((q, p) => rows.all(q, p), loc, "ark_vtxo_recovery_pending", query, [], /\(created_at_ms, id\) WHERE/);
    expect(r.ok, r.evidence).to.equal(true);
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
    expect(await new LeanSql(db, "ark_vtxo_encoding").all("select id from {t} where id = ?", [ib]), "the encoding rolled back with its row").to.deep.equal([]);
    await db.transaction(async () => {
      await store.lock([ia], "kept");
      await store.add(b);
    });
    expect((await store.get(ia))?.lockedBy).to.equal("kept");
    expect((await store.get(ib))?.state).to.equal("spendable");
  });
});

/** Where an upgrade test keeps its database: a file (SQLite), or a schema of its own (PostgreSQL, when `TENDER_TEST_PG_URL` is set). */
const upgradeLocations: [string, () => { loc: DatabaseLocation; cleanup: () => void } | undefined][] = [
  ["SQLite", () => {
    const dir = mkdtempSync(join(tmpdir(), "tender-ark-upgrade-"));
    return { loc: { dialect: "sqlite", path: join(dir, "db.sqlite") }, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
  }],
  ["PostgreSQL", () => {
    const url = process.env.TENDER_TEST_PG_URL;
    if (!url) return undefined;
    return { loc: { dialect: "postgresql", url, schema: `ark_upgrade_${process.pid}_${Date.now()}_${Math.floor(Math.random() * 1e6)}` }, cleanup: () => undefined };
  }],
];

for (const [dialect, where] of upgradeLocations) describe(`VTXO store upgrade on ${dialect}: encodings leave the rows that change (ark_0005)`, () => {
  it("moves every VTXO's encoding, as bytes, out of ark_vtxo: after the upgrade the store reads each VTXO as it was stored, in every state", async function () {
    const place = where();
    if (!place) {
      console.log(`    ${dialect} upgrade case skipped: TENDER_TEST_PG_URL is not set (.ci/run starts PostgreSQL and sets it)`);
      return this.skip();
    }
    const before = ARK_MIGRATIONS.slice(0, ARK_MIGRATIONS.indexOf(arkVtxoEncodingMigration));
    expect(before.map((m) => m.name), "the migrations before the upgrade").to.deep.equal(["ark_0001_daemon", "ark_0002_kept_mailbox_messages", "ark_0003_wide_lock_holder", "ark_0004_recovery_registered"]);
    const states = ["spendable", "locked", "spent", "exited"] as const;
    const vtxos = states.map((_, k) => boardOf(10_000n + BigInt(k)));
    // a wallet of the earlier schema: each row with its encoding as hex
    const old = new Database({ entities: [], migrations: before }, silentLogger);
    await old.open(place.loc);
    const rows = new LeanSql(old, "ark_vtxo");
    for (const [k, v] of vtxos.entries()) {
      await rows.run(
        "insert into {t} (id, encoded, amount_sat, expiry_height, state, locked_by, created_at_ms, updated_at_ms) values (?, ?, ?, ?, ?, ?, ?, ?)",
        [vtxoIdString(v), toHex(encodeVtxo(v)), v.amount, v.expiryHeight, states[k], states[k] === "locked" ? "an-action" : null, k, k],
      );
    }
    await old.close();

    const db = new Database({ entities: ARK_ENTITIES, migrations: ARK_MIGRATIONS }, silentLogger);
    await db.open(place.loc);
    try {
      const got = await new VtxoStore(db).list([...states]);
      expect(got.map((g) => [g.id, g.state, toHex(encodeVtxo(g.vtxo))])).to.deep.equal(vtxos.map((v, k) => [vtxoIdString(v), states[k], toHex(encodeVtxo(v))]));
      const encodings = await new LeanSql(db, "ark_vtxo_encoding").all<{ id: string; encoded: Uint8Array }>("select id, encoded from {t}");
      expect(encodings.map((e) => [e.id, toHex(e.encoded)]).sort()).to.deep.equal(vtxos.map((v) => [vtxoIdString(v), toHex(encodeVtxo(v))]).sort());
      const column = await new LeanSql(db, "ark_vtxo").all("select encoded from {t}").then(() => "still there", () => "gone");
      expect(column, "ark_vtxo.encoded").to.equal("gone");
    } finally {
      if (dialect === "PostgreSQL") await db.destroy();
      else await db.close();
      place.cleanup();
    }
  });
});
