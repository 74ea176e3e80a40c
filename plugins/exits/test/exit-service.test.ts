import { expect } from "chai";
import { exitStateToJson } from "@tender/ark-protocol";
import { ExitService } from "../src/exit-service.js";
import { claimExits } from "../src/exit-claim.js";
import { MemoryExitStore } from "../src/exit-records.js";
import { EXIT_DELTA, FakeExitWorld, logger, signedBoardVtxo } from "./fakes.js";

describe("exit service over fakes: the state machine, CPFP packages, reorgs, claims", () => {
  let world: FakeExitWorld;
  let store: MemoryExitStore;
  let service: ExitService;
  let id: string;
  let exitTxid: string;

  beforeEach(async () => {
    world = new FakeExitWorld();
    store = new MemoryExitStore();
    service = new ExitService(world.ports, store, logger);
    const { vtxo, fundingTxid } = signedBoardVtxo();
    world.chain.confirmedOutside(fundingTxid);
    id = world.add(vtxo);
    exitTxid = id.split(":")[0]!;
  });

  const state = async () => (await store.exit(id))!.state;
  const progressUntil = async (kind: string, max = 40) => {
    for (let i = 0; i < max; i++) {
      const a = await service.progress();
      if ((await state()).type === kind) return a;
      world.chain.mine(1);
    }
    throw new Error(`never reached ${kind}; now ${(await state()).type}`);
  };

  it("registers an exit holding the VTXO's lock, with a pending movement; start again is harmless", async () => {
    await service.start([id]);
    await service.start("all");
    expect(await store.exits()).to.have.length(1);
    expect(world.vtxos.get(id)).to.deep.include({ state: "locked", lockedBy: "exit.1" });
    expect([...world.movements.values()]).to.deep.equal(["pending"]);
    expect(await service.pendingExitSat()).to.equal(100_000n);
  });

  it("goes start → processing → awaiting-delta → claimable with one CPFP package, then claims and finishes the movement", async () => {
    await service.start([id]);
    const first = await service.progress();
    expect(first.exits[0]!.state.type).to.equal("processing");
    expect(world.chain.submitted).to.have.length(1);
    expect(world.chain.submitted[0]![0]).to.equal(world.chain.txs.get(exitTxid)!.hex);
    expect(world.held.size, "the child is noted as broadcast").to.equal(0);
    const child = world.chain.spenderOf(exitTxid, 1)!;
    expect(world.noted).to.deep.equal([child]);
    world.chain.mine(1);
    const confirmedHeight = world.chain.height;
    await service.progress();
    const delta = await state();
    expect(delta).to.deep.include({ type: "awaiting-delta", claimableHeight: confirmedHeight + EXIT_DELTA });
    expect(world.vtxos.get(id)!.state).to.equal("exited");
    const a = await progressUntil("claimable");
    expect(a.done).to.equal(true);
    expect(a.claimable_height).to.equal(confirmedHeight + EXIT_DELTA);
    expect(world.chain.submitted, "no package after the first").to.have.length(1);
    await claimExits(service, "all", new Uint8Array([0x51, 0x20, ...new Uint8Array(32).fill(0x44)]), undefined);
    expect((await state()).type).to.equal("claim-in-progress");
    world.chain.mine(1);
    await service.progress();
    expect((await state()).type).to.equal("claimed");
    expect([...world.movements.values()]).to.deep.equal(["successful"]);
    expect(await service.pendingExitSat()).to.equal(0n);
    const history = (await store.exit(id))!.history.map((h) => h.type);
    expect(history.slice(0, 3)).to.deep.equal(["start", "processing", "processing"]);
  });

  it("replaces its child when the fast rate rises above the package's rate, paying more than it", async () => {
    await service.start([id]);
    await service.progress();
    const first = world.chain.spenderOf(exitTxid, 1)!;
    const [req] = world.fundRequests;
    world.fastSatPerKvb = 30_000n;
    await service.progress();
    const second = world.chain.spenderOf(exitTxid, 1)!;
    expect(second).to.not.equal(first);
    const replacement = world.fundRequests[1]!;
    expect(replacement.replaces).to.equal(first);
    expect(replacement.minFeeSat! > 0n).to.equal(true);
    expect(world.replaced).to.deep.equal([first]);
    const children = await store.children(exitTxid);
    expect(children.map((c) => c.status)).to.deep.equal(["replaced", "broadcast"]);
    expect(children[1]!.feeSat > children[0]!.feeSat).to.equal(true);
    // the same rate again: nothing to replace
    await service.progress();
    expect(world.fundRequests).to.have.length(2);
    expect(req!.satPerKvb).to.equal(20_000n);
  });

  it("re-checks after a reorg: an exit tx no longer confirmed takes the exit back to processing and its package goes out again", async () => {
    await service.start([id]);
    await service.progress();
    world.chain.mine(1);
    await service.progress();
    expect((await state()).type).to.equal("awaiting-delta");
    world.chain.reorgLast();
    world.chain.evict(exitTxid);
    await service.progress();
    expect((await state()).type).to.equal("processing");
    expect(world.chain.status(exitTxid), "the stored package was submitted again").to.deep.equal({ confirmed: false });
    expect(world.fundRequests, "with the same child").to.have.length(1);
    world.chain.mine(1);
    await service.progress();
    expect((await state()).type).to.equal("awaiting-delta");
  });

  it("a refused package releases the child's coins and reports the failure on the exit", async () => {
    await service.start([id]);
    world.chain.refuseNext = "min relay fee not met";
    const a = await service.progress();
    expect(a.exits[0]!.error).to.deep.include({ type: "exit-package-broadcast-failure", txid: exitTxid });
    expect(world.released).to.have.length(1);
    expect((await store.children(exitTxid)).map((c) => c.status)).to.deep.equal(["dropped"]);
    const b = await service.progress();
    expect(b.exits[0]!.error).to.equal(undefined);
    expect(world.chain.status(exitTxid)).to.deep.equal({ confirmed: false });
  });

  it("releases a child the wallet holds but no exit stored (a crash between the two)", async () => {
    world.held.add("ff".repeat(32));
    await service.progress();
    expect(world.released).to.deep.equal(["ff".repeat(32)]);
  });

  it("a stored child whose broadcast may not have happened is submitted again, not funded twice", async () => {
    await service.start([id]);
    const parentVsize = (await service.packagesOf((await store.exit(id))!))[0]!.vsize;
    const child = await world.ports.wallet.fundChild({ parentTxid: exitTxid, anchorVout: 1, anchorValueSat: 0n, parentVsize, satPerKvb: 20_000n });
    await store.saveChild({ childTxid: child.txid, exitTxid, hex: child.hex, feeSat: child.feeSat, vsize: child.vsize, ours: true, origin: { type: "wallet", confirmedIn: null }, status: "built", createdAtMs: 1 });
    await service.progress();
    expect(world.fundRequests).to.have.length(1);
    expect(world.chain.spenderOf(exitTxid, 1)).to.equal(child.txid);
    expect((await store.children(exitTxid)).map((c) => c.status)).to.deep.equal(["broadcast"]);
  });

  it("adopts a child someone else broadcast for the exit tx", async () => {
    const other = new FakeExitWorld();
    const foreign = await other.ports.wallet.fundChild({ parentTxid: exitTxid, anchorVout: 1, anchorValueSat: 0n, parentVsize: 100, satPerKvb: 25_000n });
    const exitHex = (await service.packagesOf({ vtxoId: id, seq: 1, amountSat: 0n, state: { type: "start", tipHeight: 0 }, history: [], movementId: null, lockId: null, createdAtMs: 0 }))[0]!.hex;
    await world.chain.port.broadcastPackage([exitHex, foreign.hex]);
    await service.start([id]);
    await service.progress();
    const s = await state();
    expect(exitStateToJson(s).transactions).to.deep.equal([{ txid: exitTxid, status: { type: "awaiting-confirmation", child_txid: foreign.txid, origin: { type: "mempool" } } }]);
    expect(world.fundRequests, "no child of our own").to.have.length(0);
  });

  it("finds a spendable VTXO whose own tx someone else put in the mempool, once per tip, and starts its exit holding the lock", async () => {
    world.chain.mine(1); // the board's funding tx below the block replaced later
    expect(await service.detectForeignExits()).to.deep.equal([]);
    const other = new FakeExitWorld();
    const foreign = await other.ports.wallet.fundChild({ parentTxid: exitTxid, anchorVout: 1, anchorValueSat: 0n, parentVsize: 100, satPerKvb: 25_000n });
    const exitHex = (await service.packagesOf({ vtxoId: id, seq: 1, amountSat: 0n, state: { type: "start", tipHeight: 0 }, history: [], movementId: null, lockId: null, createdAtMs: 0 }))[0]!.hex;
    await world.chain.port.broadcastPackage([exitHex, foreign.hex]);
    expect(await service.detectForeignExits(), "same tip: not looked at again").to.deep.equal([]);
    world.chain.reorgLast(); // a new tip; the exit tx stays in the mempool
    expect(world.chain.txs.get(exitTxid)!.block).to.equal(null);
    expect(await service.detectForeignExits()).to.deep.equal([id]);
    expect((await state()).type).to.equal("start");
    expect(world.vtxos.get(id)).to.deep.include({ state: "locked", lockedBy: "exit.1" });
    expect([...world.movements.values()]).to.deep.equal(["pending"]);
    await service.progress();
    expect(exitStateToJson(await state()).transactions).to.deep.equal([{ txid: exitTxid, status: { type: "awaiting-confirmation", child_txid: foreign.txid, origin: { type: "mempool" } } }]);
    world.chain.mine(1);
    expect(await service.detectForeignExits(), "a live exit is not started twice").to.deep.equal([]);
    await service.progress();
    expect((await state()).type).to.equal("awaiting-delta");
    expect(world.fundRequests, "no child of our own").to.have.length(0);
  });

  it("starts exits for VTXOs a recovery stored as exited, skipping ones not exited or already exiting", async () => {
    await service.adoptExited([id]);
    expect(await store.exits(), "a spendable VTXO is not adopted").to.have.length(0);
    world.vtxos.get(id)!.state = "exited";
    await service.adoptExited([id, "ab".repeat(32) + ":0"]);
    await service.adoptExited([id]);
    const recs = await store.exits();
    expect(recs.map((r) => [r.vtxoId, r.state.type, r.lockId])).to.deep.equal([[id, "start", null]]);
    expect(await service.pendingExitSat()).to.equal(100_000n);
  });

  it("ends as vtxo-already-spent when the VTXO is spent before its exit chain is out: movement canceled, lock gone", async () => {
    await service.start([id]);
    world.vtxos.get(id)!.state = "spent";
    world.vtxos.get(id)!.lockedBy = null;
    await service.progress();
    expect((await state()).type).to.equal("vtxo-already-spent");
    expect([...world.movements.values()]).to.deep.equal(["canceled"]);
  });

  it("a claim dropped from the mempool is submitted again while its inputs are free", async () => {
    await service.start([id]);
    await progressUntil("claimable");
    await claimExits(service, [id], new Uint8Array([0x51, 0x20, ...new Uint8Array(32).fill(0x44)]), 2_000n);
    const claimTxid = (await state() as { claimTxid: string }).claimTxid;
    world.chain.evict(claimTxid);
    await service.progress();
    expect((await state()).type).to.equal("claim-in-progress");
    expect(world.chain.status(claimTxid)).to.deep.equal({ confirmed: false });
  });
});
