import { expect } from "chai";
import { faultPointLine } from "@tender/core";
import { ARKOOR_SEND_FAULT_POINTS, ARKOOR_SEND_FIRST_COMMIT_FAULT_POINTS } from "@tender/plugin-ark";
import { cleanup, runTenderd, startDaemon, tempDatadir, type Daemon } from "../src/daemon-process.js";
import {
  BOB_MNEMONIC, CAROL_MNEMONIC, arkDaemonConfig, arkoorSendRows, boardToDaemon, createBody, ok, spendable, startArkDevnet, until,
  type DevnetWithArk, type Movement, type VtxoInfo,
} from "./ark-harness.js";

/** Resolves when the daemon's process has ended by itself (a fault point killed it). */
async function exited(d: Daemon, ms = 30_000): Promise<void> {
  await until("the daemon to be killed at its fault point", async () => (d.proc.exitCode !== null || d.proc.signalCode !== null ? true : undefined), ms);
}

describe("an arkoor send survives SIGKILL at every checkpoint (crash safety)", function () {
  this.timeout(240_000);
  let devnet: DevnetWithArk;
  let bob: Daemon;
  const datadir = tempDatadir("tenderd-ark-crash-");
  let carol: Daemon | undefined;

  before(async () => {
    devnet = await startArkDevnet("ark-crash-e2e");
    bob = await startDaemon({ config: arkDaemonConfig() });
    await ok(bob, "POST", "/api/v1/wallet/create", createBody(devnet, BOB_MNEMONIC));
  });
  after(async () => {
    if (carol) await carol.stop();
    cleanup(datadir);
    await bob.stop();
    cleanup(bob.datadir);
    await devnet.stop();
  });

  it("killed before the send's first commit, no trace of it; killed at each later step in turn, the restarted daemon finishes the one payment: Bob paid once, no sats lost, one movement", async () => {
    carol = await startDaemon({ datadir, config: arkDaemonConfig() });
    await ok(carol, "POST", "/api/v1/wallet/create", createBody(devnet, CAROL_MNEMONIC));
    const hex = await boardToDaemon(carol, devnet, CAROL_MNEMONIC, 200_000n);
    await ok(carol, "POST", "/api/v1/wallet/import-vtxo", { vtxos: [hex] });
    const { address } = await ok<{ address: string }>(bob, "POST", "/api/v1/wallet/addresses/next");
    await carol.stop();

    // killed inside the transaction that stores a new send: no trace of it, nothing locked or spent
    for (const point of ARKOOR_SEND_FIRST_COMMIT_FAULT_POINTS) {
      carol = await startDaemon({ datadir, config: arkDaemonConfig(), env: { TENDER_FAULT_INJECT: point } });
      const attempt = carol.api("POST", "/api/v1/wallet/send", { body: { destination: address, amount_sat: 25_000 } });
      expect(await attempt.then(() => "answered", () => "connection lost")).to.equal("connection lost");
      await exited(carol);
      expect(carol.stderr(), `the kill at ${point}`).to.contain(faultPointLine(point));
      carol = await startDaemon({ datadir, config: arkDaemonConfig() });
      expect(await ok<Movement[]>(carol, "GET", "/api/v1/history"), `history after the kill at ${point}`).to.deep.equal([]);
      expect((await ok<VtxoInfo[]>(carol, "GET", "/api/v1/wallet/vtxos")).map((v) => [v.amount_sat, v.state.type])).to.deep.equal([[200_000, "spendable"]]);
      await carol.stop();
    }

    // each start kills itself at the first remaining fault point; the next start resumes from there
    const points = ARKOOR_SEND_FAULT_POINTS.filter((p) => !ARKOOR_SEND_FIRST_COMMIT_FAULT_POINTS.includes(p));
    expect(points[0], "the first point after the first commit").to.equal("ark-send:register-inputs");
    carol = await startDaemon({ datadir, config: arkDaemonConfig(), env: { TENDER_FAULT_INJECT: points.join(",") } });
    const sending = carol.api("POST", "/api/v1/wallet/send", { body: { destination: address, amount_sat: 25_000 } });
    expect(await sending.then(() => "answered", () => "connection lost")).to.equal("connection lost");
    await exited(carol);
    expect(carol.stderr(), "the first run dies at the first checkpoint").to.contain(faultPointLine(points[0]!));
    for (let i = 1; i < points.length; i++) {
      // the action resumes when the wallet loads, so the daemon may die before it serves anything
      const run = await runTenderd(["--datadir", datadir, "--port", "0", "--config", datadir + ".tenderd.json"], { TENDER_TEST_ANY_PORT: "1", TENDER_FAULT_INJECT: points.slice(i).join(",") }, 60_000);
      expect(run.code, `expected a SIGKILL at ${points[i]}:\n${run.stderr}`).to.equal(null);
      // the resumed action dies at the next checkpoint, not at a later one it skipped to
      expect(run.stderr, `expected the kill at ${points[i]}`).to.contain(faultPointLine(points[i]!));
      if (points[i] === "ark-send:deliver") {
        // what the delivery is made from was saved first: the package's signatures, not its VTXOs
        // (the next start rebuilds them in a fresh process from these and the stored inputs)
        const [row] = await arkoorSendRows(datadir);
        const state = JSON.parse(row!.state) as { signatures: unknown[][]; signed: unknown };
        expect([row!.step, state.signed, state.signatures.flat().length > 0], "the action row killed while delivering").to.deep.equal(["deliver", null, true]);
      }
    }
    carol = await startDaemon({ datadir, config: arkDaemonConfig() });

    await until("Bob's payment", async () => ((await spendable(bob)) > 0 ? true : undefined));
    expect((await ok<VtxoInfo[]>(bob, "GET", "/api/v1/wallet/vtxos")).map((v) => v.amount_sat)).to.deep.equal([25_000]);
    await until("Carol's send to finish", async () => {
      const [m] = await ok<Movement[]>(carol!, "GET", "/api/v1/history");
      return m?.status === "successful" ? true : undefined;
    });
    const history = await ok<Movement[]>(carol, "GET", "/api/v1/history");
    expect(history.map((m) => [m.subsystem.kind, m.status, m.effective_balance_sat])).to.deep.equal([["send", "successful", -25_000]]);
    const vtxos = await ok<VtxoInfo[]>(carol, "GET", "/api/v1/wallet/vtxos");
    expect(vtxos.map((v) => [v.amount_sat, v.state.type])).to.deep.equal([[87_500, "spendable"], [87_500, "spendable"]]);
    expect(await spendable(carol)).to.equal(175_000);

    // the wallet keeps working: a second payment goes through at once
    await ok(carol, "POST", "/api/v1/wallet/send", { destination: address, amount_sat: 5_000 });
    await until("Bob's second payment", async () => ((await spendable(bob)) === 30_000 ? true : undefined));
    expect(await spendable(carol)).to.equal(170_000);
  });
});
