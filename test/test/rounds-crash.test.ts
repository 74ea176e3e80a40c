import { expect } from "chai";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { faultPointLine } from "@tender/core";
import { COMPLETION_FAULT_POINTS, DELEGATED_FAULT_POINTS, INTERACTIVE_FAULT_POINTS } from "@tender/plugin-rounds";
import { cleanup, startDaemon, tempDatadir, type Daemon } from "../src/daemon-process.js";
import { boardToDaemon } from "./ark-harness.js";
import {
  ROUNDS_ENV, allVtxos, balance, createBody, history, ok, printLogsOnFailure, refreshFeeOf, rounds, roundsDaemonConfig, runRound, serverState,
  startRoundsDevnet, sum, until, vtxos, type DevnetWithArk, type Movement, type PendingRoundInfo,
} from "./rounds-harness.js";

/** The two board VTXOs every crash test's wallet refreshes. */
const AMOUNTS = [100_000n, 50_000n];
const TOTAL = Number(AMOUNTS.reduce((a, b) => a + b, 0n));

/** Resolves with the signal once the daemon's process has ended (a fault point kills it with SIGKILL). */
function killed(d: Daemon): Promise<NodeJS.Signals | null> {
  return new Promise((resolve) => {
    if (d.proc.exitCode !== null || d.proc.signalCode !== null) resolve(d.proc.signalCode);
    else d.proc.once("exit", (_code, signal) => resolve(signal));
  });
}

const alive = (d: Daemon) => d.proc.exitCode === null && d.proc.signalCode === null;

/**
 * Checks the money after a refresh ended: the wallet holds exactly the refreshed VTXO (or, when
 * the refresh failed, its inputs again), the server agrees on every state, nothing is both
 * refreshed and spendable and no sat is lost beyond the fee.
 */
async function expectConserved(devnet: DevnetWithArk, d: Daemon, inputs: readonly string[], m: Movement): Promise<void> {
  const fee = refreshFeeOf(TOTAL);
  const now = await vtxos(d);
  for (const v of now) expect(await serverState(devnet, v.id), `server state of the wallet's ${v.state.type} VTXO ${v.id}`).to.equal("spendable");
  expect(await balance(d)).to.deep.include({ spendable_sat: m.status === "successful" ? TOTAL - fee : TOTAL, pending_in_round_sat: 0 });
  expect(await rounds(d)).to.deep.equal([]);
  const all = await allVtxos(d);
  if (m.status === "successful") {
    expect(now.map((v) => [v.id, v.amount_sat])).to.deep.equal([[m.output_vtxos[0], TOTAL - fee]]);
    for (const id of inputs) {
      expect(all.find((v) => v.id === id)!.state.type, `wallet state of input ${id}`).to.equal("spent");
      expect(await serverState(devnet, id), `server state of input ${id}`).to.equal("spent");
    }
  } else {
    expect(now.map((v) => v.id).sort(), "the inputs are back, nothing new").to.deep.equal([...inputs].sort());
    expect(all).to.have.length(inputs.length);
  }
}

/**
 * Crash safety of refreshes: the daemon is SIGKILLed at each fault point of an interactive and of
 * a delegated refresh, restarted, and left to finish (more rounds triggered, blocks mined); then
 * the refresh has completed once and no sat is lost or both refreshed and spendable.
 */
