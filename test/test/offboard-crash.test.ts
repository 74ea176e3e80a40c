import { expect } from "chai";
import { faultPointLine } from "@tender/core";
import { cleanup, startDaemon, tempDatadir, type Daemon } from "../src/daemon-process.js";
import {
  allVtxos, boardAndRegister, expectedFee, externalAddress, fundedWallet, offboardDaemonConfig, offboardMovements, ok, receivedBy, startOffboardDevnet,
  until, type Balance, type DevnetWithArk,
} from "./offboard-harness.js";

/**
 * Every fault point of the offboard action, as each step starts and once its side effects are
 * done but before its outcome is persisted. A whole offboard runs `lock`, `prepare`, `finish`,
 * `broadcast`, `confirming`; a send-onchain runs the arkoor `split` and `register-split` between
 * `lock` and `prepare`. With 0 confirmations required (regtest), every step runs during the request.
 */
const WHOLE_STEPS = ["lock", "prepare", "finish", "broadcast", "confirming"];
const SEND_STEPS = ["lock", "split", "register-split", "prepare", "finish", "broadcast", "confirming"];
const points = (steps: readonly string[]) => steps.flatMap((s) => [`offboard-${s}:before`, `offboard-${s}:after`]);

const BOARD = 200_000;
const SEND = 80_000;

describe("offboards survive kill -9 at every checkpoint: no sats lost, nothing spent twice (issue 11)", function () {
  this.timeout(240_000);
  let devnet: DevnetWithArk;
  const datadirs: string[] = [];

  before(async () => { devnet = await startOffboardDevnet("offboard-crash"); });
  after(async () => {
    await devnet.stop();
    for (const dd of datadirs) cleanup(dd);
  });

  const exitOf = (d: Daemon) => new Promise<NodeJS.Signals | null>((resolve) => {
    if (d.proc.exitCode !== null || d.proc.signalCode !== null) resolve(d.proc.signalCode);
    else d.proc.once("exit", (_code, signal) => resolve(signal));
  });

  /** Kills the daemon at `point` during the request, restarts it and waits for the offboard to finish; returns the restarted daemon. */
  async function crashAndResume(point: string, request: (d: Daemon) => Promise<unknown>): Promise<{ second: Daemon; boardId: string }> {
    const datadir = tempDatadir();
    datadirs.push(datadir);
    const first = await startDaemon({ datadir, config: offboardDaemonConfig(), env: { TENDER_FAULT_INJECT: point } });
    await fundedWallet(first, devnet, [300_000n]);
    const boardId = await boardAndRegister(first, devnet, BOARD);
    devnet.node.mine(1); // the server pays offboards from confirmed coins
    const killed = exitOf(first);
    const answer = await request(first).catch((e: Error) => e);
    expect(answer, "the daemon died during the request").to.be.instanceOf(Error);
    expect(await killed).to.equal("SIGKILL");
    expect(first.stderr(), `killed at ${point}, not elsewhere`).to.contain(faultPointLine(point));
    const second = await startDaemon({ datadir, config: offboardDaemonConfig() });
    await until("the resumed offboard to finish", async () => {
      const ms = await offboardMovements(second);
      if (ms.some((m) => m.status === "successful")) return true;
      await ok(second, "POST", "/api/v1/wallet/sync");
      await new Promise((r) => setTimeout(r, 300));
      return undefined;
    }, 90_000);
    return { second, boardId };
  }

  /** Every VTXO the wallet holds as spendable is unspent on the server, and the ones it spent are not spendable there. */
  async function noDoubleSpend(d: Daemon): Promise<void> {
    for (const v of await allVtxos(d)) {
      const server = (await devnet.ark.server.ctx.store.getVtxo(v.id))?.state;
      if (v.state.type === "spendable") expect(server, `${v.id} spendable in the wallet`).to.equal("spendable");
      else expect(server, `${v.id} ${v.state.type} in the wallet`).to.not.equal("spendable");
    }
  }

  for (const point of points(WHOLE_STEPS)) {
    it(`offboard-all pays once and loses nothing when killed at ${point}`, async () => {
      const to = externalAddress();
      const { second, boardId } = await crashAndResume(point, (d) => d.api("POST", "/api/v1/wallet/offboard/all", { body: { address: to } }));
      try {
        const fee = await expectedFee(devnet, BigInt(BOARD), [BigInt(BOARD)]);
        const ms = await offboardMovements(second);
        expect(ms.map((m) => [m.subsystem.kind, m.status]), "exactly one offboard").to.deep.equal([["offboard", "successful"]]);
        expect(ms[0]!.input_vtxos).to.deep.equal([boardId]);
        expect(receivedBy(devnet, to), "the destination is paid exactly once").to.equal(BigInt(BOARD - fee));
        expect((await ok<Balance>(second, "GET", "/api/v1/wallet/balance")).spendable_sat).to.equal(0);
        expect((await allVtxos(second)).find((v) => v.id === boardId)?.state.type).to.equal("spent");
        await noDoubleSpend(second);
      } finally {
        await second.stop();
      }
    });
  }

  for (const point of points(SEND_STEPS)) {
    it(`send-onchain pays the amount once and keeps the change when killed at ${point}`, async () => {
      const to = externalAddress();
      const { second, boardId } = await crashAndResume(point, (d) => d.api("POST", "/api/v1/wallet/send-onchain", { body: { destination: to, amount_sat: SEND } }));
      try {
        const fee = await expectedFee(devnet, BigInt(SEND), [BigInt(BOARD)]);
        const ms = await offboardMovements(second);
        expect(ms.map((m) => [m.subsystem.kind, m.status]), "exactly one send-onchain").to.deep.equal([["send_onchain", "successful"]]);
        expect(ms[0]!.input_vtxos).to.deep.equal([boardId]);
        expect(receivedBy(devnet, to), "the destination is paid exactly once").to.equal(BigInt(SEND));
        const spendable = (await ok<{ id: string; amount_sat: number }[]>(second, "GET", "/api/v1/wallet/vtxos"));
        expect(spendable.map((v) => v.id).sort()).to.deep.equal([...ms[0]!.output_vtxos].sort());
        expect((await ok<Balance>(second, "GET", "/api/v1/wallet/balance")).spendable_sat, "the change").to.equal(BOARD - SEND - fee);
        await noDoubleSpend(second);
      } finally {
        await second.stop();
      }
    });
  }
});
