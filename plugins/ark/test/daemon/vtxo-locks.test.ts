import { expect } from "chai";
import type { Database } from "@tender/core";
import { vtxoIdString } from "@tender/ark-protocol";
import { VtxoLocks } from "../../src/daemon/vtxos/vtxo-locks.js";
import { VtxoNotSpendableError, VtxoStore } from "../../src/daemon/vtxos/vtxo-store.js";
import { boardOf, memoryDb } from "./fixtures.js";

describe("VTXO locks (selection and locking shared by every rail)", () => {
  let db: Database;
  let store: VtxoStore;
  let locks: VtxoLocks;
  beforeEach(async () => {
    db = await memoryDb();
    store = new VtxoStore(db);
    locks = new VtxoLocks(store);
  });
  afterEach(() => db.close());

  it("runs selections one at a time: what one action locked is not offered to the next", async () => {
    const [a, b] = [boardOf(1_000n), boardOf(2_000n)];
    for (const v of [a, b]) await store.add(v);
    const pickFirst = (action: string) => locks.select(async (spendable) => {
      const chosen = spendable[0];
      if (!chosen) return undefined;
      await new Promise((r) => setTimeout(r, 20)); // a slow selection: the other must wait
      await locks.lock([chosen.id], action);
      return chosen.id;
    });
    const picked = await Promise.all([pickFirst("send-1"), pickFirst("send-2"), pickFirst("send-3")]);
    expect(picked.slice(0, 2).sort()).to.deep.equal([vtxoIdString(a), vtxoIdString(b)].sort());
    expect(picked[2]).to.equal(undefined);
    expect((await locks.heldBy("send-1")).map((v) => v.id)).to.deep.equal([picked[0]]);
  });

  it("locks all or none, lets the same action lock again, and releases back to spendable", async () => {
    const [a, b] = [boardOf(1_000n), boardOf(2_000n)];
    for (const v of [a, b]) await store.add(v);
    await locks.lock([vtxoIdString(a)], "board-1");
    const refused = await locks.lock([vtxoIdString(b), vtxoIdString(a)], "send-1").catch((e: unknown) => e);
    expect(refused).to.be.instanceOf(VtxoNotSpendableError);
    expect((await store.get(vtxoIdString(b)))?.state).to.equal("spendable");
    await locks.lock([vtxoIdString(a)], "board-1");
    await locks.release("board-1");
    expect((await store.list(["spendable"])).length).to.equal(2);
  });

  it("holds a VTXO an action creates until the action releases it (a board before its registration)", async () => {
    const board = boardOf(50_000n);
    await locks.holdNew(board, "board-7");
    await locks.holdNew(board, "board-7");
    expect(await locks.select(async (spendable) => spendable.length)).to.equal(0);
    expect((await store.get(vtxoIdString(board)))?.lockedBy).to.equal("board-7");
    await locks.release("board-7");
    expect(await locks.select(async (spendable) => spendable.map((v) => v.id))).to.deep.equal([vtxoIdString(board)]);
  });
});
