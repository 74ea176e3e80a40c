import { expect } from "chai";
import { faultPointLine } from "@tender/core";
import { cleanup, startDaemon, tempDatadir, type Daemon } from "../src/daemon-process.js";
import {
  allVtxos, boardAndRegister, expectedFee, externalAddress, fundedWallet, offboardDaemonConfig, offboardMovements, ok, receivedBy, startOffboardDevnet,
  until, type Balance, type DevnetWithArk, type Movement,
} from "./offboard-harness.js";

const BOARD = 150_000;
/** The server's offboard sessions (and its recent fee estimates) last one second here. */
const SESSION_MS = 1_000;

/**
 * The client recovery paths of an offboard: a session lost between prepare and finish (prepared
 * again, or the tx adopted from the chain), a re-prepare refused for a stale fee rate (cancelled,
 * inputs unlocked), an evicted tx (re-broadcast), and a tx missing past the grace period
 * (reported lost, inputs kept locked).
 */
describe("offboard recovery paths (issue 11)", function () {
  this.timeout(180_000);
  let devnet: DevnetWithArk;
  const daemons: Daemon[] = [];

  before(async () => {
    devnet = await startOffboardDevnet("offboard-recovery", {
      offboardSessionTimeoutMs: SESSION_MS, offboardCheckIntervalMs: 200, offboardAcceptableFeeRateDurationMs: SESSION_MS,
    });
  });
  after(async () => {
    for (const d of daemons) {
      await d.stop();
      cleanup(d.datadir);
    }
    await devnet.stop();
  });

  const exitOf = (d: Daemon) => new Promise<void>((resolve) => {
    if (d.proc.exitCode !== null || d.proc.signalCode !== null) resolve();
    else d.proc.once("exit", () => resolve());
  });

  /** A wallet with one registered board VTXO; `env` goes to the daemon. */
  async function walletWithBoard(env: NodeJS.ProcessEnv = {}, datadir = tempDatadir()): Promise<{ d: Daemon; vtxo: string }> {
    const d = await startDaemon({ datadir, config: offboardDaemonConfig(), env });
    daemons.push(d);
    await fundedWallet(d, devnet, [250_000n]);
    const vtxo = await boardAndRegister(d, devnet, BOARD);
    devnet.node.mine(1);
    return { d, vtxo };
  }

  /** Offboards everything to `to` in a daemon killed at `point`, lets the server's session expire and restarts it. */
  async function killedOffboard(point: string, to: string): Promise<{ second: Daemon; vtxo: string }> {
    const datadir = tempDatadir();
    const { d, vtxo } = await walletWithBoard({ TENDER_FAULT_INJECT: point }, datadir);
    const exited = exitOf(d);
    await d.api("POST", "/api/v1/wallet/offboard/all", { body: { address: to } }).catch(() => undefined);
    await exited;
    expect(d.stderr()).to.contain(faultPointLine(point));
    await new Promise((r) => setTimeout(r, SESSION_MS + 800));
    const second = await startDaemon({ datadir, config: offboardDaemonConfig() });
    daemons.push(second);
    return { second, vtxo };
  }

  const settled = (d: Daemon, status: string) => until(`the offboard ${status}`, async () => {
    const ms = await offboardMovements(d);
    if (ms.some((m) => m.status === status)) return ms;
    await ok(d, "POST", "/api/v1/wallet/sync");
    await new Promise((r) => setTimeout(r, 200));
    return undefined;
  }, 60_000);

  it("finish never sent and the session expired: the server refuses the finish, the tx is not on chain, a fresh session is prepared and finished", async () => {
    const to = externalAddress();
    const { second, vtxo } = await killedOffboard("offboard-finish:before", to);
    const [m] = await settled(second, "successful");
    const lostTxid = /offboard session of tx ([0-9a-f]{64}) is gone and the tx is not on chain; preparing a fresh session/.exec(second.stderr())?.[1];
    expect(lostTxid, second.stderr()).to.be.a("string");
    expect(m!.metadata?.offboard_txid).to.not.equal(lostTxid);
    expect(devnet.node.getTransaction(lostTxid!), "the lost session's tx was never signed").to.equal(undefined);
    expect(receivedBy(devnet, to)).to.equal(BigInt(BOARD - (await expectedFee(devnet, BigInt(BOARD), [BigInt(BOARD)]))));
    expect(m!.input_vtxos).to.deep.equal([vtxo]);
  });

  it("finish answered but the answer lost, then the session expired: the refused finish finds the server's tx on chain and adopts it", async () => {
    const to = externalAddress();
    const { second } = await killedOffboard("offboard-finish:after", to);
    const [m] = await settled(second, "successful");
    expect(second.stderr()).to.match(/offboard tx [0-9a-f]{64} found on chain, adopting it/);
    const txid = String(m!.metadata?.offboard_txid);
    expect(devnet.node.getTransaction(txid)).to.not.equal(undefined);
    expect(receivedBy(devnet, to)).to.equal(BigInt(BOARD - (await expectedFee(devnet, BigInt(BOARD), [BigInt(BOARD)]))));
  });

  it("re-broadcasts an offboard tx evicted from the mempool while it waits for its confirmation", async () => {
    const { d } = await walletWithBoard({ TENDER_OFFBOARD_REQUIRED_CONFIRMATIONS: "1" });
    const to = externalAddress();
    const { offboard_txid: txid } = await ok<{ offboard_txid: string }>(d, "POST", "/api/v1/wallet/offboard/all", { address: to });
    expect((await offboardMovements(d))[0]!.status, "one confirmation required: pending").to.equal("pending");
    expect(devnet.node.evict(txid)).to.include(txid);
    await until("the daemon to re-broadcast the evicted tx", async () => {
      if (devnet.node.getRawMempool().includes(txid)) return true;
      await ok(d, "POST", "/api/v1/wallet/sync");
      await new Promise((r) => setTimeout(r, 200));
      return undefined;
    });
    expect(d.stderr()).to.contain(`offboard tx ${txid} was not found: re-broadcast it`);
    devnet.node.mine(1);
    const [m] = await settled(d, "successful");
    expect(m!.metadata?.offboard_txid).to.equal(txid);
    expect((await ok<Balance>(d, "GET", "/api/v1/wallet/balance")).spendable_sat).to.equal(0);
  });

  it("reports an offboard tx missing past offboard_lost_tx_grace_period_secs as lost and keeps its inputs locked; it completes once the tx shows up", async () => {
    const { d, vtxo } = await walletWithBoard({ TENDER_OFFBOARD_REQUIRED_CONFIRMATIONS: "1", TENDER_OFFBOARD_LOST_TX_GRACE_PERIOD_SECS: "0" });
    const { offboard_txid: txid } = await ok<{ offboard_txid: string }>(d, "POST", "/api/v1/wallet/offboard/all", { address: externalAddress() });
    const raw = devnet.node.getTransaction(txid)!.raw;
    devnet.node.evict(txid);
    await until("the daemon to report the tx lost", async () => {
      if (d.stderr().includes(`offboard tx ${txid} has not been seen on chain since`)) return true;
      await ok(d, "POST", "/api/v1/wallet/sync");
      await new Promise((r) => setTimeout(r, 200));
      return undefined;
    });
    expect(devnet.node.getRawMempool(), "a lost tx is not re-broadcast").to.not.include(txid);
    // the forfeits may still become valid: the input stays locked, the movement pending
    expect((await allVtxos(d)).find((v) => v.id === vtxo)?.state.type).to.equal("locked");
    expect((await offboardMovements(d)).map((m: Movement) => m.status)).to.deep.equal(["pending"]);
    expect((await ok<Balance>(d, "GET", "/api/v1/wallet/balance")).spendable_sat).to.equal(0);
    // the server publishes it after all
    devnet.node.submitTransaction(raw);
    devnet.node.mine(1);
    await settled(d, "successful");
    expect((await allVtxos(d)).find((v) => v.id === vtxo)?.state.type).to.equal("spent");
  });

  it("a re-prepare refused for a stale fee rate after the session was lost cancels the offboard and unlocks its inputs", async () => {
    devnet.node.setFeeEstimates({ 1: 20, 3: 20, 6: 20 });
    const to = externalAddress();
    const datadir = tempDatadir();
    const { d, vtxo } = await walletWithBoard({ TENDER_FAULT_INJECT: "offboard-finish:before" }, datadir);
    const exited = exitOf(d);
    await d.api("POST", "/api/v1/wallet/offboard/all", { body: { address: to } }).catch(() => undefined);
    await exited;
    // fees fall: the committed rate is above every estimate the server still counts
    devnet.node.setFeeEstimates({ 1: 2, 3: 2, 6: 2 });
    await new Promise((r) => setTimeout(r, SESSION_MS + 800));
    const second = await startDaemon({ datadir, config: offboardDaemonConfig() });
    daemons.push(second);
    const [m] = await settled(second, "failed");
    expect(m!.effective_balance_sat).to.equal(0);
    expect(second.stderr()).to.contain("fee rate is no longer valid");
    expect((await allVtxos(second)).find((v) => v.id === vtxo)?.state.type).to.equal("spendable");
    expect((await ok<Balance>(second, "GET", "/api/v1/wallet/balance")).spendable_sat).to.equal(BOARD);
    expect(receivedBy(devnet, to)).to.equal(0n);
    // at today's rate it goes through
    await ok(second, "POST", "/api/v1/wallet/offboard/all", { address: to });
    expect(receivedBy(devnet, to) > 0n, "paid").to.equal(true);
  });
});
