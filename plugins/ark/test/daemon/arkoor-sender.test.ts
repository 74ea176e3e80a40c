import { expect } from "chai";
import { BadRequestError, InternalServerError, silentLogger, type ActionEngine, type ChainSource, type Database } from "@tender/core";
import type { MovementStore } from "@tender/plugin-history";
import { arkId, decodeArkAddress, encodeArkAddress, vtxoIdString, walletArkAddress } from "@tender/ark-protocol";
import type { ArkServer } from "@tender/ark-protocol/server";
import type { ArkRail } from "../../src/daemon/ark-rail.js";
import type { ArkoorSendState } from "../../src/daemon/arkoor/arkoor-send-action.js";
import { ArkoorSender } from "../../src/daemon/arkoor/arkoor-sender.js";
import { ArkKeys } from "../../src/daemon/keys/ark-keys.js";
import { VtxoLocks } from "../../src/daemon/vtxos/vtxo-locks.js";
import { VtxoStore } from "../../src/daemon/vtxos/vtxo-store.js";
import { MNEMONIC, SERVER, boardOf, masterOf, memoryDb, randomKey } from "./fixtures.js";

/** An address of a random recipient key at the test server. */
function recipientAddress(serverPubkey = SERVER.pk, network: "regtest" | "bitcoin" = "regtest"): string {
  const k = randomKey();
  return encodeArkAddress(walletArkAddress({ network, serverPubkey, serverMailboxPubkey: randomKey().pk, mailboxId: randomKey().pk, vtxoPubkey: k.pk, vtxoSecretKey: k.sk }));
}

describe("arkoor sender: destination checks, input selection and the change split", () => {
  let db: Database;
  let store: VtxoStore;
  let keys: ArkKeys;
  let started: ArkoorSendState[];
  let sender: ArkoorSender;
  let splitFactor = 2;
  let gate: Promise<void> | undefined;

  beforeEach(async () => {
    db = await memoryDb();
    store = new VtxoStore(db);
    keys = await ArkKeys.load(db, masterOf(MNEMONIC));
    started = [];
    splitFactor = 2;
    const wallet: ArkRail = {
      server: { connect: async () => ({ arkInfo: { serverPubkey: SERVER.pk, maxVtxoExitDepth: 50 } }) } as unknown as ArkServer,
      keys, vtxos: store, locks: new VtxoLocks(store), chain: {} as ChainSource, movements: {} as MovementStore, db, logger: silentLogger,
      settings: () => ({ network: "regtest", changeSplitFactor: splitFactor, deliveryRetryMs: 1_000 }),
    };
    // begin() locks the inputs (as the action's local lock step does); drive() waits for `gate` when set
    const engine = {
      begin: async (_kind: string, state: ArkoorSendState, id: string) => { await store.lock(state.inputIds, id); started.push(state); return { id, step: "cosign", state }; },
      drive: async (id: string) => { await gate; return { id, step: "done", state: started.at(-1) }; },
    };
    gate = undefined;
    sender = new ArkoorSender(async () => wallet, engine as unknown as ActionEngine, new Set());
  });
  afterEach(() => db.close());

  const pay = (amount: number, address = recipientAddress()) => sender.send({ kind: "ark", address, decoded: decodeArkAddress(address) }, BigInt(amount));

  it("splits change larger than the payment into change_vtxo_split_factor pieces on fresh keys", async () => {
    await store.add(boardOf(100_000n));
    await pay(30_000);
    const [s] = started;
    expect(s!.changeAmounts).to.deep.equal(["35000", "35000"]);
    expect(s!.changeKeyIndexes).to.deep.equal([0, 1]);
    expect(s!.amountSat).to.equal("30000");
    expect(s!.blindedIds.length).to.equal(1);
  });

  it("keeps change not larger than the payment whole, splits in three with factor 3 (last piece takes the remainder), and sends a full balance without change", async () => {
    await store.add(boardOf(100_000n));
    await pay(60_000);
    expect(started[0]!.changeAmounts).to.deep.equal(["40000"]);
    await store.markSpent((await store.list()).map((v) => v.id));
    splitFactor = 3;
    await store.add(boardOf(100_001n));
    await pay(10_000);
    expect(started[1]!.changeAmounts).to.deep.equal(["30000", "30000", "30001"]);
    await store.markSpent((await store.list()).map((v) => v.id));
    const full = boardOf(5_000n);
    await store.add(full);
    await pay(5_000);
    expect(started[2]!.changeAmounts).to.deep.equal([]);
    expect(started[2]!.inputIds).to.deep.equal([vtxoIdString(full)]);
  });

  it("selects the soonest-expiring VTXOs first and never locked ones", async () => {
    const late = boardOf(50_000n, randomKey().pk, 2_000);
    const soon = boardOf(50_000n, randomKey().pk, 1_500);
    const locked = boardOf(50_000n, randomKey().pk, 1_100);
    for (const v of [late, soon, locked]) await store.add(v);
    await store.lock([vtxoIdString(locked)], "other");
    await pay(40_000);
    expect(started[0]!.inputIds).to.deep.equal([vtxoIdString(soon)]);
  });

  it("lets a second payment select and lock its inputs while the first one still talks to the server (the selection is released after the lock)", async () => {
    const [a, b] = [boardOf(50_000n, randomKey().pk, 1_500), boardOf(50_000n, randomKey().pk, 2_000)];
    for (const v of [a, b]) await store.add(v);
    let open!: () => void;
    gate = new Promise((r) => { open = r; });
    const first = pay(10_000);
    const second = pay(10_000);
    await new Promise((r) => setTimeout(r, 50));
    // both began while the first one's server calls (drive) have not finished
    expect(started.map((s) => s.inputIds)).to.deep.equal([[vtxoIdString(a)], [vtxoIdString(b)]]);
    open();
    await Promise.all([first, second]);
  });

  it("refuses an address of another server or network (400) and an amount above the balance (500) without starting anything", async () => {
    await store.add(boardOf(10_000n));
    const other = recipientAddress(randomKey().pk);
    expect(decodeArkAddress(other).arkId).to.not.deep.equal(arkId(SERVER.pk));
    const e1 = await pay(1_000, other).catch((e: unknown) => e);
    expect(e1).to.be.instanceOf(BadRequestError);
    expect((e1 as Error).message).to.equal("Ark address is for different server");
    const e2 = await pay(20_000).catch((e: unknown) => e);
    expect(e2).to.be.instanceOf(InternalServerError);
    expect((e2 as Error).message).to.match(/Insufficient money available/);
    const mainnet = recipientAddress(SERVER.pk, "bitcoin");
    expect(mainnet).to.match(/^ark1/);
    const e3 = await pay(1_000, mainnet).catch((e: unknown) => e);
    expect(e3).to.be.instanceOf(BadRequestError);
    expect((e3 as Error).message).to.equal("Ark address is for different network");
    expect(started).to.deep.equal([]);
    expect(await keys.peekVtxoKey(0)).to.equal(undefined); // no change key was reserved
  });
});
