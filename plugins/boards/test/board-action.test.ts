import { expect } from "chai";
import type { ActionDefinition, StepOutcome } from "@tender/core";
import { boardFundingTaproot, decodeTx, decodeVtxo, fromHex, toHex, validateVtxo } from "@tender/ark-protocol";
import { boardAction } from "../src/board-action.js";
import type { BoardState } from "../src/board-state.js";
import { FakeWorld, INFO, silentLogger, endLikeEngine } from "./fakes.js";

type Def = ActionDefinition<BoardState>;
const ID = "action-1";

/** Runs steps from `step` until the action waits, ends, or reaches `stopAt`, like the kernel's engine. */
async function run(def: Def, state: BoardState, step = "fund", stopAt?: string): Promise<{ step: string; state: BoardState; outcome: StepOutcome<BoardState> }> {
  for (;;) {
    const outcome = await endLikeEngine(def, ID, await def.steps[step]!(state, { id: ID }));
    if ("waitMs" in outcome) return { step, state: outcome.state ?? state, outcome };
    state = outcome.state;
    if ("next" in outcome) {
      step = outcome.next;
      if (step === stopAt) return { step, state, outcome };
      continue;
    }
    return { step: "done" in outcome ? "done" : "failed", state, outcome };
  }
}

describe("board action steps (the client side of a board), over fakes", () => {
  let world: FakeWorld;
  let def: Def;
  let reserved: Set<string>;
  beforeEach(() => {
    world = new FakeWorld();
    reserved = new Set();
    def = boardAction(world.ports, async () => reserved, silentLogger, { pollMs: 50 });
  });

  it("fund: builds an unbroadcast funding tx paying the board script at expiry tip + vtxo_lifetime, excluding reserved coins", async () => {
    reserved = new Set(["aa:0"]);
    const r = await run(def, { mode: "amount", requestedSat: "100000" }, "fund", "cosign");
    const s = r.state;
    expect(s.expiryHeight).to.equal(world.tip + INFO.vtxoLifetime);
    expect(world.calls.build).to.deep.equal([{ amount: 100_000n, exclude: ["aa:0"] }]);
    const script = boardFundingTaproot({ userPubkey: fromHex(s.userPubkey!), serverPubkey: INFO.serverPubkey, expiryHeight: s.expiryHeight! }).scriptPubKey;
    const tx = decodeTx(fromHex(s.fundingTxHex!));
    expect(toHex(tx.outputs[s.fundingVout!]!.script)).to.equal(toHex(script));
    expect(tx.outputs[s.fundingVout!]!.value).to.equal(100_000n);
    expect([s.amountSat, s.boardFeeSat, s.vtxoSat]).to.deep.equal(["100000", "1100", "98900"]);
    expect(world.calls.broadcast).to.deep.equal([]);
    expect(world.calls.cosign).to.deep.equal([]);
  });

  it("fund: two boards started together never pick the same coin (the second excludes the first's inputs)", async () => {
    world.walletCoins = [150_000n, 150_000n];
    const [a, b] = await Promise.all([
      def.steps.fund!({ mode: "amount", requestedSat: "100000" }, { id: "a" }),
      def.steps.fund!({ mode: "amount", requestedSat: "100000" }, { id: "b" }),
    ]);
    const inputsA = (a as { state: BoardState }).state.fundingInputs!;
    const inputsB = (b as { state: BoardState }).state.fundingInputs!;
    expect(inputsA).to.have.length(1);
    expect(inputsB).to.have.length(1);
    expect(inputsA[0]).to.not.equal(inputsB[0]);
    expect(world.calls.build[1]!.exclude).to.deep.equal(inputsA);
  });

  it("fund: fails (nothing built or sent) below the server minimum, and board-all below it too", async () => {
    const low = await run(def, { mode: "amount", requestedSat: "19999" });
    expect(low.step).to.equal("failed");
    expect((low.outcome as { failed: string }).failed).to.match(/less than minimum board amount required by server \(20000 sats\)/);
    expect(world.calls.build).to.deep.equal([]);
    world.walletCoins = [15_000n];
    const all = await run(def, { mode: "all" });
    expect(all.step).to.equal("failed");
    expect(world.calls.cosign).to.deep.equal([]);
  });

  it("fund: fails with the wallet's insufficient-funds message, nothing sent", async () => {
    const r = await run(def, { mode: "amount", requestedSat: "500000" });
    expect(r.step).to.equal("failed");
    expect(r.state.failure).to.match(/^Insufficient funds/);
    expect(world.calls.cosign).to.deep.equal([]);
  });

  it("cosign: the MuSig2 co-signed VTXO validates against its funding tx (board-all drains into one output)", async () => {
    const r = await run(def, { mode: "all" }, "fund", "record");
    const vtxo = decodeVtxo(fromHex(r.state.vtxoHex!));
    expect(vtxo.amount).to.equal(BigInt(r.state.vtxoSat!));
    expect(BigInt(r.state.amountSat!)).to.equal(150_000n - 500n);
    expect(() => validateVtxo(vtxo, decodeTx(fromHex(r.state.fundingTxHex!)))).to.not.throw();
    const call = world.calls.cosign[0]!;
    expect(call.amountSat).to.equal(149_500n);
    expect(toHex(call.fundingTx)).to.equal(r.state.fundingTxHex);
  });

  it("cosign: a refusal or an invalid server signature fails the board before anything is stored or broadcast", async () => {
    for (const behaviour of ["refuse", "bad-signature"] as const) {
      world.cosignBehaviour = behaviour;
      const r = await run(def, { mode: "amount", requestedSat: "100000" });
      expect(r.step, behaviour).to.equal("failed");
      expect(r.state.failure).to.match(behaviour === "refuse" ? /refused to cosign the board: bad user input/ : /signature is invalid/);
    }
    expect(world.vtxos.size).to.equal(0);
    expect(world.movements.size).to.equal(0);
    expect(world.calls.broadcast).to.deep.equal([]);
    expect(world.held.size, "no coins reserved in the wallet").to.equal(0);
  });

  it("record: run twice (crash before its outcome was saved) stores one VTXO and one pending movement", async () => {
    const before = await run(def, { mode: "amount", requestedSat: "100000" }, "fund", "record");
    await def.steps.record!(before.state, { id: ID });
    const r = await run(def, before.state, "record", "confirming");
    expect(world.vtxos.size).to.equal(1);
    expect([...world.vtxos.values()][0]).to.deep.include({ state: "locked", lockedBy: ID });
    expect(world.movements.size).to.equal(1);
    const m = world.movements.get(r.state.movementId!)!;
    expect(m.anchor).to.equal(`${r.state.fundingTxid}:0`);
    expect(m.fields).to.deep.include({ amountSat: 100_000n, vtxoAmountSat: 98_900n, boardFeeSat: 1_100n, onchainFeeSat: 500n, vtxoId: r.state.vtxoId });
    expect(world.calls.broadcast).to.have.length(1);
  });

  it("broadcast: skips a funding tx the chain already knows, and a refusal fails the board (movement failed, VTXO spent)", async () => {
    const s = (await run(def, { mode: "amount", requestedSat: "100000" }, "fund", "broadcast")).state;
    world.statuses.set(s.fundingTxid!, { confirmed: false });
    expect(await def.steps.broadcast!(s, { id: ID })).to.deep.include({ next: "confirming" });
    expect(world.calls.broadcast).to.deep.equal([]);
    world.statuses.clear();
    world.broadcastRefusal = "bad-txns-inputs-missingorspent";
    const out = await endLikeEngine(def, ID, await def.steps.broadcast!(s, { id: ID }));
    expect(out).to.have.property("failed").that.matches(/Failed to broadcast the board funding transaction: bad-txns-inputs-missingorspent/);
    expect(world.movements.get(s.movementId!)!.status).to.equal("failed");
    expect(world.vtxos.get(s.vtxoId!)!.state).to.equal("spent");
    expect(world.released, "the wallet's coins are released").to.deep.equal([s.fundingTxid]);
    expect(world.held.size).to.equal(0);
  });

  it("a failure's log line names the board: its action id, and its funding tx or that it has none yet", async () => {
    const warnings: string[] = [];
    const logger = { ...silentLogger, warn: (m: string) => void warnings.push(m) } as typeof silentLogger;
    def = boardAction(world.ports, async () => reserved, logger, { pollMs: 50 });
    await run(def, { mode: "amount", requestedSat: "500000" });
    expect(warnings).to.have.length(1);
    expect(warnings[0]).to.match(new RegExp(`^board ${ID} \\(no funding tx yet\\) failed: Insufficient funds`));
    const s = (await run(def, { mode: "amount", requestedSat: "100000" }, "fund", "broadcast")).state;
    world.broadcastRefusal = "bad-txns-inputs-missingorspent";
    await def.steps.broadcast!(s, { id: ID });
    expect(warnings[1]).to.equal(
      `board ${ID} (funding tx ${s.fundingTxid}) failed: Failed to broadcast the board funding transaction: bad-txns-inputs-missingorspent`,
    );
  });

  it("broadcast: the wallet holds the funding tx before it is broadcast and is told after", async () => {
    const order: string[] = [];
    const { hold, noteBroadcast } = world.ports.wallet;
    const { broadcast } = world.ports.chain;
    Object.assign(world.ports.wallet, {
      hold: async (f: Parameters<typeof hold>[0]) => { order.push("hold"); await hold(f); },
      noteBroadcast: async (t: string) => { order.push("noted"); await noteBroadcast(t); },
    });
    Object.assign(world.ports.chain, { broadcast: async (h: string) => { order.push("broadcast"); await broadcast(h); } });
    def = boardAction(world.ports, async () => reserved, silentLogger, { pollMs: 50 });
    const r = await run(def, { mode: "amount", requestedSat: "100000" }, "fund", "confirming");
    expect(order).to.deep.equal(["hold", "broadcast", "noted"]);
    expect([...world.held]).to.deep.equal([r.state.fundingTxid]);
    expect(world.noted).to.deep.equal([r.state.fundingTxid]);
  });
});
