import { expect } from "chai";
import { exitPlan, fromHex, htlcSendPolicy, pubkeyFromSecret, reverseBytes, sha256, toHex, decodeTx, encodeTx, txidHex, type Vtxo } from "@tender/ark-protocol";
import { ExitService } from "../src/exit-service.js";
import { claimExits } from "../src/exit-claim.js";
import { HtlcExitClaimer } from "../src/htlc-exit-claims.js";
import { MemoryExitStore } from "../src/exit-records.js";
import { EXIT_DELTA, FakeExitWorld, USER_SECRET, logger, signedBoardVtxo } from "./fakes.js";

const HOLDER = "lightning.send:abc";
const PREIMAGE = new Uint8Array(32).fill(5);
const HASH = sha256(PREIMAGE);
const DEST = new Uint8Array([0x51, 0x20, ...new Uint8Array(32).fill(0x44)]);

/** The signed board VTXO with its own output carrying `policy` (the fake chain checks no signatures): its exit tx, and so its id, change. */
function withPolicy(vtxo: Vtxo, policy: Vtxo["policy"]): Vtxo {
  const changed = { ...vtxo, policy } as Vtxo;
  const own = exitPlan(changed).at(-1)!;
  return { ...changed, point: { txid: reverseBytes(fromHex(own.txid)), vout: vtxo.point.vout } };
}

