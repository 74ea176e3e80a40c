import { expect } from "chai";
import { faultPointLine } from "@tender/core";
import { ARKOOR_RECEIVE_FAULT_POINTS } from "@tender/plugin-ark";
import { cleanup, startDaemon, tempDatadir, type Daemon } from "../src/daemon-process.js";
import {
  BOB_MNEMONIC, CAROL_MNEMONIC, arkDaemonConfig, boardToDaemon, createBody, ok, spendable, startArkDevnet, until,
  type DevnetWithArk, type Movement, type VtxoInfo,
} from "./ark-harness.js";

/** Resolves when the daemon's process has ended by itself (a fault point killed it). */
async function exited(d: Daemon, ms = 30_000): Promise<void> {
  await until("the daemon to be killed at its fault point", async () => (d.proc.exitCode !== null || d.proc.signalCode !== null ? true : undefined), ms);
}

describe("an arkoor receive survives SIGKILL at every step (crash safety of the payee)", function () {
  this.timeout(240_000);
  let devnet: DevnetWithArk;
  let carol: Daemon;
  let bob: Daemon | undefined;
  const datadir = tempDatadir("tenderd-ark-receive-crash-");

  before(async () => {
    devnet = await startArkDevnet("ark-receive-crash-e2e");
    carol = await startDaemon({ config: arkDaemonConfig() });
    await ok(carol, "POST", "/api/v1/wallet/create", createBody(devnet, CAROL_MNEMONIC));
    await ok(carol, "POST", "/api/v1/wallet/import-vtxo", { vtxos: [await boardToDaemon(carol, devnet, CAROL_MNEMONIC, 200_000n)] });
  });
  after(async () => {
    await bob?.stop();
    cleanup(datadir);
    await carol.stop();
    cleanup(carol.datadir);
    await devnet.stop();
  });

  it("killed at each step of receiving a payment, the restarted payee holds it exactly once, with one receive movement", async () => {
    bob = await startDaemon({ datadir, config: arkDaemonConfig() });
    await ok(bob, "POST", "/api/v1/wallet/create", createBody(devnet, BOB_MNEMONIC));
    const { address } = await ok<{ address: string }>(bob, "POST", "/api/v1/wallet/addresses/next");
    await bob.stop();

    const amounts: number[] = [];
    for (const [i, point] of ARKOOR_RECEIVE_FAULT_POINTS.entries()) {
      const amount = 10_000 + i * 1_000;
      bob = await startDaemon({ datadir, config: arkDaemonConfig(), env: { TENDER_FAULT_INJECT: point } });
      await until("Bob connected", async () => ((await ok<{ connected: boolean }>(bob!, "GET", "/api/v1/wallet/connected")).connected ? true : undefined));
      await ok(carol, "POST", "/api/v1/wallet/send", { destination: address, amount_sat: amount });
      await exited(bob);
      expect(bob.stderr(), `the kill at ${point}`).to.contain(faultPointLine(point));
      amounts.push(amount);

      bob = await startDaemon({ datadir, config: arkDaemonConfig() });
      const total = amounts.reduce((s, a) => s + a, 0);
      await until(`Bob's payments after the kill at ${point}`, async () => ((await spendable(bob!)) === total ? true : undefined));
      // a moment for a second (wrong) delivery of the same payment to land, if there were one
      await ok(bob, "POST", "/api/v1/wallet/sync/mailbox");
      expect(await spendable(bob), `balance after the kill at ${point}`).to.equal(total);
      expect((await ok<VtxoInfo[]>(bob, "GET", "/api/v1/wallet/vtxos")).map((v) => v.amount_sat).sort(), `VTXOs after the kill at ${point}`).to.deep.equal([...amounts].sort());
      const history = await ok<Movement[]>(bob, "GET", "/api/v1/history");
      expect(history.map((m) => [m.subsystem.kind, m.status, m.effective_balance_sat]).sort(), `history after the kill at ${point}`)
        .to.deep.equal(amounts.map((a) => ["receive", "successful", a]).sort());
      await bob.stop();
    }
  });
});
