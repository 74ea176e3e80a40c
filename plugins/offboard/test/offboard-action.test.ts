import { expect } from "chai";
import { connectorScript, decodeTx, encodeOutPoint, parseOutPoint, compareBytes, fromHex, txidHex, encodeTx, toHex } from "@tender/ark-protocol";
import type { ActionDefinition, Logger } from "@tender/core";
import { offboardAction, sortedIds } from "../src/offboard-action.js";
import { OFFBOARD_ACTION_KIND, type OffboardState } from "../src/offboard-state.js";
import { FakeWorld, boardOf, randomKey, rejection } from "./fakes.js";

const quiet: Logger = { debug: () => undefined, info: () => undefined, warn: () => undefined, error: () => undefined, child: () => quiet } as unknown as Logger;
const TIMING = { pollMs: 1_000, retryMs: 500 };
const ID = "action-1";

interface Run { step: string; state: OffboardState; error?: string }

/** Runs the action's steps as the kernel's engine does, until it ends or waits. */
async function drive(def: ActionDefinition<OffboardState>, run: Run): Promise<Run> {
  for (let guard = 0; guard < 50; guard++) {
    if (run.step === "done" || run.step === "failed") return run;
    const out = await def.steps[run.step]!(run.state, { id: ID });
    if ("waitMs" in out) {
      if (out.state) run.state = out.state;
      return run;
    }
    run.state = out.state;
    if ("next" in out) {
      run.step = out.next;
      continue;
    }
    run.step = "done" in out ? "done" : "failed";
    if ("failed" in out) run.error = out.failed;
    await def.onEnd?.(ID, "done" in out ? "done" : "failed", out.state, run.error);
    return run;
  }
  throw new Error("no end");
}

/** A whole offboard of `ids`, as the service plans it (fee 100 + 250 × 4 × 134 / 1000 = 234). */
function wholeState(ids: string[], total: bigint): Run {
  const fee = 234n;
  return {
    step: "lock",
    state: {
      kind: "offboard", destination: "bcrt1p…", scriptHex: toHex(connectorScript(randomKey().pk)), netSat: String(total - fee), feeSat: String(fee),
      feeRateSatPerKwu: "250", inputIds: ids,
    },
  };
}

