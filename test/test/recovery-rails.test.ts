import { expect } from "chai";
import { cleanup, startDaemon, type Daemon } from "../src/daemon-process.js";
import { CAROL_MNEMONIC } from "./ark-harness.js";
import { externalAddress } from "./offboard-harness.js";
import { untilPaid, untilRevoked } from "./lightning-send-harness.js";
import {
  ROUNDS_ENV, allVtxos, balance, createBody, ok, printLogsOnFailure, roundsDaemonConfig, startRoundsDevnet, until, type DevnetWithArk, type VtxoInfo,
} from "./rounds-harness.js";
import { boardAmounts, deleteAndCreate, holdings } from "./recovery-harness.js";

/**
 * Recovery from the seed of what each rail leaves in a wallet: after a Lightning receive, a
 * Lightning payment with change, a revoked Lightning payment, a send-onchain (offboard) with
 * change and an exit, the wallet is deleted and created again from its mnemonic, and must hold
 * exactly what it held: the outputs of that step among them (every rail backs its outputs up in
 * the recovery mailbox), an exited VTXO as exited.
 */
describe("recovery from the seed of every rail's outputs: Lightning receive, Lightning send change and revocation, offboard change, exits", function () {
  this.timeout(300_000);
  let devnet: DevnetWithArk;
  let carol: Daemon;

  const held = async () => (await allVtxos(carol)).filter((v) => v.state.type !== "spent");
  /** Runs `step` and answers the VTXOs it left in the wallet that were not there before. */
  const outputsOf = async (step: () => Promise<void>): Promise<VtxoInfo[]> => {
    const before = new Set((await allVtxos(carol)).map((v) => v.id));
    await step();
    return (await held()).filter((v) => !before.has(v.id));
  };
  /**
   * Deletes the wallet and creates it from its mnemonic: it must hold what it held (ids, amounts,
   * states) and the same balance; answers the recovery's log lines.
   */
  const recoverAndCompare = async (): Promise<string> => {
    const [want, wantBalance] = [await held(), (await balance(carol)).spendable_sat];
    const from = carol.stderr().length;
    await deleteAndCreate(carol, createBody(devnet, CAROL_MNEMONIC));
    expect(holdings(await allVtxos(carol))).to.deep.equal(holdings(want));
    expect((await balance(carol)).spendable_sat).to.equal(wantBalance);
    return carol.stderr().slice(from);
  };
  const expectRecovered = async (outputs: readonly VtxoInfo[], state = "spendable") => {
    expect(outputs.length, "the step left outputs").to.be.greaterThan(0);
    const now = await allVtxos(carol);
    for (const o of outputs) expect(now.find((v) => v.id === o.id), o.id).to.deep.include({ amount_sat: o.amount_sat, state: { type: state } });
  };

  before(async () => {
    devnet = await startRoundsDevnet("recovery-rails");
    const base = roundsDaemonConfig() as { pluginConfig: Record<string, unknown> };
    carol = await startDaemon({ config: { pluginConfig: { ...base.pluginConfig, offboard: { pollMs: 200, retryMs: 200 } } }, env: ROUNDS_ENV });
    await ok(carol, "POST", "/api/v1/wallet/create", createBody(devnet, CAROL_MNEMONIC));
    await boardAmounts(carol, devnet, [200_000, 150_000]);
  });
  afterEach(function () {
    printLogsOnFailure(this, { carol });
  });
  after(async () => {
    if (carol) { await carol.stop(); cleanup(carol.datadir); }
    await devnet?.stop();
  });

  it("finds the VTXO a claimed Lightning receive left (recovered_wallet_finds_lightning_receive)", async () => {
    const claimed = await outputsOf(async () => {
      const { invoice } = await ok<{ invoice: string }>(carol, "POST", "/api/v1/lightning/receives/invoice", { amount_sat: 30_000 });
      const r = await fetch(`${devnet.lnControlUrl}/hold-invoices/pay`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ invoice }) });
      expect(r.status, await r.clone().text()).to.equal(200);
      await until("the receive settled", async () => ((await ok<{ state: string }>(carol, "GET", `/api/v1/lightning/receives/${invoice}`)).state === "settled" ? true : undefined), 60_000);
    });
    expect(claimed.reduce((t, v) => t + v.amount_sat, 0)).to.be.within(29_000, 30_000);
    await recoverAndCompare();
    await expectRecovered(claimed);
  });

  it("finds the change of a paid Lightning payment (recovered_wallet_finds_lightning_send_change)", async () => {
    const change = await outputsOf(async () => {
      const inv = devnet.lightning.createInvoice({ amountSat: 20_000n });
      await ok(carol, "POST", "/api/v1/lightning/pay", { destination: inv.invoice });
      await untilPaid(carol, inv.paymentHash);
    });
    await recoverAndCompare();
    await expectRecovered(change);
  });

  it("finds what a revoked Lightning payment gave back, with its change (recovered_wallet_finds_lightning_send_revocation)", async () => {
    const before = (await balance(carol)).spendable_sat;
    const back = await outputsOf(async () => {
      const inv = devnet.lightning.createInvoice({ amountSat: 10_000n, kind: "unroutable" });
      await ok(carol, "POST", "/api/v1/lightning/pay", { destination: inv.invoice });
      await untilRevoked(carol, inv.paymentHash);
    });
    // the revocation gave the HTLCs back: the balance is whole again
    expect((await balance(carol)).spendable_sat).to.equal(before);
    expect(back.reduce((t, v) => t + v.amount_sat, 0)).to.be.at.least(10_000);
    await recoverAndCompare();
    await expectRecovered(back);
  });

  it("finds the change of a send-onchain (recovered_wallet_finds_offboard_change)", async () => {
    // the Lightning receive had the server spend from its wallet (VTXO pool): its change must confirm to fund the offboard
    devnet.node.mine(1);
    const change = await outputsOf(async () => {
      await ok(carol, "POST", "/api/v1/wallet/send-onchain", { destination: externalAddress(), amount_sat: 15_000 });
    });
    await recoverAndCompare();
    await expectRecovered(change);
  });

  it("recovers a VTXO whose exit is on chain as exited, not spendable (recovered_wallet_skips_exited_vtxo)", async () => {
    const { address } = await ok<{ address: string }>(carol, "POST", "/api/v1/onchain/addresses/next");
    devnet.node.faucet(address, 300_000n);
    devnet.node.mine(1);
    await ok(carol, "POST", "/api/v1/onchain/sync");
    const target = (await held()).filter((v) => v.state.type === "spendable").sort((a, b) => a.amount_sat - b.amount_sat)[0]!;
    await ok(carol, "POST", "/api/v1/exits/start/vtxos", { vtxos: [target.id] });
    const state = async () => (await allVtxos(carol)).find((v) => v.id === target.id)?.state.type;
    for (let round = 0; round < 60 && (await state()) !== "exited"; round++) {
      await ok(carol, "POST", "/api/v1/exits/progress", {});
      devnet.node.mine(1);
    }
    expect(await state()).to.equal("exited");
    const log = await recoverAndCompare();
    await expectRecovered([target], "exited");
    expect(log).to.contain(`recovery: VTXO ${target.id} was exited on chain at height`);
    expect(log).to.match(/recovery complete: \d+ recovered \(\d+ sat\), \d+ skipped \(\d+ sat\), 0 failed \(0 sat\), 0 foreign \(0 sat\), 1 exited/);
    expect((await balance(carol)).spendable_sat).to.equal((await held()).filter((v) => v.state.type === "spendable").reduce((t, v) => t + v.amount_sat, 0));
  });
});