describe("exits of HTLC VTXOs an action holds (HTLC-send refund, HTLC-recv claim with the preimage)", () => {
  let world: FakeExitWorld;
  let store: MemoryExitStore;
  let service: ExitService;
  const U = pubkeyFromSecret(USER_SECRET);

  beforeEach(() => {
    world = new FakeExitWorld();
    store = new MemoryExitStore();
    service = new ExitService(world.ports, store, logger);
  });

  /** Stores `vtxo` locked by {@link HOLDER}, its funding confirmed. */
  function hold(vtxo: Vtxo, fundingTxid: string): string {
    world.chain.confirmedOutside(fundingTxid);
    const id = world.add(vtxo);
    Object.assign(world.vtxos.get(id)!, { state: "locked", lockedBy: HOLDER });
    return id;
  }
  const stateOf = async (id: string) => (await store.exit(id))!.state;
  async function progressUntil(id: string, kind: string, max = 80): Promise<void> {
    for (let i = 0; i < max; i++) {
      await service.progress();
      if ((await stateOf(id)).type === kind) return;
      world.chain.mine(1);
    }
    throw new Error(`never reached ${kind}; now ${(await stateOf(id)).type}`);
  }
  const claimTx = (id: string) => {
    const point = id.split(":");
    const spender = world.chain.spenderOf(point[0]!, Number(point[1]))!;
    return decodeTx(fromHex(world.chain.txs.get(spender)!.hex));
  };

  it("HTLC-send: the holder keeps its lock until the VTXO is exited; claimable no earlier than the HTLC expiry; the claim spends the refund clause (nSequence 2Δ, nLockTime ≥ expiry)", async () => {
    const { vtxo, fundingTxid } = signedBoardVtxo(50_000n, 3);
    const expiry = world.chain.height + 60; // later than the exit's confirmation + 2Δ
    const id = hold(withPolicy(vtxo, htlcSendPolicy(U, HASH, expiry)), fundingTxid);
    await service.startHeld({ vtxoIds: [id], holder: HOLDER });
    await service.startHeld({ vtxoIds: [id], holder: HOLDER }); // again: harmless
    expect(await store.exits()).to.have.length(1);
    expect(world.vtxos.get(id)).to.deep.include({ state: "locked", lockedBy: HOLDER });
    expect(await service.outcome(id)).to.equal("in-progress");
    await progressUntil(id, "awaiting-delta");
    const waiting = await stateOf(id);
    expect(waiting.type === "awaiting-delta" && waiting.claimableHeight).to.equal(expiry);
    expect(world.vtxos.get(id)!.state).to.equal("exited");
    await progressUntil(id, "claimable");
    expect(world.chain.height).to.equal(expiry);
    await claimExits(service, [id], DEST, undefined);
    const tx = claimTx(id);
    expect(tx.inputs[0]!.sequence).to.equal(2 * EXIT_DELTA);
    expect(tx.locktime).to.be.at.least(expiry);
    expect(tx.inputs[0]!.witness).to.have.length(3); // signature, script, control block
    world.chain.mine(1);
    await service.progress();
    expect(await service.outcome(id)).to.equal("claimed");
    expect([...world.movements.values()]).to.deep.equal(["successful"]);
  });

  it("HTLC-recv: the handed-over preimage is kept and pushed after the signature; the claim waits htlc_expiry_delta + Δ after the exit confirmed", async () => {
    const { vtxo, fundingTxid } = signedBoardVtxo(60_000n, 4);
    const htlcExpiryDelta = 6;
    const id = hold(withPolicy(vtxo, { type: "server-htlc-receive-v1", userPubkey: U, paymentHash: HASH, htlcExpiry: world.chain.height + 500, htlcExpiryDelta }), fundingTxid);
    await service.startHeld({ vtxoIds: [id], holder: HOLDER, preimage: PREIMAGE });
    expect(await store.preimage(toHex(HASH))).to.equal(toHex(PREIMAGE));
    await progressUntil(id, "awaiting-delta");
    const waiting = await stateOf(id);
    const confirmed = waiting.type === "awaiting-delta" ? waiting.confirmedBlock.height : -1;
    expect(waiting.type === "awaiting-delta" && waiting.claimableHeight).to.equal(confirmed + htlcExpiryDelta + EXIT_DELTA);
    await progressUntil(id, "claimable");
    await claimExits(service, "all", DEST, undefined);
    const tx = claimTx(id);
    expect(tx.inputs[0]!.sequence).to.equal(htlcExpiryDelta + EXIT_DELTA);
    expect(toHex(tx.inputs[0]!.witness[1]!)).to.equal(toHex(PREIMAGE));
    world.chain.mine(1);
    await service.progress();
    expect(await service.outcome(id)).to.equal("claimed");
  });

  it("claims HTLC exits unasked once claimable (HTLC-recv with the preimage, to one fresh wallet address), never a board's exit", async () => {
    const recv = signedBoardVtxo(60_000n, 8);
    const id = hold(withPolicy(recv.vtxo, { type: "server-htlc-receive-v1", userPubkey: U, paymentHash: HASH, htlcExpiry: world.chain.height + 500, htlcExpiryDelta: 6 }), recv.fundingTxid);
    await service.startHeld({ vtxoIds: [id], holder: HOLDER, preimage: PREIMAGE });
    const board = signedBoardVtxo(40_000n, 9);
    world.chain.confirmedOutside(board.fundingTxid);
    const boardId = world.add(board.vtxo);
    world.coins.push(500_000n); // a second coin for the board's CPFP child
    await service.start([boardId]);
    const claimer = new HtlcExitClaimer(service);
    // nothing claimable yet: no claim, no address used
    expect(await claimer.claimDue()).to.deep.equal([]);
    expect(world.freshScripts).to.equal(0);
    await progressUntil(id, "claimable");
    await progressUntil(boardId, "claimable");
    expect(await claimer.claimDue()).to.deep.equal([id]);
    expect(world.freshScripts).to.equal(1);
    const tx = claimTx(id);
    expect(toHex(tx.outputs[0]!.script)).to.equal("5120" + "66".repeat(32));
    expect(toHex(tx.inputs[0]!.witness[1]!)).to.equal(toHex(PREIMAGE));
    world.chain.mine(1);
    await service.progress();
    expect(await service.outcome(id)).to.equal("claimed");
    // the board's exit waits for the user's claim, as barkd's
    expect(await claimer.claimDue()).to.deep.equal([]);
    expect((await stateOf(boardId)).type).to.equal("claimable");
  });

  it("refuses a preimage of another payment hash and a VTXO the caller does not hold, registering nothing", async () => {
    const { vtxo, fundingTxid } = signedBoardVtxo(60_000n, 5);
    const id = hold(withPolicy(vtxo, { type: "server-htlc-receive-v1", userPubkey: U, paymentHash: HASH, htlcExpiry: 900, htlcExpiryDelta: 6 }), fundingTxid);
    let error: unknown;
    await service.startHeld({ vtxoIds: [id], holder: HOLDER, preimage: new Uint8Array(32).fill(6) }).catch((e: unknown) => { error = e; });
    expect(String(error)).to.match(/not that of VTXO/);
    await service.startHeld({ vtxoIds: [id], holder: "someone.else" }).catch((e: unknown) => { error = e; });
    expect(String(error)).to.match(/is not held by someone\.else/);
    expect(await store.exits()).to.have.length(0);
    expect(await service.outcome(id)).to.equal("none");
  });

  it("HTLC-send whose exit output the server spends (its preimage clause) ends vtxo-already-spent: outcome spent-elsewhere, movement canceled, never claimed", async () => {
    const { vtxo, fundingTxid } = signedBoardVtxo(50_000n, 7);
    const id = hold(withPolicy(vtxo, htlcSendPolicy(U, HASH, world.chain.height + 60)), fundingTxid);
    await service.startHeld({ vtxoIds: [id], holder: HOLDER });
    await progressUntil(id, "awaiting-delta");
    // the server's spend: any transaction of the exit output that is no claim of the wallet
    const [txid, vout] = id.split(":");
    const serverSpend = encodeTx({
      version: 2, locktime: 0, outputs: [{ value: 49_000n, script: fromHex("5120" + "55".repeat(32)) }],
      inputs: [{ prevout: { txid: reverseBytes(fromHex(txid!)), vout: Number(vout) }, scriptSig: new Uint8Array(0), sequence: EXIT_DELTA, witness: [PREIMAGE] }],
    });
    await world.chain.port.broadcast(toHex(serverSpend));
    await service.progress();
    expect((await stateOf(id)).type).to.equal("vtxo-already-spent");
    expect(await service.outcome(id)).to.equal("spent-elsewhere");
    expect([...world.movements.values()]).to.deep.equal(["canceled"]);
    expect(txidHex(decodeTx(serverSpend))).to.equal(world.chain.spenderOf(txid!, Number(vout)));
  });
});
