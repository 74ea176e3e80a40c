import { expect } from "chai";
import { decodeTx, formatOutPoint } from "@tender/ark-protocol";
import { cleanup, startDaemon, type Daemon } from "../src/daemon-process.js";
import { ALICE_MNEMONIC, BOB_MNEMONIC } from "./ark-harness.js";
import { fundOnchain, liveExits, progressUntilClaimable, type ExitStatus } from "./exits-harness.js";
import {
  ROUNDS_ENV, ROUND_CONFIRMATIONS, arkControl, balance, boardedWallet, history, ok, printLogsOnFailure, rounds, roundsDaemonConfig,
  startRoundsDevnet, triggerRound, until, untilRoundStatus, vtxos, type DevnetWithArk, type PendingRoundInfo, type VtxoInfo,
} from "./rounds-harness.js";

interface OnchainBalance { confirmed_sat: number }

/**
 * Exits of VTXOs made by a round: two wallets refresh their boards in one triggered round, the
 * Ark server goes away, and each wallet takes its round VTXO out through the shared round tree
 * to claimable, then claims it on chain.
 */
describe("exits: round VTXOs of two wallets leave unilaterally with the Ark server stopped", function () {
  this.timeout(300_000);
  let devnet: DevnetWithArk;
  let alice: Daemon;
  let bob: Daemon;
  let fundingTxid: string;
  const fresh = new Map<Daemon, VtxoInfo>();

  before(async () => {
    devnet = await startRoundsDevnet("exits-round");
    [alice, bob] = await Promise.all([
      startDaemon({ config: roundsDaemonConfig(), env: ROUNDS_ENV }),
      startDaemon({ config: roundsDaemonConfig(), env: ROUNDS_ENV }),
    ]);
    await boardedWallet(alice, devnet, ALICE_MNEMONIC, [120_000]);
    await boardedWallet(bob, devnet, BOB_MNEMONIC, [90_000]);
    // confirmed coins for the CPFP children
    await fundOnchain(alice, devnet, [60_000n]);
    await fundOnchain(bob, devnet, [60_000n]);
  });
  afterEach(function () {
    printLogsOnFailure(this, { alice, bob });
  });
  after(async () => {
    for (const d of [alice, bob]) if (d) { await d.stop(); cleanup(d.datadir); }
    await devnet?.stop();
  });

  it("refreshes both wallets' VTXOs in one round: each holds one round VTXO anchored in the round's funding tx", async () => {
    const aliceRefresh = await ok<PendingRoundInfo>(alice, "POST", "/api/v1/wallet/refresh/all");
    const bobRefresh = await ok<PendingRoundInfo>(bob, "POST", "/api/v1/wallet/refresh/all");
    await triggerRound(devnet);
    fundingTxid = (await untilRoundStatus(alice, aliceRefresh.id, "unconfirmed")).funding_txid!;
    expect((await untilRoundStatus(bob, bobRefresh.id, "unconfirmed")).funding_txid, "one round for both").to.equal(fundingTxid);
    devnet.node.mine(ROUND_CONFIRMATIONS);
    for (const d of [alice, bob]) {
      await until("the refresh to complete", async () => ((await rounds(d)).length === 0 ? true : undefined), 30_000);
      const now = await vtxos(d);
      expect(now).to.have.length(1);
      expect(now[0]!.chain_anchor.startsWith(`${fundingTxid}:`), "a VTXO of the round").to.equal(true);
      expect(now[0]!.state.type).to.equal("spendable");
      fresh.set(d, now[0]!);
    }
  });

  it("with the server stopped, start/all, progress and mining take both round VTXOs to claimable through the shared tree", async () => {
    await arkControl(devnet, "stop");
    for (const d of [alice, bob]) {
      await ok(d, "POST", "/api/v1/exits/start/all", {});
      expect((await liveExits(d)).map((e) => e.vtxo_id)).to.deep.equal([fresh.get(d)!.id]);
      expect((await balance(d)).pending_exit_sat).to.equal(fresh.get(d)!.amount_sat);
    }
    await progressUntilClaimable(devnet, [alice, bob]);
    const chains: string[][] = [];
    for (const d of [alice, bob]) {
      const [e] = await liveExits(d, "?transactions=true");
      expect(e!.state.type).to.equal("claimable");
      const txids = e!.transactions!.map((t) => t.exit.txid);
      expect(txids.at(-1), "the chain ends in the VTXO's own tx").to.equal(fresh.get(d)!.id.split(":")[0]);
      for (const t of txids) expect(devnet.node.getTxStatus(t)?.confirmed, `exit tx ${t}`).to.equal(true);
      chains.push(txids);
      const [v] = await ok<VtxoInfo[]>(d, "GET", "/api/v1/wallet/vtxos?all=true").then((all) => all.filter((x) => x.id === fresh.get(d)!.id));
      expect(v!.state.type).to.equal("exited");
    }
    expect(chains[0]![0], "both chains start at the round tree's root").to.equal(chains[1]![0]);
    const root = decodeTx(devnet.node.getTransaction(chains[0]![0]!)!.raw);
    expect(root.inputs.map((i) => formatOutPoint(i.prevout).split(":")[0]), "the root spends the round's funding tx").to.deep.equal([fundingTxid]);
  });

  it("each wallet claims its round exit to its own on-chain address; the on-chain balance shows it and the exit movement succeeds", async () => {
    for (const d of [alice, bob]) {
      await ok(d, "POST", "/api/v1/onchain/sync");
      const before = await ok<OnchainBalance>(d, "GET", "/api/v1/onchain/balance");
      const { address } = await ok<{ address: string }>(d, "POST", "/api/v1/onchain/addresses/next");
      await ok(d, "POST", "/api/v1/exits/claim/all", { destination: address });
      devnet.node.mine(1);
      await until("claimed", async () => {
        await ok(d, "POST", "/api/v1/exits/progress", {});
        return (await ok<ExitStatus[]>(d, "GET", "/api/v1/exits/status/finished")).some((e) => e.vtxo_id === fresh.get(d)!.id && e.state.type === "claimed") || undefined;
      }, 30_000);
      await ok(d, "POST", "/api/v1/onchain/sync");
      const after = await ok<OnchainBalance>(d, "GET", "/api/v1/onchain/balance");
      const amount = fresh.get(d)!.amount_sat;
      expect(after.confirmed_sat - before.confirmed_sat, "the VTXO amount less the claim fee").to.be.within(amount - 5_000, amount - 1);
      expect((await balance(d)).pending_exit_sat).to.equal(0);
      const exitsMoved = (await history(d)).filter((m) => m.subsystem.name === "bark.exit");
      expect(exitsMoved.map((m) => [m.status, m.input_vtxos])).to.deep.equal([["successful", [fresh.get(d)!.id]]]);
    }
  });
});
