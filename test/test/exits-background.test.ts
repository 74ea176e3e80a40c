import { expect } from "chai";
import { appendFileSync } from "node:fs";
import { join } from "node:path";
import { cleanup, startDaemon, tempDatadir, type Daemon } from "../src/daemon-process.js";
import {
  boardAndRegister, exitDaemonConfig, fundOnchain, fundedWallet, liveExits, ok, payArk, startExitDevnet, until,
  type DevnetWithArk, type ExitStatus, type FeeEstimate,
} from "./exits-harness.js";

/**
 * What runs without the client: the background progress (while the Ark server is gone, never in
 * manual-sync mode, never claiming), the re-broadcast of an evicted package, and the fee estimate
 * of an exit under way and of a wallet without confirmed coins.
 */
describe("exits in the background, evicted packages, estimates under way", function () {
  this.timeout(300_000);
  let devnet: DevnetWithArk;
  const daemons: Daemon[] = [];
  const datadirs: string[] = [];

  before(async () => { devnet = await startExitDevnet("exits-background"); });
  after(async () => {
    for (const d of daemons) await d.stop().catch(() => undefined);
    await devnet.stop();
    for (const dd of datadirs) cleanup(dd);
  });

  const daemon = async (progressIntervalMs?: number, datadir = tempDatadir()) => {
    if (!datadirs.includes(datadir)) datadirs.push(datadir);
    const d = await startDaemon({ datadir, config: exitDaemonConfig(progressIntervalMs) });
    daemons.push(d);
    return d;
  };

  it("prices an exit without confirmed coins as unfundable, and an exit under way without its confirmed txs", async () => {
    const carol = await daemon();
    const dave = await daemon();
    await fundedWallet(carol, devnet, [150_000n]);
    await fundedWallet(dave, devnet, [150_000n]);
    await boardAndRegister(dave, devnet, 100_000);
    const received = await payArk(dave, carol, 50_000);
    const priced = await ok<FeeEstimate>(carol, "GET", "/api/v1/exits/fee");
    expect(priced.fundable).to.equal(true);
    // carol's on-chain coins are gone: the same exit cannot be funded
    await ok(carol, "POST", "/api/v1/onchain/drain", { destination: "bcrt1qw508d6qejxtdg4y5r3zarvary0c5xw7kygt080" });
    devnet.node.mine(1);
    const unfundable = await ok<FeeEstimate>(carol, "GET", `/api/v1/exits/fee?vtxo_ids=${received}`);
    expect(unfundable).to.deep.include({ fundable: false, txs_to_broadcast: priced.txs_to_broadcast, exit_broadcast_fee_sat: priced.exit_broadcast_fee_sat });
    expect(unfundable.exit_broadcast_fee_sat).to.be.greaterThan(0);
    // with coins again, one exit tx confirmed: it costs nothing any more
    await fundOnchain(carol, devnet, [60_000n]);
    await ok(carol, "POST", "/api/v1/exits/start/vtxos", { vtxos: [received] });
    await ok(carol, "POST", "/api/v1/exits/progress", {});
    devnet.node.mine(1);
    await ok(carol, "POST", "/api/v1/exits/progress", {});
    const under = await ok<FeeEstimate>(carol, "GET", `/api/v1/exits/fee?vtxo_ids=${received}&fee_rate_sat_per_vb=20`);
    expect(under.txs_to_broadcast).to.equal(priced.txs_to_broadcast - 2);
    expect(under.fee_rate_sat_per_vb).to.equal(20);
  });

  it("re-submits a package the mempool evicted", async () => {
    const erin = await daemon();
    await fundedWallet(erin, devnet, [200_000n]);
    const board = await boardAndRegister(erin, devnet, 100_000);
    await fundOnchain(erin, devnet, [30_000n]);
    await ok(erin, "POST", "/api/v1/exits/start/vtxos", { vtxos: [board] });
    await ok(erin, "POST", "/api/v1/exits/progress", {});
    const [status] = await liveExits(erin, "?transactions=true");
    const pkg = status!.transactions![0]!;
    expect(devnet.node.getTransaction(pkg.exit.txid)?.status.confirmed).to.equal(false);
    expect(devnet.node.evict(pkg.exit.txid)).to.include(pkg.child!.info.txid);
    expect(devnet.node.getTransaction(pkg.exit.txid)).to.equal(undefined);
    await ok(erin, "POST", "/api/v1/exits/progress", {});
    expect(devnet.node.getTransaction(pkg.exit.txid)?.status.confirmed, "the exit tx is back").to.equal(false);
    expect(devnet.node.getTransaction(pkg.child!.info.txid)?.status.confirmed, "with the same child").to.equal(false);
    devnet.node.mine(1);
    await ok(erin, "POST", "/api/v1/exits/progress", {});
    expect((await liveExits(erin)).map((e) => e.state.type)).to.deep.equal(["awaiting-delta"]);
  });

  it("progresses exits by itself while the Ark server is down, up to claimable but never claiming", async () => {
    const frank = await daemon(300);
    await fundedWallet(frank, devnet, [200_000n]);
    const board = await boardAndRegister(frank, devnet, 100_000);
    await fundOnchain(frank, devnet, [30_000n]);
    expect((await fetch(`${devnet.arkControlUrl}/stop`, { method: "POST" })).status).to.equal(200);
    try {
      await ok(frank, "POST", "/api/v1/exits/start/vtxos", { vtxos: [board] });
      await until("the exit to become claimable by itself", async () => {
        const [e] = await liveExits(frank);
        if (e?.state.type === "claimable") return e;
        devnet.node.mine(1);
        await new Promise((r) => setTimeout(r, 400));
        return undefined;
      }, 90_000);
      devnet.node.mine(3);
      await new Promise((r) => setTimeout(r, 1_500));
      expect((await liveExits(frank)).map((e) => e.state.type), "never claimed by the daemon").to.deep.equal(["claimable"]);
    } finally {
      expect((await fetch(`${devnet.arkControlUrl}/start`, { method: "POST" })).status).to.equal(200);
    }
  });

  it("does not progress in daemon_manual_sync mode", async () => {
    const grace = await daemon(300);
    await fundedWallet(grace, devnet, [200_000n]);
    const board = await boardAndRegister(grace, devnet, 100_000);
    await grace.stop();
    appendFileSync(join(grace.datadir, "config.toml"), "daemon_manual_sync = true\n");
    const again = await daemon(300, grace.datadir);
    await ok(again, "POST", "/api/v1/exits/start/vtxos", { vtxos: [board] });
    await new Promise((r) => setTimeout(r, 2_000));
    expect((await ok<ExitStatus[]>(again, "GET", "/api/v1/exits/status/all")).map((e) => e.state.type)).to.deep.equal(["start"]);
    await ok(again, "POST", "/api/v1/exits/progress", {});
    expect((await liveExits(again)).map((e) => e.state.type)).to.deep.equal(["processing"]);
  });
});
