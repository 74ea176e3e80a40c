import { expect } from "chai";
import { faultPointLine } from "@tender/core";
import { cleanup, startDaemon, tempDatadir, type Daemon } from "../src/daemon-process.js";
import {
  BOARD_DAEMON_CONFIG, REQUIRED_CONFIRMATIONS, fundedWallet, ok, startBoardDevnet, until, type DevnetWithArk, type Movement, type PendingBoardInfo,
} from "./boards-harness.js";

interface OnchainBalance { total_sat: number }

/**
 * Every fault point of the board action: each step (`fund`, `cosign`, `record`, `broadcast`,
 * `confirming`, `register`) as it starts and once its side effects are done but before its outcome
 * is persisted. The first four run during the request; `confirming` starts in the background right
 * after the broadcast (the request may or may not have answered by then); `register` runs after the
 * server's confirmations.
 */
const STEPS = ["fund", "cosign", "record", "broadcast", "confirming", "register"];
const POINTS = STEPS.flatMap((step) => [`board-${step}:before`, `board-${step}:after`]);

describe("boards survive kill -9 at their checkpoints (persisted re-entrant actions, issue 6 crash safety)", function () {
  this.timeout(180_000);
  let devnet: DevnetWithArk;
  const datadirs: string[] = [];

  before(async () => { devnet = await startBoardDevnet("boards-crash"); });
  after(async () => {
    await devnet.stop();
    for (const dd of datadirs) cleanup(dd);
  });

  const exitOf = (d: Daemon) => new Promise<NodeJS.Signals | null>((resolve) => {
    if (d.proc.exitCode !== null || d.proc.signalCode !== null) resolve(d.proc.signalCode);
    else d.proc.once("exit", (_code, signal) => resolve(signal));
  });

  for (const point of POINTS) {
    it(`loses no sats and boards exactly once when killed at ${point}`, async () => {
      const datadir = tempDatadir();
      datadirs.push(datadir);
      const first = await startDaemon({ datadir, config: BOARD_DAEMON_CONFIG, env: { TENDER_FAULT_INJECT: point } });
      await fundedWallet(first, devnet, [300_000n]);
      const killed = exitOf(first);
      const answer = await first.api("POST", "/api/v1/boards/board-amount", { body: { amount_sat: 200_000 } }).catch((e: Error) => e);
      if (point.startsWith("board-register")) {
        // The request itself succeeds; the crash comes when the daemon registers in the background.
        expect(answer).to.not.be.instanceOf(Error);
        devnet.node.mine(REQUIRED_CONFIRMATIONS);
      } else if (!point.startsWith("board-confirming")) {
        expect(answer, "the daemon died during the request").to.be.instanceOf(Error);
      }
      expect(await killed).to.equal("SIGKILL");
      expect(first.stderr(), `killed at ${point}, not elsewhere`).to.contain(faultPointLine(point));

      const second = await startDaemon({ datadir, config: BOARD_DAEMON_CONFIG });
      try {
        // The resumed action broadcasts (if it had not) and waits; mine until the board registers.
        const done = await until("the resumed board to register", async () => {
          const boards = (await ok<Movement[]>(second, "GET", "/api/v1/history")).filter((m) => m.subsystem.name === "bark.board");
          if (boards.some((m) => m.status === "successful")) return boards;
          if ((await ok<PendingBoardInfo[]>(second, "GET", "/api/v1/boards/pending")).length > 0) devnet.node.mine(1);
          await new Promise((r) => setTimeout(r, 300));
          return undefined;
        }, 40_000);
        expect(done, "exactly one board movement").to.have.length(1);
        const board = done[0]!;
        expect(board.intended_balance_sat).to.equal(200_000);
        expect((await devnet.ark.server.ctx.store.getVtxo(board.output_vtxos[0]!))?.state).to.equal("spendable");
        // The faucet coin paid one funding tx only: what is left is 100 000 minus that tx's fee.
        await ok(second, "POST", "/api/v1/onchain/sync");
        const onchainFee = board.metadata?.onchain_fee_sat as number;
        expect((await ok<OnchainBalance>(second, "GET", "/api/v1/onchain/balance")).total_sat).to.equal(100_000 - onchainFee);
        const anchorTxid = String(board.metadata?.chain_anchor).split(":")[0]!;
        expect(devnet.node.getTransaction(anchorTxid)?.status.confirmed).to.equal(true);
      } finally {
        await second.stop();
      }
    });
  }
});
