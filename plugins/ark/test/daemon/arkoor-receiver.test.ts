import { expect } from "chai";
import { silentLogger, type ChainSource, type Database } from "@tender/core";
import type { MovementStore, NewMovement } from "@tender/plugin-history";
import { encodeTx, encodeVtxo, reverseBytes, toHex, txid, vtxoIdString, type Transaction } from "@tender/ark-protocol";
import type { ArkServer } from "@tender/ark-protocol/server";
import type { ArkRail } from "../../src/daemon/ark-rail.js";
import { ArkKeys } from "../../src/daemon/keys/ark-keys.js";
import { receiveArkoorVtxos } from "../../src/daemon/mailbox/arkoor-receiver.js";
import { VtxoLocks } from "../../src/daemon/vtxos/vtxo-locks.js";
import { VtxoStore } from "../../src/daemon/vtxos/vtxo-store.js";
import { EXIT_DELTA, MNEMONIC, SERVER, masterOf, memoryDb, randomKey, signedBoard } from "./fixtures.js";

describe("arkoor receive from the mailbox", () => {
  let db: Database;
  let w: ArkRail;
  let created: NewMovement[];
  let registered: number;
  let recoveryPosts: number;
  const txs = new Map<string, Transaction>();

  beforeEach(async () => {
    db = await memoryDb();
    const keys = await ArkKeys.load(db, masterOf(MNEMONIC));
    created = [];
    registered = 0;
    recoveryPosts = 0;
    const server = {
      connect: async () => ({ arkInfo: { serverPubkey: SERVER.pk, mailboxPubkey: randomKey().pk, vtxoExitDelta: EXIT_DELTA } }),
      registerVtxoTransactions: async () => { registered++; },
      postRecoveryVtxoIds: async () => { recoveryPosts++; },
    } as unknown as ArkServer;
    w = {
      server,
      keys, vtxos: new VtxoStore(db), locks: new VtxoLocks(new VtxoStore(db)), db, logger: silentLogger,
      chain: {
        getTip: async () => ({ height: 100, hash: "00".repeat(32) }),
        getTx: async (id: string) => (txs.has(id) ? { txid: id, hex: toHex(encodeTx(txs.get(id)!)), status: { confirmed: true } } : null),
      } as unknown as ChainSource,
      movements: { create: async (m: NewMovement) => { created.push(m); return { id: created.length }; } } as unknown as MovementStore,
      settings: () => ({ network: "regtest", changeSplitFactor: 2, deliveryRetryMs: 1_000 }),
    };
  });
  afterEach(() => db.close());

  const ours = async (amount: bigint, signed = true) => {
    const k = await w.keys.nextVtxoKey();
    const b = signedBoard({ sk: k.secretKey, pk: k.publicKey }, amount, 500, signed);
    txs.set(toHex(reverseBytes(txid(b.funding))), b.funding);
    return b.vtxo;
  };

  it("stores the valid VTXOs of a message, drops undecodable, unsigned and foreign ones, and records one movement per address", async () => {
    const [a, b] = [await ours(3_000n), await ours(4_000n)];
    const unsigned = await ours(5_000n, false);
    const foreign = signedBoard(randomKey(), 6_000n, 500).vtxo;
    const stored = await receiveArkoorVtxos(w, [new Uint8Array([1, 2, 3]), encodeVtxo(a), encodeVtxo(unsigned), encodeVtxo(foreign), encodeVtxo(b)]);
    expect(stored.sort()).to.deep.equal([vtxoIdString(a), vtxoIdString(b)].sort());
    expect((await w.vtxos.list()).map((v) => v.amountSat).sort()).to.deep.equal([3_000n, 4_000n]);
    expect(created.map((m) => [m.subsystem.kind, m.status, m.effectiveBalanceSat, m.receivedOn?.[0]?.destination.type])).to.deep.equal([
      ["receive", "successful", 3_000, "ark"], ["receive", "successful", 4_000, "ark"],
    ]);
    expect([registered, recoveryPosts]).to.deep.equal([1, 1]);
  });

  it("settles the message in the commit that stores its VTXOs and marks their recovery backup: a failed settle stores nothing", async () => {
    const a = await ours(3_000n);
    let settles = 0;
    const failing = { settleInTransaction: async () => { settles++; throw new Error("disk full"); } };
    let err: unknown;
    await receiveArkoorVtxos(w, [encodeVtxo(a)], failing).catch((e: unknown) => { err = e; });
    expect(String(err)).to.contain("disk full");
    expect(await w.vtxos.get(vtxoIdString(a))).to.equal(undefined);
    const marks: boolean[] = [];
    const ack = { settleInTransaction: async () => { settles++; marks.push(await w.vtxos.isRecoveryRegistered(vtxoIdString(a))); } };
    expect(await receiveArkoorVtxos(w, [encodeVtxo(a)], ack)).to.deep.equal([vtxoIdString(a)]);
    // settled after the VTXO and its recovery mark were written, in their transaction
    expect([settles, marks]).to.deep.equal([2, [true]]);
    expect(await w.vtxos.isRecoveryRegistered(vtxoIdString(a))).to.equal(true);
  });

  it("leaves the recovery mark unset when the registration or the backup failed (the sync's catch-up does them again)", async () => {
    const server = w.server as unknown as { postRecoveryVtxoIds: () => Promise<void>; registerVtxoTransactions: () => Promise<void> };
    const a = await ours(3_000n);
    server.postRecoveryVtxoIds = async () => { throw new Error("unavailable"); };
    expect(await receiveArkoorVtxos(w, [encodeVtxo(a)])).to.deep.equal([vtxoIdString(a)]);
    expect(await w.vtxos.isRecoveryRegistered(vtxoIdString(a))).to.equal(false);
    const b = await ours(4_000n);
    server.postRecoveryVtxoIds = async () => undefined;
    server.registerVtxoTransactions = async () => { throw new Error("unavailable"); };
    expect(await receiveArkoorVtxos(w, [encodeVtxo(b)])).to.deep.equal([vtxoIdString(b)]);
    expect(await w.vtxos.isRecoveryRegistered(vtxoIdString(b))).to.equal(false);
  });

  it("ignores a redelivered message: nothing stored twice, no second movement", async () => {
    const a = await ours(3_000n);
    await receiveArkoorVtxos(w, [encodeVtxo(a)]);
    expect(await receiveArkoorVtxos(w, [encodeVtxo(a)])).to.deep.equal([]);
    expect(created.length).to.equal(1);
  });

  it("stores no VTXO when its movement cannot be recorded, so a redelivery records both", async () => {
    const a = await ours(3_000n);
    const working = w.movements;
    (w as { movements: MovementStore }).movements = { create: async () => { throw new Error("disk full"); } } as unknown as MovementStore;
    let err: unknown;
    await receiveArkoorVtxos(w, [encodeVtxo(a)]).catch((e: unknown) => { err = e; });
    expect(String(err)).to.contain("disk full");
    expect(await w.vtxos.get(vtxoIdString(a))).to.equal(undefined);
    (w as { movements: MovementStore }).movements = working;
    expect(await receiveArkoorVtxos(w, [encodeVtxo(a)])).to.deep.equal([vtxoIdString(a)]);
    expect(created.length).to.equal(1);
  });
});
