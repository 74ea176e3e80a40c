import { expect } from "chai";
import { faultPointLine } from "@tender/core";
import { cleanup, startDaemon, tempDatadir, type Daemon } from "../src/daemon-process.js";
import {
  boardAndRegister, exitDaemonConfig, fundOnchain, fundedWallet, ok, startExitDevnet,
  type DevnetWithArk, type ExitStatus, type ExitProgress, type WalletTx,
} from "./exits-harness.js";

interface OnchainBalance { total_sat: number; confirmed_sat: number }

/**
 * Every checkpoint of an exit: its registration, each state it reaches, a CPFP child stored and
 * broadcast, a replacement child (RBF) stored and broadcast, the claim stored and broadcast.
 */
const POINTS = [
  "exit-start:recorded", "exit-state:processing", "exit-child:funded", "exit-child:broadcast", "exit-child:replacement-funded",
  "exit-child:replacement-broadcast", "exit-state:awaiting-delta", "exit-state:claimable", "exit-claim:recorded", "exit-claim:broadcast",
  "exit-state:claimed",
];
const DEFAULT_FEES = { 1: 20, 3: 10, 6: 5, 144: 1 };

/**
 * Drives the exits of `d` to claimed from wherever they are: start, progress (with one rise of
 * the fast fee rate after the first child is out, so its package is replaced), mining, claim to
 * `address`. Each call may be the one that kills the daemon.
 */
async function driveToClaimed(d: Daemon, devnet: DevnetWithArk, address: string, fees: { raised: boolean }): Promise<void> {
  await ok(d, "POST", "/api/v1/exits/start/all");
  for (let round = 0; round < 80; round++) {
    const p = await ok<ExitProgress>(d, "POST", "/api/v1/exits/progress", {});
    const finished = await ok<ExitStatus[]>(d, "GET", "/api/v1/exits/status/finished");
    if (p.exits.length === 0 && finished.length > 0) return;
    if (p.exits.some((e) => e.state.type === "claimable")) {
      await ok(d, "POST", "/api/v1/exits/claim/all", { destination: address });
      devnet.node.mine(1);
      continue;
    }
    if (!fees.raised && p.exits.some((e) => JSON.stringify(e.state).includes("awaiting-confirmation"))) {
      fees.raised = true;
      devnet.node.setFeeEstimates({ ...DEFAULT_FEES, 1: 45 });
      await ok(d, "POST", "/api/v1/exits/progress", {});
    }
    devnet.node.mine(1);
  }
  throw new Error("the exits did not end claimed");
}

describe("exits survive kill -9 at every checkpoint (persisted before broadcast, resumed after)", function () {
  this.timeout(600_000);
  let devnet: DevnetWithArk;
  const datadirs: string[] = [];

  before(async () => { devnet = await startExitDevnet("exits-crash"); });
  after(async () => {
    await devnet.stop();
    for (const dd of datadirs) cleanup(dd);
  });

  const exitOf = (d: Daemon) => new Promise<NodeJS.Signals | null>((resolve) => {
    if (d.proc.exitCode !== null || d.proc.signalCode !== null) resolve(d.proc.signalCode);
    else d.proc.once("exit", (_code, signal) => resolve(signal));
  });

  for (const point of POINTS) {
    it(`ends claimed with no sats lost when killed at ${point}`, async () => {
      devnet.node.setFeeEstimates(DEFAULT_FEES);
      const datadir = tempDatadir();
      datadirs.push(datadir);
      const setup = await startDaemon({ datadir, config: exitDaemonConfig() });
      await fundedWallet(setup, devnet, [200_000n]);
      const board = await boardAndRegister(setup, devnet, 100_000);
      const amount = (await ok<{ id: string; amount_sat: number }[]>(setup, "GET", "/api/v1/wallet/vtxos")).find((v) => v.id === board)!.amount_sat;
      await fundOnchain(setup, devnet, [40_000n]);
      const { address } = await ok<{ address: string }>(setup, "POST", "/api/v1/onchain/addresses/next");
      const before = await ok<OnchainBalance>(setup, "GET", "/api/v1/onchain/balance");
      await setup.stop();

      const first = await startDaemon({ datadir, config: exitDaemonConfig(), env: { TENDER_FAULT_INJECT: point } });
      const killed = exitOf(first);
      const fees = { raised: false };
      const outcome = await driveToClaimed(first, devnet, address, fees).then(() => "finished", (e: Error) => e);
      expect(outcome, "the daemon died on the way").to.be.instanceOf(Error);
      expect(await killed).to.equal("SIGKILL");
      expect(first.stderr(), `killed at ${point}, not elsewhere`).to.contain(faultPointLine(point));

      const second = await startDaemon({ datadir, config: exitDaemonConfig() });
      try {
        await driveToClaimed(second, devnet, address, fees);
        const finished = await ok<ExitStatus[]>(second, "GET", "/api/v1/exits/status/finished");
        expect(finished.map((e) => [e.vtxo_id, e.state.type])).to.deep.equal([[board, "claimed"]]);
        // the claim paid the wallet: what it holds now is what it held, plus the VTXO, minus the
        // fees of its CPFP children and of the claim, and every coin of it is spendable
        await ok(second, "POST", "/api/v1/onchain/sync");
        const claim = devnet.node.getTransaction(finished[0]!.state.txid as string)!;
        const claimFee = amount - Number(claim.vout[0]!.amountSat);
        const txs = await ok<WalletTx[]>(second, "GET", "/api/v1/onchain/transactions");
        const childFees = txs.filter((t) => t.is_cpfp).reduce((s, t) => s + t.onchain_fee_sat!, 0);
        expect(txs.filter((t) => t.is_cpfp).every((t) => devnet.node.getTransaction(t.txid)?.status.confirmed), "every listed child is mined").to.equal(true);
        const after = await ok<OnchainBalance>(second, "GET", "/api/v1/onchain/balance");
        expect(after.total_sat).to.equal(after.confirmed_sat);
        expect(after.confirmed_sat).to.equal(before.confirmed_sat + amount - childFees - claimFee);
        const utxos = await ok<{ amount_sat: number }[]>(second, "GET", "/api/v1/onchain/utxos");
        expect(utxos.reduce((s, u) => s + u.amount_sat, 0)).to.equal(after.confirmed_sat);
        const drained = await ok<{ txid: string }>(second, "POST", "/api/v1/onchain/drain", { destination: "bcrt1qw508d6qejxtdg4y5r3zarvary0c5xw7kygt080" });
        const drain = devnet.node.getTransaction(drained.txid)!;
        expect(Number(drain.vout[0]!.amountSat) + Number(drain.feeSat), "no coin is held back").to.equal(after.confirmed_sat);
        expect(second.stderr()).to.not.match(/refused/);
      } finally {
        await second.stop();
      }
    });
  }
});
