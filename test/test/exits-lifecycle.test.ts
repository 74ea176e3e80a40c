import { expect } from "chai";
import { cleanup, startDaemon, tempDatadir, type Daemon } from "../src/daemon-process.js";
import {
  EXIT_DELTA, boardAndRegister, exitDaemonConfig, fundOnchain, fundedWallet, liveExits, ok, payArk, progressUntilClaimable, startExitDevnet,
  type Balance, type DevnetWithArk, type ExitStatus, type FeeEstimate, type Movement, type VtxoInfo, type WalletTx,
} from "./exits-harness.js";

interface OnchainBalance { total_sat: number; confirmed_sat: number }

/**
 * The whole unilateral exit with the Ark server gone: a wallet holding a board VTXO, a VTXO
 * received by arkoor and the change of its own arkoor payment exits them all (start/all, repeated
 * progress with CPFP packages, mining) and sweeps them to its on-chain wallet in one claim. A
 * second wallet, paid from the first wallet's VTXO, exits at the same time: the exit chains share
 * their ancestors, which each wallet adopts when the other broadcast them first.
 */
describe("exits: every VTXO of a wallet leaves unilaterally with the Ark server stopped", function () {
  this.timeout(300_000);
  let devnet: DevnetWithArk;
  let alice: Daemon;
  let bob: Daemon;
  const datadirs: string[] = [];
  let vtxos: VtxoInfo[];
  let estimate: FeeEstimate;
  let bobVtxos: VtxoInfo[];

  before(async () => {
    devnet = await startExitDevnet("exits-lifecycle");
    for (const _ of [0, 1]) datadirs.push(tempDatadir());
    alice = await startDaemon({ datadir: datadirs[0], config: exitDaemonConfig() });
    bob = await startDaemon({ datadir: datadirs[1], config: exitDaemonConfig() });
    await fundedWallet(alice, devnet, [400_000n]);
    await fundedWallet(bob, devnet, [300_000n]);
    await boardAndRegister(alice, devnet, 120_000);
    await boardAndRegister(bob, devnet, 150_000);
    // alice pays bob from her board: her change and bob's payment hang from the same exit chain
    await payArk(alice, bob, 50_000);
    await boardAndRegister(alice, devnet, 100_000);
    // bob pays alice: an arkoor-received VTXO (with bob's change)
    await payArk(bob, alice, 40_000);
    // the CPFP children need confirmed coins
    await fundOnchain(alice, devnet, [50_000n, 50_000n]);
    await fundOnchain(bob, devnet, [50_000n, 50_000n]);
    vtxos = await ok<VtxoInfo[]>(alice, "GET", "/api/v1/wallet/vtxos");
    bobVtxos = await ok<VtxoInfo[]>(bob, "GET", "/api/v1/wallet/vtxos");
  });
  after(async () => {
    await alice?.stop();
    await bob?.stop();
    await devnet?.stop();
    for (const d of datadirs) cleanup(d);
  });

  it("holds a board VTXO, an arkoor-received one and arkoor change, all spendable", () => {
    expect(vtxos.every((v) => v.state.type === "spendable")).to.equal(true);
    // the board, the payment from bob (its chain hangs from alice's first board, through bob's
    // payment), and alice's change (split in two)
    expect(vtxos.filter((v) => v.exit_depth === 1).map((v) => v.amount_sat)).to.deep.equal([100_000]);
    expect(vtxos.filter((v) => v.amount_sat === 40_000 && v.exit_depth! > 3)).to.have.length(1);
    expect(vtxos.filter((v) => v.exit_depth === 3).reduce((t, v) => t + v.amount_sat, 0)).to.equal(70_000);
  });

  it("estimates the exit fee of every spendable VTXO, fundable from the confirmed coins", async () => {
    estimate = await ok<FeeEstimate>(alice, "GET", "/api/v1/exits/fee");
    // every exit tx once: the change and bob's payment share alice's first board's exit chain
    const depths = vtxos.reduce((t, v) => t + v.exit_depth!, 0);
    expect(estimate.txs_to_broadcast).to.be.within(4, depths - 1);
    expect(estimate.fundable).to.equal(true);
    expect(estimate.fee_rate_sat_per_vb).to.equal(20);
    expect(estimate.total_fee_sat).to.equal(estimate.exit_broadcast_fee_sat + estimate.claim_fee_sat);
    const onlyBoard = await ok<FeeEstimate>(alice, "GET", `/api/v1/exits/fee?vtxo_ids=${vtxos.find((v) => v.exit_depth === 1)!.id},`);
    expect(onlyBoard.txs_to_broadcast).to.equal(1);
  });

  it("starts every exit with the server stopped: the VTXOs leave the spendable balance for pending_exit_sat", async () => {
    const stopped = await fetch(`${devnet.arkControlUrl}/stop`, { method: "POST" });
    expect(stopped.status).to.equal(200);
    expect(await ok(alice, "POST", "/api/v1/exits/start/all")).to.deep.equal({ message: "Exit started successfully" });
    const live = await liveExits(alice);
    expect(live.map((e) => e.vtxo_id)).to.deep.equal(vtxos.map((v) => v.id));
    expect(live.every((e) => e.state.type === "start")).to.equal(true);
    const total = vtxos.reduce((t, v) => t + v.amount_sat, 0);
    expect(await ok<Balance>(alice, "GET", "/api/v1/wallet/balance")).to.deep.include({ spendable_sat: 0, pending_exit_sat: total });
    // starting again is harmless
    await ok(alice, "POST", "/api/v1/exits/start/all");
    expect(await liveExits(alice)).to.have.length(vtxos.length);
    const movements = (await ok<Movement[]>(alice, "GET", "/api/v1/history")).filter((m) => m.subsystem.name === "bark.exit");
    expect(movements.map((m) => [m.subsystem.kind, m.status])).to.deep.equal(vtxos.map(() => ["start", "pending"]));
    expect(movements.map((m) => m.input_vtxos[0]).sort()).to.deep.equal(vtxos.map((v) => v.id).sort());
    expect(movements.every((m) => m.intended_balance_sat === -m.sent_to[0]!.amount_sat && m.sent_to[0]!.destination.type === "bitcoin")).to.equal(true);
    expect(await ok(bob, "POST", "/api/v1/exits/start/all")).to.deep.equal({ message: "Exit started successfully" });
  });

  it("progress and mining take every exit to claimable; shared ancestors go out once and are adopted", async () => {
    const rounds = await progressUntilClaimable(devnet, [alice, bob]);
    expect(rounds).to.be.at.least(3 + EXIT_DELTA - 1);
    const live = await liveExits(alice, "?history=true&transactions=true");
    expect(live.map((e) => e.state.type)).to.deep.equal(vtxos.map(() => "claimable"));
    const exitTxids = new Set(live.flatMap((e) => e.transactions!.map((p) => p.exit.txid)));
    expect(estimate.txs_to_broadcast, "the estimate counted every exit tx once").to.equal(exitTxids.size);
    for (const e of live) {
      expect(e.history!.map((h) => h.type)).to.include.members(["start", "processing", "awaiting-delta"]);
      for (const p of e.transactions!) {
        expect(devnet.node.getTransaction(p.exit.txid)?.status.confirmed, `exit tx ${p.exit.txid} mined`).to.equal(true);
        expect(p.child).to.not.equal(null);
        expect(devnet.node.getTransaction(p.child!.info.txid)?.status.confirmed).to.equal(true);
      }
    }
    // every VTXO is exited now, and still counted as pending exit
    expect((await ok<VtxoInfo[]>(alice, "GET", "/api/v1/wallet/vtxos?all=true")).filter((v) => vtxos.some((x) => x.id === v.id)).map((v) => v.state.type)).to.deep.equal(vtxos.map(() => "exited"));
    const total = vtxos.reduce((t, v) => t + v.amount_sat, 0);
    expect(await ok<Balance>(alice, "GET", "/api/v1/wallet/balance")).to.deep.include({ spendable_sat: 0, pending_exit_sat: total });
    // alice's change and bob's payment share the board exit tx and the checkpoint: some of those
    // packages carry a child the other wallet made (origin mempool/block), never two children
    const children = new Map<string, Set<string>>();
    for (const d of [alice, bob]) {
      for (const e of await liveExits(d, "?transactions=true")) for (const p of e.transactions!) {
        if (!children.has(p.exit.txid)) children.set(p.exit.txid, new Set());
        children.get(p.exit.txid)!.add(p.child!.info.txid);
      }
    }
    for (const [txid, set] of children) expect(set.size, `one child for ${txid}`).to.equal(1);
    const origins = [alice, bob].map(async (d) => (await liveExits(d, "?transactions=true")).flatMap((e) => e.transactions!.map((p) => p.child!.origin.type)));
    const all = (await Promise.all(origins)).flat();
    expect(all).to.include("wallet");
    expect(all.some((o) => o === "block" || o === "mempool"), "a package adopted from the other wallet").to.equal(true);
    // every CPFP child of alice's is in her on-chain wallet, marked is_cpfp
    const txs = await ok<WalletTx[]>(alice, "GET", "/api/v1/onchain/transactions");
    const mine = new Set((await liveExits(alice, "?transactions=true")).flatMap((e) => e.transactions!.filter((p) => p.child!.origin.type === "wallet").map((p) => p.child!.info.txid)));
    expect(new Set(txs.filter((t) => t.is_cpfp).map((t) => t.txid))).to.deep.equal(mine);
  });

  it("claim/all sweeps every exit to an on-chain address in one transaction; the on-chain balance shows it", async () => {
    const before = await ok<OnchainBalance>(alice, "GET", "/api/v1/onchain/balance");
    const { address } = await ok<{ address: string }>(alice, "POST", "/api/v1/onchain/addresses/next");
    expect(await ok(alice, "POST", "/api/v1/exits/claim/all", { destination: address })).to.deep.equal({ message: "Exit claimed successfully" });
    const live = await liveExits(alice);
    expect(live.map((e) => e.state.type)).to.deep.equal(vtxos.map(() => "claim-in-progress"));
    const claimTxid = live[0]!.state.claim_txid as string;
    expect(live.every((e) => e.state.claim_txid === claimTxid)).to.equal(true);
    const claim = devnet.node.getTransaction(claimTxid)!;
    expect(claim.vin).to.have.length(vtxos.length);
    expect(claim.vout).to.have.length(1);
    const total = vtxos.reduce((t, v) => t + v.amount_sat, 0);
    const claimFee = total - Number(claim.vout[0]!.amountSat);
    expect(await ok<Balance>(alice, "GET", "/api/v1/wallet/balance")).to.deep.include({ pending_exit_sat: total });
    devnet.node.mine(1);
    const p = await ok<{ exits: unknown[]; done: boolean }>(alice, "POST", "/api/v1/exits/progress", {});
    expect(p).to.deep.include({ exits: [], done: true });
    expect(await liveExits(alice)).to.deep.equal([]);
    const finished = await ok<ExitStatus[]>(alice, "GET", "/api/v1/exits/status/finished");
    expect(finished.map((e) => [e.state.type, e.state.txid])).to.deep.equal(vtxos.map(() => ["claimed", claimTxid]));
    expect((await ok<Balance>(alice, "GET", "/api/v1/wallet/balance")).pending_exit_sat).to.equal(0);
    const after = await ok<OnchainBalance>(alice, "GET", "/api/v1/onchain/balance");
    expect(after.confirmed_sat - before.confirmed_sat).to.equal(total - claimFee);
    const movements = (await ok<Movement[]>(alice, "GET", "/api/v1/history")).filter((m) => m.subsystem.name === "bark.exit");
    expect(movements.map((m) => m.status)).to.deep.equal(vtxos.map(() => "successful"));

    // what the exit cost against the estimate made before it started: the claim exactly, the
    // children within 1 sat each (alice progresses first in every round, so she broadcast every
    // package and bob adopted the shared ones)
    const txs = await ok<WalletTx[]>(alice, "GET", "/api/v1/onchain/transactions");
    const children = txs.filter((t) => t.is_cpfp);
    expect(children).to.have.length(estimate.txs_to_broadcast);
    const childFees = children.reduce((s, t) => s + t.onchain_fee_sat!, 0);
    expect(claimFee).to.equal(estimate.claim_fee_sat);
    expect(Math.abs(childFees - estimate.exit_broadcast_fee_sat)).to.be.at.most(estimate.txs_to_broadcast);
  });

  it("bob claims his exits to an address that is not his wallet's", async () => {
    const external = "bcrt1qw508d6qejxtdg4y5r3zarvary0c5xw7kygt080";
    await ok(bob, "POST", "/api/v1/exits/claim/vtxos", { destination: external, vtxos: bobVtxos.map((v) => v.id), fee_rate: 2000 });
    devnet.node.mine(1);
    await ok(bob, "POST", "/api/v1/exits/progress", {});
    const finished = await ok<ExitStatus[]>(bob, "GET", "/api/v1/exits/status/finished");
    expect(finished.map((e) => e.state.type)).to.deep.equal(bobVtxos.map(() => "claimed"));
    const claim = devnet.node.getTransaction(finished[0]!.state.txid as string)!;
    expect(Number(claim.vout[0]!.amountSat)).to.equal(bobVtxos.reduce((t, v) => t + v.amount_sat, 0) - Number(claim.feeSat));
    // fee rate 2000 sat/kvB = 2 sat/vB
    expect(Number(claim.feeSat)).to.be.closeTo(2 * claim.vsize, 2);
    expect((await ok<WalletTx[]>(bob, "GET", "/api/v1/onchain/transactions")).map((t) => t.txid)).to.not.include(claim.txid);
  });
});
