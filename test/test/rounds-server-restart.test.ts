import { expect } from "chai";
import { faultPointLine } from "@tender/core";
import { cleanup, startDaemon, type Daemon } from "../src/daemon-process.js";
import { ALICE_MNEMONIC, BOB_MNEMONIC, boardToDaemon } from "./ark-harness.js";
import {
  ROUNDS_ENV, allVtxos, arkControl, balance, createBody, history, ok, printLogsOnFailure, refreshFeeOf, rounds, roundsDaemonConfig, runRound,
  serverState, startRoundsDevnet, sum, triggerRound, until, vtxos, type DevnetWithArk, type Movement, type PendingRoundInfo, type VtxoInfo,
} from "./rounds-harness.js";

/** Waits until the server's last round event is of `kind`. */
async function untilEvent(devnet: DevnetWithArk, kind: string): Promise<void> {
  await until(`a ${kind} event`, async () => {
    try {
      return devnet.ark.server.lastRoundEvent().kind === kind ? true : undefined;
    } catch {
      return undefined;
    }
  });
}

/**
 * The reference Ark server stopped and started again (devnet controls) in the middle of a round:
 * every participation either fails cleanly (inputs spendable on both sides, nothing new) or
 * completes (inputs spent on both sides, the new VTXO spendable) — never both — and refreshing
 * works again afterwards.
 */
describe("refresh across an Ark server stop/start mid-round", function () {
  this.timeout(240_000);
  let devnet: DevnetWithArk;
  let alice: Daemon;
  let bob: Daemon;

  before(async () => {
    devnet = await startRoundsDevnet("rounds-server-restart");
    alice = await startDaemon({ config: roundsDaemonConfig(), env: ROUNDS_ENV });
    await ok(alice, "POST", "/api/v1/wallet/create", createBody(devnet, ALICE_MNEMONIC));
    for (const a of [100_000n, 50_000n]) await ok(alice, "POST", "/api/v1/wallet/import-vtxo", { vtxos: [await boardToDaemon(alice, devnet, ALICE_MNEMONIC, a)] });
  });
  afterEach(function () {
    printLogsOnFailure(this, { alice, bob });
  });
  after(async () => {
    for (const d of [alice, bob]) if (d) { await d.stop(); cleanup(d.datadir); }
    await devnet?.stop();
  });

  /** Drives `d`'s refresh `movementId` to its end: rounds while it waits for one, blocks while it waits for confirmations. */
  async function finish(d: Daemon, movementId: number): Promise<Movement> {
    return until("the refresh to end", async () => {
      const m = (await history(d)).find((x) => x.id === movementId)!;
      if (m.status !== "pending") return m;
      const [r] = await rounds(d);
      if (r?.status.status === "unconfirmed") devnet.node.mine(1);
      else await runRound(devnet);
      return undefined;
    }, 90_000);
  }

  /** Failed cleanly or completed, never both, as the wallet and the server see it. */
  async function expectOneOutcome(d: Daemon, inputs: readonly VtxoInfo[], m: Movement): Promise<void> {
    expect(["successful", "failed"]).to.include(m.status);
    const total = sum(inputs);
    const all = await allVtxos(d);
    for (const v of await vtxos(d)) expect(await serverState(devnet, v.id), `server state of the wallet's VTXO ${v.id}`).to.equal("spendable");
    expect(await rounds(d)).to.deep.equal([]);
    if (m.status === "successful") {
      for (const v of inputs) {
        expect(all.find((x) => x.id === v.id)!.state.type).to.equal("spent");
        expect(await serverState(devnet, v.id)).to.equal("spent");
      }
      expect(await serverState(devnet, m.output_vtxos[0]!)).to.equal("spendable");
      expect((await balance(d)).spendable_sat).to.equal(total - refreshFeeOf(total));
    } else {
      for (const v of inputs) {
        expect(all.find((x) => x.id === v.id)!.state.type).to.equal("spendable");
        expect(await serverState(devnet, v.id)).to.equal("spendable");
      }
      expect(m.output_vtxos).to.deep.equal([]);
      expect((await balance(d)).spendable_sat).to.equal(total);
    }
    expect((await balance(d)).pending_in_round_sat).to.equal(0);
  }

  it("stopped while the signatures are collected (Alice signed, Bob died after joining): Alice's refresh fails cleanly, Bob's restarted daemon completes his in the next round, and Alice refreshes again", async () => {
    bob = await startDaemon({ config: roundsDaemonConfig(), env: { ...ROUNDS_ENV, TENDER_FAULT_INJECT: "round-submit:after" } });
    await ok(bob, "POST", "/api/v1/wallet/create", createBody(devnet, BOB_MNEMONIC));
    await ok(bob, "POST", "/api/v1/wallet/import-vtxo", { vtxos: [await boardToDaemon(bob, devnet, BOB_MNEMONIC, 80_000n)] });
    const aliceInputs = await vtxos(alice);
    const bobInputs = await vtxos(bob);
    await ok<PendingRoundInfo>(alice, "POST", "/api/v1/wallet/refresh/all");
    await ok<PendingRoundInfo>(bob, "POST", "/api/v1/wallet/refresh/all");
    const aliceMovement = (await history(alice))[0]!.id;
    const bobMovement = (await history(bob))[0]!.id;

    // Bob joins and dies; the proposal goes out, Alice signs, the server waits for Bob's signatures
    const bobDied = new Promise((r) => bob.proc.once("exit", r));
    await triggerRound(devnet);
    await bobDied;
    expect(bob.stderr()).to.contain(faultPointLine("round-submit:after"));
    await untilEvent(devnet, "vtxo-proposal");
    await new Promise((r) => setTimeout(r, 800));
    await arkControl(devnet, "stop");
    const r = await alice.api("GET", "/api/v1/wallet/rounds");
    expect(r.status).to.equal(200);
    await arkControl(devnet, "start");
    bob = await startDaemon({ datadir: bob.datadir, config: roundsDaemonConfig(), env: ROUNDS_ENV });

    const [am, bm] = [await finish(alice, aliceMovement), await finish(bob, bobMovement)];
    await expectOneOutcome(alice, aliceInputs, am);
    await expectOneOutcome(bob, bobInputs, bm);
    // the abandoned round is over for Alice (she learns it at the next round: the server knows no outputs of hers);
    // Bob's daemon held no secrets after its restart and waited for the next round
    expect([am.status, bm.status]).to.deep.equal(["failed", "successful"]);

    // refreshing works again for whoever failed
    for (const [d, m] of [[alice, am], [bob, bm]] as const) {
      if (m.status !== "failed") continue;
      await ok(d, "POST", "/api/v1/wallet/refresh/all");
      const again = await finish(d, (await history(d))[0]!.id);
      expect(again.status).to.equal("successful");
    }
  });

  it("stopped during the sign-up: the refresh fails cleanly (joined the abandoned attempt) or completes in a later round (missed it), never both", async () => {
    const inputs = await vtxos(alice);
    await ok(alice, "POST", "/api/v1/wallet/refresh/all");
    const movementId = (await history(alice))[0]!.id;
    await triggerRound(devnet);
    await untilEvent(devnet, "attempt");
    await new Promise((r) => setTimeout(r, 500));
    await arkControl(devnet, "stop");
    await new Promise((r) => setTimeout(r, 500));
    await arkControl(devnet, "start");
    const m = await finish(alice, movementId);
    await expectOneOutcome(alice, inputs, m);
  });
});
