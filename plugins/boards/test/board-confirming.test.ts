import { expect } from "chai";
import type { ActionDefinition } from "@tender/core";
import { boardAction } from "../src/board-action.js";
import { isPendingBoard, type BoardState } from "../src/board-state.js";
import { FakeWorld, INFO, endLikeEngine, silentLogger } from "./fakes.js";

type Def = ActionDefinition<BoardState>;
const ID = "action-1";

/** A board that reached `confirming`: funded, co-signed, recorded and broadcast. */
async function broadcastBoard(def: Def): Promise<BoardState> {
  let step = "fund";
  let state: BoardState = { mode: "amount", requestedSat: "100000" };
  while (step !== "confirming") {
    const out = await def.steps[step]!(state, { id: ID });
    if (!("next" in out)) throw new Error(`board stopped at ${step}: ${JSON.stringify(out)}`);
    step = out.next;
    state = out.state;
  }
  return state;
}

describe("board confirmation and registration (the server's confirmations, registration retries, double spends), over fakes", () => {
  let world: FakeWorld;
  let def: Def;
  let s: BoardState;
  beforeEach(async () => {
    world = new FakeWorld();
    def = boardAction(world.ports, async () => new Set(), silentLogger, { pollMs: 50 });
    s = await broadcastBoard(def);
  });
  const confirming = async () => endLikeEngine(def, ID, await def.steps.confirming!(s, { id: ID }));
  const register = async () => endLikeEngine(def, ID, await def.steps.register!(s, { id: ID }));

  it("waits while the funding tx is in the mempool or has fewer than the server's confirmations", async () => {
    expect(await confirming()).to.deep.equal({ waitMs: 50 });
    world.confirm(s.fundingTxid!, world.tip);
    expect(INFO.requiredBoardConfirmations).to.equal(2);
    expect(await confirming()).to.deep.equal({ waitMs: 50 });
    world.tip++;
    expect(await confirming()).to.deep.include({ next: "register" });
  });

  it("re-broadcasts a funding tx that left the mempool while its inputs are unspent", async () => {
    world.statuses.clear();
    const before = world.calls.broadcast.length;
    expect(await confirming()).to.deep.equal({ waitMs: 50 });
    expect(world.calls.broadcast.length).to.equal(before + 1);
    expect(world.calls.broadcast.at(-1)).to.equal(s.fundingTxHex);
  });

  it("waits without re-broadcasting while an unconfirmed conflict spends a funding input", async () => {
    world.statuses.clear();
    world.outspends.set(s.fundingInputs![0]!, { spent: true, txid: "ee".repeat(32), vin: 0, status: { confirmed: false } });
    const before = world.calls.broadcast.length;
    expect(await confirming()).to.deep.equal({ waitMs: 50 });
    expect(world.calls.broadcast.length).to.equal(before);
    expect(world.movements.get(s.movementId!)!.status).to.equal("pending");
  });

  it("fails for good when a confirmed conflict spends a funding input: movement failed, VTXO spent, nothing registered", async () => {
    world.statuses.clear();
    world.outspends.set(s.fundingInputs![0]!, { spent: true, txid: "ee".repeat(32), vin: 0, status: { confirmed: true, block: { height: 201, hash: "00".repeat(32) }, blockTime: 0 } });
    const out = await confirming();
    expect(out).to.have.property("failed").that.contains(`double-spent by confirmed transaction ${"ee".repeat(32)}`);
    expect(world.movements.get(s.movementId!)!.status).to.equal("failed");
    expect(world.vtxos.get(s.vtxoId!)!.state).to.equal("spent");
    expect(world.calls.register).to.deep.equal([]);
  });

  it("fails the board when its VTXO was exited (the exit owns it now; the VTXO is not marked spent)", async () => {
    world.vtxos.get(s.vtxoId!)!.state = "exited";
    const out = await confirming();
    expect(out).to.have.property("failed", "the board VTXO was exited");
    expect(world.movements.get(s.movementId!)!.status).to.equal("failed");
    expect(world.vtxos.get(s.vtxoId!)!.state).to.equal("exited");
  });

  it("register: a refusal is retried later (never fails a board whose funds are on-chain); success makes the VTXO spendable", async () => {
    world.confirm(s.fundingTxid!, world.tip - 1);
    world.registerFails = true;
    expect(await register()).to.deep.equal({ waitMs: 50 });
    expect(world.vtxos.get(s.vtxoId!)!.state).to.equal("locked");
    expect(world.movements.get(s.movementId!)!.status).to.equal("pending");
    expect(world.backedUp).to.deep.equal([]);
    world.registerFails = false;
    expect(await register()).to.deep.include({ done: true });
    expect(world.calls.register).to.have.length(2);
    expect(world.vtxos.get(s.vtxoId!)!.state).to.equal("spendable");
    expect(world.movements.get(s.movementId!)!.status).to.equal("successful");
    expect(world.backedUp, "registered id backed up in the recovery mailbox, once").to.deep.equal([s.vtxoId]);
  });

  describe("a board the server has not registered as its expiry draws near", () => {
    const exiting = async () => endLikeEngine(def, ID, await def.steps.exiting!(s, { id: ID }));
    /** The funding confirmed, registration refused, and the tip `blocksLeft` blocks before the board's expiry. */
    const nearExpiry = (blocksLeft: number) => {
      world.confirm(s.fundingTxid!, world.tip - 1);
      world.registerFails = true;
      world.tip = s.expiryHeight! - blocksLeft;
    };

    it("register: is retried while the tip is more than the refresh threshold before the expiry", async () => {
      nearExpiry(world.exitThreshold + 1);
      expect(await register()).to.deep.equal({ waitMs: 50 });
      expect(world.exitsStarted).to.deep.equal([]);
    });

    it("register: at the threshold the board VTXO goes to the exits rail, held by the board, which then waits in `exiting` (still a pending board until the exit chain confirms)", async () => {
      nearExpiry(world.exitThreshold);
      const out = await register();
      expect(out).to.deep.include({ next: "exiting" });
      expect((out as { state: BoardState }).state.exitStartedAt).to.equal(world.tip);
      expect(world.exitsStarted).to.deep.equal([{ vtxoId: s.vtxoId, holder: ID }]);
      expect(isPendingBoard("exiting", (out as { state: BoardState }).state)).to.equal(true);
      s = (out as { state: BoardState }).state;
      // the exit chain is on its way: the board waits, its movement pending, its VTXO held
      expect(await exiting()).to.deep.equal({ waitMs: 50 });
      expect(world.movements.get(s.movementId!)!.status).to.equal("pending");
      expect(world.vtxos.get(s.vtxoId!)!.state).to.equal("locked");
      // the exit chain confirmed (the exits rail marks the VTXO exited): the board ends failed, the exit keeps the VTXO
      world.vtxos.get(s.vtxoId!)!.state = "exited";
      expect(await exiting()).to.have.property("failed", "the board VTXO was exited");
      expect(world.movements.get(s.movementId!)!.status).to.equal("failed");
      expect(world.vtxos.get(s.vtxoId!)!.state).to.equal("exited");
      expect(world.calls.register).to.have.length(1);
    });

    it("register: without an exits rail, or when the exit cannot start, registration is retried", async () => {
      nearExpiry(1);
      world.exitsLoaded = false;
      expect(await register()).to.deep.equal({ waitMs: 50 });
      world.exitsLoaded = true;
      world.exitStartFails = true;
      expect(await register()).to.deep.equal({ waitMs: 50 });
      expect(world.exitsStarted).to.deep.equal([]);
      world.exitStartFails = false;
      expect(await register()).to.deep.include({ next: "exiting" });
    });

    it("exiting: a canceled exit sends the board back to registration; the server's expiry spend fails it with the VTXO spent", async () => {
      nearExpiry(2);
      s = ((await register()) as { state: BoardState }).state;
      world.exitOutcome = "canceled";
      const back = await exiting();
      expect(back).to.deep.include({ next: "register" });
      expect((back as { state: BoardState }).state.exitStartedAt).to.equal(undefined);
      world.exitOutcome = "spent-elsewhere";
      const lost = await exiting();
      expect(lost).to.have.property("failed").that.contains("expiry clause");
      expect(world.movements.get(s.movementId!)!.status).to.equal("failed");
      expect(world.vtxos.get(s.vtxoId!)!.state).to.equal("spent");
    });

    it("register: a board whose VTXO an exit already holds ends as exited without asking the server", async () => {
      world.vtxos.get(s.vtxoId!)!.state = "exited";
      expect(await register()).to.have.property("failed", "the board VTXO was exited");
      expect(world.calls.register).to.deep.equal([]);
    });
  });

  it("register: goes back to confirming when the funding tx is no longer confirmed (reorg)", async () => {
    world.statuses.set(s.fundingTxid!, { confirmed: false });
    expect(await register()).to.deep.include({ next: "confirming" });
    expect(world.calls.register).to.deep.equal([]);
  });
});
