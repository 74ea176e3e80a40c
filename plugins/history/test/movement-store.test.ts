import { expect } from "chai";
import { Database, EventBus, WalletNotificationRaised, silentLogger, type WalletNotification } from "@tender/core";
import { MovementRecord, movementMigration } from "../src/movements/movement-record.js";
import { MovementStore, PaymentMethodParsers } from "../src/index.js";

describe("movement store", () => {
  let db: Database;
  let store: MovementStore;
  let clock = 1_700_000_000_000;
  const seen: WalletNotification[] = [];
  before(async () => {
    db = new Database({ entities: [MovementRecord], migrations: [movementMigration] }, silentLogger);
    await db.open({ dialect: "sqlite", path: ":memory:" });
    const bus = new EventBus(silentLogger);
    bus.on(WalletNotificationRaised, (n) => { seen.push(n); });
    store = new MovementStore(db, bus, new PaymentMethodParsers(), () => clock++);
  });
  after(() => db.close());

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
});