describe("refreshes survive SIGKILL at every fault point (crash safety)", function () {
  this.timeout(600_000);
  let devnet: DevnetWithArk;
  let current: Daemon | undefined;
  const datadirs: string[] = [];

  before(async () => { devnet = await startRoundsDevnet("rounds-crash"); });
  afterEach(async function () {
    printLogsOnFailure(this, { daemon: current });
    if (current && alive(current)) await current.stop();
    current = undefined;
  });
  after(async () => {
    for (const dd of datadirs) cleanup(dd);
    await devnet?.stop();
  });

  /** A wallet of its own (a fresh seed) holding the two board VTXOs, in a daemon that dies at `point`. */
  async function crashingWallet(point: string): Promise<{ datadir: string; inputs: string[] }> {
    const datadir = tempDatadir("tenderd-rounds-crash-");
    datadirs.push(datadir);
    current = await startDaemon({ datadir, config: roundsDaemonConfig(), env: { ...ROUNDS_ENV, TENDER_FAULT_INJECT: point } });
    await ok(current, "POST", "/api/v1/wallet/create", createBody(devnet));
    const mnemonic = readFileSync(join(datadir, "mnemonic"), "utf8").trim();
    for (const a of AMOUNTS) await ok(current, "POST", "/api/v1/wallet/import-vtxo", { vtxos: [await boardToDaemon(current, devnet, mnemonic, a)] });
    return { datadir, inputs: (await vtxos(current)).map((v) => v.id) };
  }

  /** Runs rounds and mines until the daemon dies (at its fault point). */
  async function driveUntilKilled(d: Daemon, point: string): Promise<void> {
    const death = killed(d);
    for (let i = 0; i < 6 && alive(d); i++) {
      if (i % 2 === 0) await runRound(devnet);
      else devnet.node.mine(1);
      await new Promise((r) => setTimeout(r, 700));
    }
    expect(await death, `the daemon dies at ${point}`).to.equal("SIGKILL");
    expect(d.stderr(), `killed at ${point}, not elsewhere`).to.contain(faultPointLine(point));
  }

  /** Restarts the daemon and drives its refresh to its end: rounds while it waits for one, blocks while it waits for confirmations. */
  async function restartAndFinish(datadir: string): Promise<Movement> {
    current = await startDaemon({ datadir, config: roundsDaemonConfig(), env: ROUNDS_ENV });
    const d = current;
    return until("the refresh to end after the restart", async () => {
      const [m] = (await history(d)).filter((x) => x.subsystem.name === "bark.round");
      if (m && m.status !== "pending") return m;
      const [r] = await rounds(d);
      if (r?.status.status === "unconfirmed") devnet.node.mine(1);
      else await runRound(devnet);
      return undefined;
    }, 120_000);
  }

  for (const point of [...INTERACTIVE_FAULT_POINTS, ...COMPLETION_FAULT_POINTS]) {
    it(`interactive refresh killed at ${point}: completes after the restart, no sat lost or spent twice`, async () => {
      const { datadir, inputs } = await crashingWallet(point);
      const r = await ok<PendingRoundInfo>(current!, "POST", "/api/v1/wallet/refresh/all");
      expect(r.status).to.deep.equal({ status: "pending" });
      await driveUntilKilled(current!, point);
      const m = await restartAndFinish(datadir);
      expect(m.status).to.equal("successful");
      expect((await history(current!)).filter((x) => x.subsystem.name === "bark.round"), "one refresh").to.have.length(1);
      await expectConserved(devnet, current!, inputs, m);
    });
  }

  for (const point of [...DELEGATED_FAULT_POINTS, ...COMPLETION_FAULT_POINTS]) {
    it(`delegated refresh killed at ${point}: completes after the restart, no sat lost or spent twice`, async () => {
      const { datadir, inputs } = await crashingWallet(point);
      const d = current!;
      const answer = await d.api("POST", "/api/v1/wallet/refresh/delegated/vtxos", { body: { vtxos: inputs } }).then((x) => x, (e: Error) => e);
      if (point === "round-delegated:submit" || point === "round-delegated:submitted") expect(answer, "the daemon died during the request").to.be.instanceOf(Error);
      else expect((answer as { status: number }).status).to.equal(200);
      if (alive(d)) await driveUntilKilled(d, point);
      else expect(d.stderr()).to.contain(faultPointLine(point));
      const m = await restartAndFinish(datadir);
      expect(m.status).to.equal("successful");
      expect((await history(current!)).filter((x) => x.subsystem.name === "bark.round"), "one refresh").to.have.length(1);
      await expectConserved(devnet, current!, inputs, m);
    });
  }
});
