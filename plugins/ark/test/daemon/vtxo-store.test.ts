import { expect } from "chai";
import type { Database } from "@tender/core";
import { vtxoIdString } from "@tender/ark-protocol";
import { VtxoNotSpendableError, VtxoStore } from "../../src/daemon/vtxos/vtxo-store.js";
import { boardOf, memoryDb } from "./fixtures.js";

describe("VTXO store (states, locks, balance)", () => {
  let db: Database;
  let store: VtxoStore;
  beforeEach(async () => {
    db = await memoryDb();
    let t = 1_000;
    store = new VtxoStore(db, () => t++);
  });
  afterEach(() => db.close());

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
});
