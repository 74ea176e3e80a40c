import { expect } from "chai";
import { ChainSourceUnavailableError, type ActionDefinition, type ActionEngine, type ActionStatus, type StepOutcome } from "@tender/core";
import { UnsentBoards, boardAction } from "../src/board-action.js";
import { BoardService } from "../src/board-service.js";
import { BOARD_ACTION_KIND, type BoardState } from "../src/board-state.js";
import { FakeWorld, endLikeEngine, silentLogger } from "./fakes.js";

type Def = ActionDefinition<BoardState>;
const ID = "action-1";
const refused = () => new ChainSourceUnavailableError("fake", "connection", "ECONNREFUSED", 4, { notProcessed: true });
const timedOut = () => new ChainSourceUnavailableError("fake", "timeout", "no answer within 30000 ms", 4);

/** A board recorded and about to broadcast its funding tx. */
async function recordedBoard(def: Def): Promise<BoardState> {
  let step = "fund";
  let state: BoardState = { mode: "amount", requestedSat: "100000" };
  while (step !== "broadcast") {
    const out = await def.steps[step]!(state, { id: ID });
    if (!("next" in out)) throw new Error(`board stopped at ${step}: ${JSON.stringify(out)}`);
    step = out.next;
    state = out.state;
  }
  return state;
}

/**
 * A board's answer never says "failed" while its funding tx may still go out: it fails only when
 * no node can have the funding tx (a refusal, or an outage before anything could leave on the
 * board's first try); otherwise the board stays pending and the funding tx is re-broadcast.
 */
describe("board broadcast answers when the chain source fails", () => {
  let world: FakeWorld;
  let unsent: UnsentBoards;
  let def: Def;
  let s: BoardState;
  beforeEach(async () => {
    world = new FakeWorld();
    unsent = new UnsentBoards();
    def = boardAction(world.ports, async () => new Set(), silentLogger, { pollMs: 50 }, unsent);
    s = await recordedBoard(def);
  });
  const broadcast = async (): Promise<StepOutcome<BoardState>> => endLikeEngine(def, ID, await def.steps.broadcast!(s, { id: ID }));
  const failingBroadcast = (err: () => Error) => Object.assign(world.ports.chain, { broadcast: async (hex: string) => { world.calls.broadcast.push(hex); throw err(); } });

  it("fails the board and frees its coins when its first broadcast found nobody listening", async () => {
    unsent.add(ID);
    failingBroadcast(refused);
    const out = await broadcast();
    expect(out).to.have.property("failed").that.matches(/^Failed to broadcast the board funding transaction: .*ECONNREFUSED.*; nothing was broadcast$/);
    expect(world.released).to.deep.equal([s.fundingTxid]);
    expect(world.movements.get(s.movementId!)!.status).to.equal("failed");
    expect(world.vtxos.get(s.vtxoId!)!.state).to.equal("spent");
  });

  it("fails the board when the chain source failed before its first broadcast was tried", async () => {
    unsent.add(ID);
    Object.assign(world.ports.chain, { txStatus: async () => { throw timedOut(); } });
    const out = await broadcast();
    expect(out).to.have.property("failed").that.matches(/nothing was broadcast$/);
    expect(world.calls.broadcast).to.deep.equal([]);
    expect(world.released).to.deep.equal([s.fundingTxid]);
  });

  it("keeps the board pending when its broadcast may have reached a node; the wallet lists the funding tx", async () => {
    unsent.add(ID);
    failingBroadcast(timedOut);
    expect(await broadcast()).to.deep.equal({ next: "confirming", state: s });
    expect(world.released).to.deep.equal([]);
    expect(world.noted).to.deep.equal([s.fundingTxid]);
    expect(world.movements.get(s.movementId!)!.status).to.equal("pending");
  });

  it("keeps a board resumed after a restart pending even when nobody listens: an earlier run may have sent it", async () => {
    failingBroadcast(refused);
    expect(await broadcast()).to.deep.equal({ next: "confirming", state: s });
    expect(world.released).to.deep.equal([]);
    expect(world.vtxos.get(s.vtxoId!)!.state).to.equal("locked");
  });

  it("answers the pending board when the chain source fails after the broadcast, while the board waits for confirmations", async () => {
    // An engine that runs fund → … → broadcast → confirming, where confirming meets the outage.
    const rows = new Map<string, ActionStatus<BoardState>>();
    const engine = {
      start: async (kind: string, state: BoardState, id: string) => {
        expect(kind).to.equal(BOARD_ACTION_KIND);
        let step = "fund";
        for (;;) {
          rows.set(id, { id, kind, step, state });
          const out = await def.steps[step]!(state, { id });
          if (!("next" in out)) throw new Error(`unexpected ${JSON.stringify(out)}`);
          step = out.next;
          state = out.state;
          if (step === "confirming") {
            rows.set(id, { id, kind, step, state });
            Object.assign(world.ports.chain, { txStatus: async () => { throw timedOut(); } });
            await def.steps.confirming!(state, { id });
          }
        }
      },
      status: async (id: string) => rows.get(id),
    } as unknown as ActionEngine;
    world.walletCoins.push(150_000n); // the board recorded before holds the first coin
    const service = new BoardService(engine, world.ports.server, unsent);
    const info = await service.board(100_000n);
    const [row] = [...rows.values()];
    expect(row!.step).to.equal("confirming");
    expect(info.funding_tx.txid).to.equal(row!.state.fundingTxid);
    expect(world.calls.broadcast).to.have.length(1);
    expect(world.movements.get(info.movement_id)!.status).to.equal("pending");
  });
});
