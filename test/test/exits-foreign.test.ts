import { expect } from "chai";
import { decodeTx, decodeVtxo, encodeTx, exitPlan, formatOutPoint, fromHex, generateMnemonic, toHex } from "@tender/ark-protocol";
import { createBody } from "./ark-harness.js";
import { cleanup, startDaemon, tempDatadir, type Daemon } from "../src/daemon-process.js";
import {
  boardAndRegister, exitDaemonConfig, fundOnchain, fundedWallet, liveExits, ok, progressUntilClaimable, startExitDevnet, until,
  type Balance, type DevnetWithArk, type ExitStatus, type Movement, type VtxoInfo,
} from "./exits-harness.js";

const FOREIGN = "bcrt1qw508d6qejxtdg4y5r3zarvary0c5xw7kygt080";

/**
 * Exits the wallet did not start, and CPFP children that need several coins: a VTXO whose exit
 * chain someone else put on chain is found by the daemon's sync, or by a recovery from the seed,
 * and carried to claimed; a wallet holding only small coins pays a package with several of them.
 */
describe("exits: VTXOs exited by someone else, CPFP children paid by several coins", function () {
  this.timeout(300_000);
  let devnet: DevnetWithArk;
  const daemons: Daemon[] = [];
  const datadirs: string[] = [];

  before(async () => { devnet = await startExitDevnet("exits-foreign"); });
  after(async () => {
    for (const d of daemons) await d.stop().catch(() => undefined);
    await devnet.stop();
    for (const dd of datadirs) cleanup(dd);
  });

  const daemon = async (progressIntervalMs?: number) => {
    const datadir = tempDatadir();
    datadirs.push(datadir);
    const d = await startDaemon({ datadir, config: exitDaemonConfig(progressIntervalMs) });
    daemons.push(d);
    return d;
  };

  it("detects a VTXO whose exit chain someone else mined, exits it to claimable in the background and claims it; its sibling stays spendable", async () => {
    const alice = await daemon(300);
    await fundedWallet(alice, devnet, [400_000n]);
    const exited = await boardAndRegister(alice, devnet, 100_000);
    const kept = await boardAndRegister(alice, devnet, 60_000);
    expect(await liveExits(alice)).to.deep.equal([]);

    // someone else broadcasts the VTXO's exit chain, built from its exported encoding alone
    const { encoded } = await ok<{ encoded: string }>(alice, "GET", `/api/v1/wallet/vtxos/${exited}/encoded`);
    const plan = exitPlan(decodeVtxo(fromHex(encoded)));
    expect(plan.at(-1)!.txid).to.equal(exited.split(":")[0]);
    devnet.node.mineTransactions(plan.map((s) => toHex(encodeTx(s.tx))));
    expect(devnet.node.getTxStatus(plan.at(-1)!.txid)?.confirmed).to.equal(true);

    // the background sync sees it at the new tip: an exit of its own, no CPFP needed
    const found = await until("the foreign exit detected", async () => (await liveExits(alice)).find((e) => e.vtxo_id === exited), 30_000);
    expect(found.state.type).to.be.oneOf(["start", "processing", "awaiting-delta"]);
    expect((await liveExits(alice)).map((e) => e.vtxo_id), "the untouched VTXO is not exited").to.deep.equal([exited]);
    const movements = await ok<Movement[]>(alice, "GET", "/api/v1/history");
    expect(movements.filter((m) => m.subsystem.name === "bark.exit").map((m) => [m.status, m.input_vtxos])).to.deep.equal([["pending", [exited]]]);

    await until("claimable", async () => {
      const [e] = await liveExits(alice);
      if (e?.state.type === "claimable") return e;
      devnet.node.mine(1);
      await new Promise((r) => setTimeout(r, 300));
      return undefined;
    }, 90_000);
    const status = await ok<ExitStatus>(alice, "GET", `/api/v1/exits/status/vtxo/${exited}?transactions=true`);
    expect(status.transactions!.map((t) => t.exit.txid)).to.deep.equal(plan.map((s) => s.txid));
    const vtxos = await ok<VtxoInfo[]>(alice, "GET", "/api/v1/wallet/vtxos?all=true");
    expect(vtxos.find((v) => v.id === exited)?.state.type).to.equal("exited");
    expect(vtxos.find((v) => v.id === kept)?.state.type).to.equal("spendable");
    const balance = await ok<Balance>(alice, "GET", "/api/v1/wallet/balance");
    expect([balance.spendable_sat, balance.pending_exit_sat]).to.deep.equal([60_000, 100_000]);

    await ok(alice, "POST", "/api/v1/onchain/sync");
    const before = await ok<{ confirmed_sat: number }>(alice, "GET", "/api/v1/onchain/balance");
    const { address } = await ok<{ address: string }>(alice, "POST", "/api/v1/onchain/addresses/next");
    await ok(alice, "POST", "/api/v1/exits/claim/all", { destination: address });
    devnet.node.mine(1);
    await until("claimed", async () => {
      await ok(alice, "POST", "/api/v1/exits/progress", {});
      return (await ok<ExitStatus>(alice, "GET", `/api/v1/exits/status/vtxo/${exited}`)).state.type === "claimed" || undefined;
    }, 30_000);
    await ok(alice, "POST", "/api/v1/onchain/sync");
    const after = await ok<{ confirmed_sat: number }>(alice, "GET", "/api/v1/onchain/balance");
    expect(after.confirmed_sat - before.confirmed_sat, "the VTXO amount less the claim fee").to.be.within(95_000, 99_999);
    expect((await ok<Balance>(alice, "GET", "/api/v1/wallet/balance")).pending_exit_sat).to.equal(0);
    const done = await ok<Movement[]>(alice, "GET", "/api/v1/history");
    expect(done.filter((m) => m.subsystem.name === "bark.exit").map((m) => m.status)).to.deep.equal(["successful"]);
  });

  it("POST /exits/progress finds a VTXO exited by someone else at the new tip and takes it to awaiting-delta with no child of its own", async () => {
    const bob = await daemon();
    await fundedWallet(bob, devnet, [200_000n]);
    const board = await boardAndRegister(bob, devnet, 80_000);
    await fundOnchain(bob, devnet, [50_000n]);
    const { encoded } = await ok<{ encoded: string }>(bob, "GET", `/api/v1/wallet/vtxos/${board}/encoded`);
    const plan = exitPlan(decodeVtxo(fromHex(encoded)));
    expect(plan.length).to.equal(1);
    const p = await ok<{ exits: { vtxo_id: string }[] }>(bob, "POST", "/api/v1/exits/progress", {});
    expect(p.exits, "nothing on chain yet: no exit").to.deep.equal([]);
    devnet.node.mineTransactions(plan.map((s) => toHex(encodeTx(s.tx))));
    const after = await ok<{ exits: { vtxo_id: string; state: { type: string } }[] }>(bob, "POST", "/api/v1/exits/progress", {});
    expect(after.exits.map((e) => e.vtxo_id)).to.deep.equal([board]);
    expect(after.exits[0]!.state.type).to.equal("awaiting-delta");
    const [status] = await liveExits(bob, "?transactions=true");
    expect(status!.transactions!.map((t) => t.child?.origin.type ?? null), "the wallet paid no child").to.not.include("wallet");
    await progressUntilClaimable(devnet, [bob]);
  });

  it("a wallet recovered from its seed finds a VTXO exited on chain while it was gone, starts its exit and claims it", async () => {
    const erin = await daemon();
    const mnemonic = generateMnemonic();
    const created = await erin.api("POST", "/api/v1/wallet/create", { body: createBody(devnet, mnemonic) });
    expect(created.status, created.text).to.equal(200);
    await fundOnchain(erin, devnet, [200_000n]);
    const board = await boardAndRegister(erin, devnet, 70_000);
    const { encoded } = await ok<{ encoded: string }>(erin, "GET", `/api/v1/wallet/vtxos/${board}/encoded`);
    const { fingerprint } = await ok<{ fingerprint: string }>(erin, "GET", "/api/v1/wallet");
    expect(await ok(erin, "DELETE", "/api/v1/wallet", { dangerous: true, fingerprint })).to.deep.equal({ deleted: true, message: "Wallet deleted" });

    // while the wallet is gone, someone puts the VTXO's exit chain on chain
    const plan = exitPlan(decodeVtxo(fromHex(encoded)));
    devnet.node.mineTransactions(plan.map((s) => toHex(encodeTx(s.tx))));
    devnet.node.mine(1);

    expect(await ok(erin, "POST", "/api/v1/wallet/create", createBody(devnet, mnemonic))).to.deep.equal({ fingerprint });
    const stored = (await ok<VtxoInfo[]>(erin, "GET", "/api/v1/wallet/vtxos?all=true")).map((v) => [v.id, v.state.type]);
    expect(stored, "recovered as exited").to.deep.equal([[board, "exited"]]);
    const exits = await liveExits(erin);
    expect(exits.map((e) => [e.vtxo_id, e.state.type]), "the recovery started its exit").to.deep.equal([[board, "start"]]);
    expect((await ok<Balance>(erin, "GET", "/api/v1/wallet/balance")).pending_exit_sat).to.equal(70_000);

    await progressUntilClaimable(devnet, [erin]);
    const { address } = await ok<{ address: string }>(erin, "POST", "/api/v1/onchain/addresses/next");
    await ok(erin, "POST", "/api/v1/exits/claim/all", { destination: address });
    devnet.node.mine(1);
    await until("claimed", async () => {
      await ok(erin, "POST", "/api/v1/exits/progress", {});
      return (await ok<ExitStatus>(erin, "GET", `/api/v1/exits/status/vtxo/${board}`)).state.type === "claimed" || undefined;
    }, 30_000);
    expect((await ok<Balance>(erin, "GET", "/api/v1/wallet/balance")).pending_exit_sat).to.equal(0);
  });

  it("funds a CPFP child with several small coins when no single coin pays the package, and the exit goes on to claimed", async () => {
    const carol = await daemon();
    await fundedWallet(carol, devnet, [200_000n]);
    const board = await boardAndRegister(carol, devnet, 100_000);
    await ok(carol, "POST", "/api/v1/onchain/drain", { destination: FOREIGN });
    devnet.node.mine(1);
    // five coins of 2,500 sat: at 20 sat/vB the package (exit tx + child) costs more than one
    await fundOnchain(carol, devnet, [2_500n, 2_500n, 2_500n, 2_500n, 2_500n]);
    const coins = await ok<{ confirmed_sat: number }>(carol, "GET", "/api/v1/onchain/balance");
    expect(coins.confirmed_sat).to.equal(12_500);

    await ok(carol, "POST", "/api/v1/exits/start/vtxos", { vtxos: [board] });
    const p = await ok<{ exits: { error?: unknown }[] }>(carol, "POST", "/api/v1/exits/progress", { fee_rate: 20_000 });
    expect(p.exits.map((e) => e.error)).to.deep.equal([undefined]);
    const [status] = await liveExits(carol, "?transactions=true");
    const pkg = status!.transactions!.at(-1)!;
    expect(pkg.child, "a child carries the exit tx").to.not.equal(null);
    const child = decodeTx(fromHex(pkg.child!.info.tx));
    const coinInputs = child.inputs.filter((i) => formatOutPoint(i.prevout).split(":")[0] !== pkg.exit.txid);
    const fee = pkg.child!.fee_info!.total_fee_sat;
    expect(fee, "the package fee exceeds any single coin").to.be.greaterThan(2_500);
    expect(child.inputs.length - coinInputs.length, "one input is the exit tx's anchor").to.equal(1);
    expect(coinInputs.length, "coins spent besides the anchor").to.be.greaterThan(1);
    expect(devnet.node.getTxStatus(pkg.child!.info.txid)?.confirmed).to.equal(false);

    await progressUntilClaimable(devnet, [carol]);
    const { address } = await ok<{ address: string }>(carol, "POST", "/api/v1/onchain/addresses/next");
    await ok(carol, "POST", "/api/v1/exits/claim/all", { destination: address });
    devnet.node.mine(1);
    await until("claimed", async () => {
      await ok(carol, "POST", "/api/v1/exits/progress", {});
      return (await ok<ExitStatus[]>(carol, "GET", "/api/v1/exits/status/finished")).some((e) => e.vtxo_id === board && e.state.type === "claimed") || undefined;
    }, 30_000);
  });
});
