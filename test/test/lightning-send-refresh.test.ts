/**
 * VTXOs made by Lightning sends join hArk rounds like any other, end to end: daemons with
 * tenderd's default plugins (rounds and lightning included) on a devnet whose server charges a
 * refresh fee (100 sat + 1000 ppm). The two change pieces of a paid invoice, and the change plus
 * the revocation output of an unroutable one, are refreshed over `POST /wallet/refresh/all` in a
 * round triggered through the devnet's control: one new VTXO worth everything minus the refresh
 * fee, the old ones spent at the server, the refresh movement successful.
 */
import { expect } from "chai";
import { cleanup, startDaemon, type Daemon } from "../src/daemon-process.js";
import { ALICE_MNEMONIC, BOB_MNEMONIC } from "./ark-harness.js";
import {
  ROUNDS_ENV, ROUND_CONFIRMATIONS, balance, boardedWallet, history, ok, printLogsOnFailure, refreshFeeOf, roundsDaemonConfig, serverState,
  startRoundsDevnet, sum, triggerRound, until, untilRoundStatus, vtxos, type DevnetWithArk, type PendingRoundInfo, type VtxoInfo,
} from "./rounds-harness.js";
import { sendMovements, untilPaid, untilRevoked } from "./lightning-send-harness.js";

describe("Lightning change and revocation outputs are refreshed in an hArk round", function () {
  this.timeout(180_000);
  let devnet: DevnetWithArk;
  let alice: Daemon;
  let bob: Daemon;

  before(async () => {
    devnet = await startRoundsDevnet("lightning-send-refresh-e2e");
    [alice, bob] = await Promise.all([
      startDaemon({ config: roundsDaemonConfig(), env: ROUNDS_ENV }),
      startDaemon({ config: roundsDaemonConfig(), env: ROUNDS_ENV }),
    ]);
    await boardedWallet(alice, devnet, ALICE_MNEMONIC, [200_000]);
    await boardedWallet(bob, devnet, BOB_MNEMONIC, [200_000]);
  });
  afterEach(function () {
    printLogsOnFailure(this, { alice, bob });
  });
  after(async () => {
    for (const d of [alice, bob]) if (d) { await d.stop(); cleanup(d.datadir); }
    await devnet?.stop();
  });

  /**
   * Refreshes every spendable VTXO of `d` in one triggered round and waits for the swap; checks the
   * new VTXO (everything minus the refresh fee), the old ones spent at the server and the movement.
   */
  async function refreshAll(d: Daemon, before: readonly VtxoInfo[]): Promise<VtxoInfo> {
    const total = sum(before);
    const fee = refreshFeeOf(total);
    const r = await ok<PendingRoundInfo>(d, "POST", "/api/v1/wallet/refresh/all");
    expect([...r.participation.inputs].sort()).to.deep.equal(before.map((v) => v.id).sort());
    expect(r.participation.outputs.map((o) => o.amount_sat)).to.deep.equal([total - fee]);
    await triggerRound(devnet);
    const unconfirmed = await untilRoundStatus(d, r.id, "unconfirmed");
    devnet.node.mine(ROUND_CONFIRMATIONS);
    const fresh = await until("the refreshed VTXO", async () => {
      const now = await vtxos(d);
      return now.length === 1 && now[0]!.state.type === "spendable" && now[0]!.chain_anchor.startsWith(`${unconfirmed.funding_txid}:`) ? now[0] : undefined;
    }, 30_000);
    expect(fresh.amount_sat).to.equal(total - fee);
    expect(await balance(d)).to.deep.include({ spendable_sat: total - fee, pending_in_round_sat: 0, pending_lightning_send_sat: 0 });
    for (const v of before) expect(await serverState(devnet, v.id), `refreshed input ${v.id}`).to.equal("spent");
    expect(await serverState(devnet, fresh.id)).to.equal("spendable");
    const m = await until("the refresh movement ended", async () => (await history(d)).find((x) => x.subsystem.name === "bark.round" && x.status !== "pending"));
    expect(m).to.deep.include({ status: "successful", effective_balance_sat: -fee, offchain_fee_sat: fee, output_vtxos: [fresh.id] });
    expect([...m.input_vtxos].sort()).to.deep.equal(before.map((v) => v.id).sort());
    return fresh;
  }

  it("the change of a paid invoice (two pieces) is refreshed into one VTXO", async () => {
    const inv = devnet.lightning.createInvoice({ amountSat: 50_000n });
    await ok(alice, "POST", "/api/v1/lightning/pay", { destination: inv.invoice });
    await untilPaid(alice, inv.paymentHash);
    const [m] = await sendMovements(alice, inv.paymentHash);
    const change = await vtxos(alice);
    // the test server charges no Lightning-send fee: 150 000 of change, more than the payment, in two pieces
    expect(m!.offchain_fee_sat).to.equal(0);
    expect(change.map((v) => v.amount_sat)).to.deep.equal([75_000, 75_000]);
    expect([...m!.output_vtxos].sort()).to.deep.equal(change.map((v) => v.id).sort());
    await refreshAll(alice, change);
  });

  it("after an unroutable invoice, the change and the revocation output are refreshed into one VTXO worth everything minus the refresh fee", async () => {
    const inv = devnet.lightning.createInvoice({ amountSat: 60_000n, kind: "unroutable" });
    await ok(bob, "POST", "/api/v1/lightning/pay", { destination: inv.invoice });
    const m = await untilRevoked(bob, inv.paymentHash);
    const held = await vtxos(bob);
    expect(held.map((v) => v.amount_sat).sort((a, b) => a - b)).to.deep.equal([60_000, 70_000, 70_000]);
    const revocation = held.find((v) => v.amount_sat === 60_000)!;
    expect(m.output_vtxos).to.include(revocation.id);
    expect(revocation).to.deep.include({ policy_type: "pubkey", state: { type: "spendable" } });
    expect(await serverState(devnet, revocation.id)).to.equal("spendable");
    await refreshAll(bob, held);
    expect((await balance(bob)).spendable_sat).to.equal(200_000 - refreshFeeOf(200_000));
  });
});