describe("offboard action (over fakes of its ports)", () => {
  it("locks, prepares, signs the forfeits, broadcasts the signed tx and ends with the inputs spent and the movement successful", async () => {
    const w = new FakeWorld();
    const id = w.add(boardOf(100_000n));
    const def = offboardAction(w.ports(), quiet, TIMING);
    expect(def.kind).to.equal(OFFBOARD_ACTION_KIND);
    const run = await drive(def, wholeState([id], 100_000n));
    expect([run.step, run.state.locked, w.vtxos.get(id)!.state]).to.deep.equal(["lock", true, "locked"]); // returns once, right after locking
    await drive(def, run);
    expect(run.step, run.state.lastError).to.equal("done");
    expect(w.vtxos.get(id)!.state).to.equal("spent");
    expect(w.broadcasts).to.have.length(1);
    const signed = decodeTx(fromHex(w.broadcasts[0]!));
    expect(signed.inputs.every((i) => i.witness.length > 0)).to.equal(true);
    expect(signed.outputs[0]!.value).to.equal(100_000n - 234n);
    const m = w.movements.get(run.state.movementId!)!;
    expect([m.subsystem, m.status, m.intendedBalanceSat, m.effectiveBalanceSat, m.offchainFeeSat]).to.deep.equal([{ name: "bark.offboard", kind: "offboard" }, "successful", -100_000, -100_000, 234]);
    expect(m.metadata).to.deep.equal({ offboard_txid: txidHex(signed), offboard_tx: toHex(encodeTx(signed)) });
  });

  it("refuses a finish answer whose inputs carry no signature and asks again: the server's replay of the real tx completes it", async () => {
    const w = new FakeWorld();
    const id = w.add(boardOf(80_000n));
    const def = offboardAction(w.ports(), quiet, TIMING);
    w.finishAnswers = ["unsigned", "signed"];
    const run = await drive(def, await drive(def, wholeState([id], 80_000n)));
    expect([run.step, w.broadcasts.length]).to.deep.equal(["finish", 0]);
    expect(run.state.lastError).to.match(/unsigned input/);
    expect(w.vtxos.get(id)!.state, "never unlocked while the server may hold forfeits").to.equal("locked");
    await drive(def, run);
    expect([run.step, w.finishes, w.broadcasts.length]).to.deep.equal(["done", 2, 1]);
  });

  it("a prepare refused on the first try fails the offboard, unlocks the inputs and records a failed movement that moved nothing", async () => {
    const w = new FakeWorld();
    const id = w.add(boardOf(80_000n));
    const def = offboardAction(w.ports(), quiet, TIMING);
    w.prepareAnswers = [rejection("bad user input: requested output address is blocked: bcrt1p…")];
    const run = await drive(def, await drive(def, wholeState([id], 80_000n)));
    expect(run.step).to.equal("failed");
    expect(run.error).to.contain("requested output address is blocked");
    expect(w.vtxos.get(id)!.state).to.equal("spendable");
    expect([...w.movements.values()].map((m) => [m.status, m.effectiveBalanceSat])).to.deep.equal([["failed", 0]]);
  });

  it("a server that is unreachable at prepare is retried later, the inputs staying locked", async () => {
    const w = new FakeWorld();
    const id = w.add(boardOf(80_000n));
    const def = offboardAction(w.ports(), quiet, TIMING);
    w.prepareAnswers = [new Error("connect ECONNREFUSED")];
    const run = await drive(def, await drive(def, wholeState([id], 80_000n)));
    expect([run.step, run.state.lastError, w.vtxos.get(id)!.state]).to.deep.equal(["prepare", "connect ECONNREFUSED", "locked"]);
    await drive(def, run);
    expect(run.step).to.equal("done");
  });

  it("after a lost session, a re-prepare refused because the inputs are spent keeps them locked and keeps looking for the earlier tx, adopting it once the chain has it", async () => {
    const w = new FakeWorld();
    const id = w.add(boardOf(90_000n));
    const def = offboardAction(w.ports(), quiet, TIMING);
    w.finishAnswers = [rejection("unknown offboard txid")];
    const run = await drive(def, await drive(def, wholeState([id], 90_000n)));
    expect(run.step).to.equal("prepare");
    const prior = run.state.priorTxid!;
    expect(prior).to.equal(txidHex(w.signedTx()));
    expect((await drive(def, run)).step, "not re-prepared before the poll interval").to.equal("prepare");
    expect(w.prepares).to.have.length(1);
    w.now += TIMING.pollMs;
    w.prepareAnswers = [rejection("bad user input: input vtxo(s) not spendable")];
    await drive(def, run);
    expect([run.step, w.vtxos.get(id)!.state]).to.deep.equal(["prepare", "locked"]);
    // the earlier finish did go through: its tx shows up
    const signed = w.signedTx();
    w.chainTxs.set(prior, { hex: toHex(encodeTx(signed)), status: { confirmed: false } });
    w.prepareAnswers = [rejection("bad user input: input vtxo(s) not spendable")];
    await drive(def, run);
    expect([run.step, run.state.offboardTxid, w.vtxos.get(id)!.state]).to.deep.equal(["done", prior, "spent"]);
  });

  it("after a lost session, a re-prepare refused for a stale fee rate cancels and unlocks", async () => {
    const w = new FakeWorld();
    const id = w.add(boardOf(90_000n));
    const def = offboardAction(w.ports(), quiet, TIMING);
    w.finishAnswers = [rejection("unknown offboard txid")];
    const run = await drive(def, await drive(def, wholeState([id], 90_000n)));
    w.now += TIMING.pollMs;
    w.prepareAnswers = [rejection("bad user input: fee rate is no longer valid: provided = 250, expected = 200")];
    await drive(def, run);
    expect([run.step, w.vtxos.get(id)!.state]).to.deep.equal(["failed", "spendable"]);
    expect([...w.movements.values()].map((m) => [m.status, m.effectiveBalanceSat])).to.deep.equal([["failed", 0]]);
  });

  it("sends the same prepare request when a step runs again (inputs sorted by id), so the server can replay its session", async () => {
    const w = new FakeWorld();
    const ids = [w.add(boardOf(40_000n)), w.add(boardOf(50_000n)), w.add(boardOf(60_000n))];
    const def = offboardAction(w.ports(), quiet, TIMING);
    const run = await drive(def, wholeState([...ids].reverse(), 150_000n));
    const locked = await def.steps.lock!(run.state, { id: ID });
    const state = (locked as { state: OffboardState }).state;
    expect(state.offboardVtxoIds).to.deep.equal(sortedIds(ids));
    const raw = state.offboardVtxoIds!.map((i) => encodeOutPoint(parseOutPoint(i)));
    for (let i = 1; i < raw.length; i++) expect(compareBytes(raw[i - 1]!, raw[i]!)).to.be.below(0);
    await def.steps.prepare!(state, { id: ID }); // "crash" before its outcome is saved
    await def.steps.prepare!(state, { id: ID });
    expect(Buffer.from(w.prepares[0]!).equals(Buffer.from(w.prepares[1]!))).to.equal(true);
  });

  it("waits for the required confirmations, re-broadcasts a vanished tx within the grace period, and past it reports the tx lost without unlocking", async () => {
    const w = new FakeWorld();
    const id = w.add(boardOf(70_000n));
    const ports = w.ports();
    const def = offboardAction({ ...ports, settings: { ...ports.settings, requiredConfirmations: async () => 1, lostTxGraceSecs: async () => 60 } }, quiet, TIMING);
    const run = await drive(def, await drive(def, wholeState([id], 70_000n)));
    expect(run.step, "in the mempool, 1 confirmation required").to.equal("confirming");
    const txid = run.state.offboardTxid!;
    w.chainTxs.delete(txid);
    await drive(def, run);
    expect([w.broadcasts.length, w.chainTxs.has(txid)], "re-broadcast").to.deep.equal([2, true]);
    w.chainTxs.delete(txid);
    w.now += 61_000;
    await drive(def, run);
    expect([run.step, run.state.lost, w.broadcasts.length, w.vtxos.get(id)!.state]).to.deep.equal(["confirming", true, 2, "locked"]);
    expect(run.state.lastError).to.match(/has not been seen on chain since .*the inputs stay locked/);
    w.chainTxs.set(txid, { hex: run.state.signedTxHex!, status: { confirmed: true, block: { height: 500, hash: "00".repeat(32) }, blockTime: 0 } });
    await drive(def, run);
    expect([run.step, w.vtxos.get(id)!.state]).to.deep.equal(["done", "spent"]);
  });

  it("fails without touching anything when an input cannot be locked", async () => {
    const w = new FakeWorld();
    const id = w.add(boardOf(70_000n));
    await w.ports().vtxos.lock([id], "another-action");
    const def = offboardAction(w.ports(), quiet, TIMING);
    const run = await drive(def, wholeState([id], 70_000n));
    expect([run.step, w.vtxos.get(id)!.lockedBy, w.movements.size]).to.deep.equal(["failed", "another-action", 0]);
    expect(run.error).to.match(/^Unable to lock VTXOs: /);
  });
});
