import { expect } from "chai";
import { cleanup, startDaemon, type Daemon } from "../src/daemon-process.js";
import { CAROL_MNEMONIC } from "./ark-harness.js";
import {
  ROUNDS_ENV, ROUND_CONFIRMATIONS, arkControl, allVtxos, balance, boardedWallet, history, ok, printLogsOnFailure, refreshFeeOf, rounds,
  roundsDaemonConfig, runRound, serverState, startRoundsDevnet, sum, until, untilMovementEnded, vtxos,
  type DevnetWithArk, type Movement, type PendingRoundInfo, type VtxoInfo,
} from "./rounds-harness.js";

/** `vtxo_refresh_expiry_threshold` of this file's daemon: high, so VTXOs of the test profile (lifetime 432) need a refresh after a few dozen blocks. */
const THRESHOLD = 400;

/**
 * The daemon's own refreshes (maintenance): at a round's first attempt it joins with the VTXOs
 * about to expire; an input the server rejects (a banned VTXO) is dropped and the rest refreshed,
 * while an explicit refresh with such an input fails as a whole.
 */
describe("maintenance refresh and rejected inputs: the daemon refreshes expiring VTXOs on its own, skipping what the server bans", function () {
  this.timeout(240_000);
  let devnet: DevnetWithArk;
  let carol: Daemon;
  let banned: VtxoInfo;
  let others: VtxoInfo[];

  before(async () => {
    devnet = await startRoundsDevnet("rounds-maintenance");
    carol = await startDaemon({ config: roundsDaemonConfig(), env: { ...ROUNDS_ENV, TENDER_VTXO_REFRESH_EXPIRY_THRESHOLD: String(THRESHOLD) } });
    await boardedWallet(carol, devnet, CAROL_MNEMONIC, [60_000, 50_000, 40_000]);
    const all = await vtxos(carol);
    expect(new Set(all.map((v) => v.expiry_height)).size, "boarded in one block: one expiry").to.equal(1);
    banned = all.find((v) => v.amount_sat === 60_000)!;
    others = all.filter((v) => v.id !== banned.id);
    await arkControl(devnet, "ban", { vtxo: banned.id, blocks: 1_000 });
  });
  afterEach(function () {
    printLogsOnFailure(this, { carol });
  });
  after(async () => {
    if (carol) { await carol.stop(); cleanup(carol.datadir); }
    await devnet?.stop();
  });

  /** What the tests compare to show that a refused refresh changed nothing. */
  const snapshot = async () => ({ balance: await balance(carol), vtxos: await vtxos(carol), rounds: await rounds(carol) });

  it("an explicit refresh with a banned input fails as a whole at the round: inputs unlocked, movement failed, nothing else changed", async () => {
    const before = await snapshot();
    const r = await ok<PendingRoundInfo>(carol, "POST", "/api/v1/wallet/refresh/vtxos", { vtxos: [banned.id, others[0]!.id] });
    expect(r.status).to.deep.equal({ status: "pending" });
    expect((await balance(carol)).pending_in_round_sat).to.equal(banned.amount_sat + others[0]!.amount_sat - refreshFeeOf(banned.amount_sat + others[0]!.amount_sat));

    // nobody else joins: the daemon's submission is refused, and the round ends without anyone
    expect(await runRound(devnet)).to.equal("failed");
    const m = await untilMovementEnded(carol, (await history(carol))[0]!.id);
    expect(m).to.deep.include({ status: "failed", subsystem: { name: "bark.round", kind: "refresh" }, output_vtxos: [] });
    expect([...m.input_vtxos].sort(), "nothing dropped from an explicit refresh").to.deep.equal([banned.id, others[0]!.id].sort());
    expect(await snapshot()).to.deep.equal(before);
    for (const v of [banned, ...others]) expect(await serverState(devnet, v.id)).to.equal("spendable");
  });

  it("an explicit delegated refresh with a banned input is refused by the server as a whole (500): nothing held, no participation left", async () => {
    const before = await snapshot();
    const r = await carol.api("POST", "/api/v1/wallet/refresh/delegated/vtxos", { body: { vtxos: [others[1]!.id, banned.id] } });
    expect(r.status, r.text).to.equal(500);
    expect(r.text).to.match(/^\{"message":"Failed to store round participation: error submitting round participation to server: .*input vtxo\(s\) unusable/);
    expect(await snapshot()).to.deep.equal(before);
    const [m] = await history(carol);
    expect(m).to.deep.include({ status: "failed", subsystem: { name: "bark.round", kind: "refresh" } });
    expect([...m!.input_vtxos].sort(), "nothing dropped").to.deep.equal([others[1]!.id, banned.id].sort());
  });

  it("at the first round after the VTXOs come within the threshold the daemon refreshes them on its own, leaving the banned one out; once unbanned, it follows", async () => {
    // within the threshold: every VTXO must be refreshed
    devnet.node.mine(banned.expiry_height - THRESHOLD + 1 - devnet.node.tipHeight());
    const before = await snapshot();
    expect(before.rounds).to.deep.equal([]);
    const refreshesBefore = (await history(carol)).filter((x) => x.subsystem.name === "bark.round").length;

    expect(await runRound(devnet)).to.equal("finished");
    const m = await until("the daemon's own refresh movement", async () => {
      const ms = (await history(carol)).filter((x) => x.subsystem.name === "bark.round");
      return ms.length > refreshesBefore ? ms[0] : undefined;
    });
    const rest = sum(others);
    const fee = refreshFeeOf(rest);
    // the banned input was dropped and the fee re-priced for the rest
    expect([...m.input_vtxos].sort()).to.deep.equal(others.map((v) => v.id).sort());
    expect(m.offchain_fee_sat).to.equal(fee);
    const [pending] = await rounds(carol);
    expect(pending!.participation.inputs.sort()).to.deep.equal(others.map((v) => v.id).sort());
    expect(pending!.participation.outputs.map((o) => o.amount_sat)).to.deep.equal([rest - fee]);
    expect((await vtxos(carol)).find((v) => v.id === banned.id)!.state.type).to.equal("spendable");

    devnet.node.mine(ROUND_CONFIRMATIONS);
    const done: Movement = await untilMovementEnded(carol, m.id);
    expect(done).to.deep.include({ status: "successful", effective_balance_sat: -fee });
    const now = await vtxos(carol);
    expect(now.map((v) => [v.id === banned.id ? "banned" : "new", v.amount_sat, v.state.type]).sort()).to.deep.equal(
      [["banned", banned.amount_sat, "spendable"], ["new", rest - fee, "spendable"]].sort(),
    );
    for (const v of others) expect((await allVtxos(carol)).find((x) => x.id === v.id)!.state.type).to.equal("spent");
    expect((await balance(carol)).spendable_sat).to.equal(before.balance.spendable_sat - fee);

    // unbanned, the still expiring VTXO is refreshed at the next round (the new one is fresh and stays)
    await arkControl(devnet, "unban", { vtxo: banned.id });
    expect(await runRound(devnet)).to.equal("finished");
    const second = await until("the daemon's second refresh", async () => (await history(carol)).find((x) => x.subsystem.name === "bark.round" && x.input_vtxos.includes(banned.id) && x.status !== "failed"));
    expect(second.input_vtxos).to.deep.equal([banned.id]);
    devnet.node.mine(ROUND_CONFIRMATIONS);
    expect((await untilMovementEnded(carol, second.id)).status).to.equal("successful");
    expect(await serverState(devnet, banned.id)).to.equal("spent");
    expect((await vtxos(carol)).every((v) => v.expiry_height > devnet.node.tipHeight() + THRESHOLD), "nothing left near expiry").to.equal(true);
  });
});
