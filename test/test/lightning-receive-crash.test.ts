/**
 * Lightning receive survives SIGKILL at every checkpoint of its action: for each fault point the
 * daemon is killed there during a receive, restarted, and left to finish. The receive ends
 * settled exactly once — the balance (or, for a receive-for-address, the other wallet's balance)
 * up by the amount minus the receive fee, one successful movement, the external payer's payment
 * succeeded with the wallet's preimage — and no VTXO is spendable in the wallet but spent at the
 * server. Points on the way to the invoice kill the daemon while it answers the invoice request;
 * the receive it had saved (with its preimage) is found in the listing after the restart and paid.
 */
import { expect } from "chai";
import { createHash } from "node:crypto";
import { faultPointLine } from "@tender/core";
import { arkServer } from "@tender/devnet";
import { LIGHTNING_RECEIVE_FAULT_POINTS } from "@tender/plugin-lightning";
import { cleanup, startDaemon, tempDatadir, type Daemon } from "../src/daemon-process.js";
import {
  ALICE_MNEMONIC, BOB_MNEMONIC, boardToDaemon, createBody, ok, until, type Balance, type DevnetWithArk, type Movement, type VtxoInfo,
} from "./ark-harness.js";

interface ReceiveInfo { payment_hash: string; state: string; invoice: string; payment_preimage: string | null; amount_sat: number }
interface FeeEstimate { fee_sat: number; net_amount_sat: number }

const CONFIG = {
  plugins: [
    "@tender/plugin-wallet", "@tender/plugin-notifications", "@tender/plugin-history", "@tender/plugin-chain", "@tender/plugin-fees",
    "@tender/plugin-ark", "@tender/plugin-lightning",
  ],
  pluginConfig: { notifications: { waitTimeoutMs: 300 }, ark: { deliveryRetryMs: 500 } },
};
/** Points passed while the daemon answers `POST /lightning/receives/invoice`. */
const CREATION_POINTS: readonly string[] = ["ln-recv:start", "ln-recv:after-start", "ln-recv:await"];
/** Points passed only by a receive-for-address. */
const DELIVERY_POINTS: readonly string[] = ["ln-recv:deliver", "ln-recv:after-deliver"];
const sha256Hex = (hex: string) => createHash("sha256").update(Buffer.from(hex, "hex")).digest("hex");

describe("a Lightning receive survives SIGKILL at every checkpoint (crash safety)", function () {
  this.timeout(90_000);
  let devnet: DevnetWithArk;
  const datadir = tempDatadir("tenderd-ln-recv-crash-");
  let alice: Daemon;
  let bob: Daemon;

  before(async function () {
    this.timeout(120_000);
    devnet = await arkServer.startDevnetWithArk({
      seed: "lightning-receive-crash-e2e",
      ark: { profile: "test", overrides: { fees: { ...arkServer.testFeeSchedule(), lightningReceive: { baseFeeSat: 100n, ppm: 2000n } } } },
    });
    if (devnet.node.tipHeight() < 101) devnet.node.mine(101 - devnet.node.tipHeight());
    alice = await startDaemon({ datadir, config: CONFIG });
    bob = await startDaemon({ config: CONFIG });
    await ok(alice, "POST", "/api/v1/wallet/create", createBody(devnet, ALICE_MNEMONIC));
    await ok(bob, "POST", "/api/v1/wallet/create", createBody(devnet, BOB_MNEMONIC));
    await ok(alice, "POST", "/api/v1/wallet/import-vtxo", { vtxos: [await boardToDaemon(alice, devnet, ALICE_MNEMONIC, 50_000n)] });
  });
  after(async () => {
    await alice?.stop();
    cleanup(datadir);
    if (bob) { await bob.stop(); cleanup(bob.datadir); }
    await devnet?.stop();
  });

  const exitOf = (d: Daemon) => new Promise<NodeJS.Signals | null>((resolve) => {
    if (d.proc.exitCode !== null || d.proc.signalCode !== null) resolve(d.proc.signalCode);
    else d.proc.once("exit", (_code, signal) => resolve(signal));
  });
  const balance = (d: Daemon) => ok<Balance>(d, "GET", "/api/v1/wallet/balance");
  const receives = () => ok<ReceiveInfo[]>(alice, "GET", "/api/v1/lightning/receives");
  async function payExternally(invoice: string): Promise<void> {
    const r = await fetch(`${devnet.lnControlUrl}/hold-invoices/pay`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ invoice }) });
    expect(r.status, await r.clone().text()).to.equal(200);
  }
  async function payerView(hash: string): Promise<string> {
    return (await fetch(`${devnet.lnControlUrl}/hold-invoices/${hash}`)).text();
  }

  /** Every VTXO Alice holds as spendable is spendable at the server, every one held as spent is spent there, none stays locked. */
  async function vtxosAgreeWithServer(): Promise<number> {
    let sum = 0;
    for (const v of await ok<VtxoInfo[]>(alice, "GET", "/api/v1/wallet/vtxos?all=true")) {
      const server = (await devnet.ark.server.ctx.store.getVtxo(v.id))?.state;
      expect(v.state.type, `wallet VTXO ${v.id}`).to.be.oneOf(["spendable", "spent"]);
      if (v.state.type === "spendable") {
        expect(server, `spendable VTXO ${v.id} at the server`).to.equal("spendable");
        sum += v.amount_sat;
      } else {
        expect(server, `spent VTXO ${v.id} at the server`).to.not.equal("spendable");
      }
    }
    return sum;
  }

  /** Restarts Alice armed to die at `point`; `killed` resolves with the signal that ended her. */
  async function restartArmed(point: string): Promise<{ killed: Promise<NodeJS.Signals | null> }> {
    await alice.stop();
    alice = await startDaemon({ datadir, config: CONFIG, env: { TENDER_FAULT_INJECT: point } });
    return { killed: exitOf(alice) };
  }

  async function crashAndFinish(point: string, amount: number): Promise<void> {
    const toBob = DELIVERY_POINTS.includes(point);
    const fee = await ok<FeeEstimate>(alice, "GET", `/api/v1/fees/lightning/receive?amount_sat=${amount}`);
    // Alice is replaced by each restart: look her up when asked
    const receiver = () => (toBob ? bob : alice);
    const before = (await balance(receiver())).spendable_sat;
    const aliceBefore = (await balance(alice)).spendable_sat;
    let invoice: string;
    let killed: Promise<NodeJS.Signals | null>;
    if (CREATION_POINTS.includes(point)) {
      const known = new Set((await receives()).map((r) => r.payment_hash));
      ({ killed } = await restartArmed(point));
      await alice.api("POST", "/api/v1/lightning/receives/invoice", { body: { amount_sat: amount } }).catch((e: Error) => e);
      expect(await killed, `expected a SIGKILL at ${point}`).to.equal("SIGKILL");
      expect(alice.stderr(), `killed at ${point}, not elsewhere`).to.contain(faultPointLine(point));
      alice = await startDaemon({ datadir, config: CONFIG });
      // the receive was saved with its preimage before the crash: it is listed, with its invoice, after the restart
      const fresh = await until("the saved receive", async () => (await receives()).find((r) => !known.has(r.payment_hash) && r.amount_sat === amount));
      expect(fresh.state).to.equal("awaiting-payment");
      invoice = fresh.invoice;
      await payExternally(invoice);
    } else {
      const body = toBob ? { amount_sat: amount, address: (await ok<{ address: string }>(bob, "POST", "/api/v1/wallet/addresses/next")).address } : { amount_sat: amount };
      invoice = (await ok<{ invoice: string }>(alice, "POST", `/api/v1/lightning/receives/invoice${toBob ? "/for-address" : ""}`, body)).invoice;
      ({ killed } = await restartArmed(point));
      await payExternally(invoice);
      expect(await killed, `expected a SIGKILL at ${point}`).to.equal("SIGKILL");
      expect(alice.stderr(), `killed at ${point}, not elsewhere`).to.contain(faultPointLine(point));
      alice = await startDaemon({ datadir, config: CONFIG });
    }
    const info = await until(`the receive killed at ${point} to settle`, async () => {
      const r = await ok<ReceiveInfo>(alice, "GET", `/api/v1/lightning/receives/${invoice}`);
      return r.state === "settled" ? r : undefined;
    }, 45_000);
    const hash = info.payment_hash;
    expect(sha256Hex(info.payment_preimage!)).to.equal(hash);
    await until("the payer to see success", async () => ((await payerView(hash)).includes("succeeded") ? true : undefined));
    expect(await payerView(hash)).to.contain(info.payment_preimage!);
    const movements = (await ok<Movement[]>(alice, "GET", "/api/v1/history")).filter((m) => m.subsystem.name === "bark.lightning_receive" && m.metadata?.payment_hash === hash);
    expect(movements.map((m) => m.status), "one movement, successful").to.deep.equal(["successful"]);
    expect(movements[0]!.offchain_fee_sat).to.equal(fee.fee_sat);
    await until("the received amount once", async () => ((await balance(receiver())).spendable_sat === before + fee.net_amount_sat ? true : undefined), 30_000);
    const b = await balance(alice);
    expect(b.claimable_lightning_receive_sat).to.equal(0);
    if (toBob) expect(b.spendable_sat, "Alice keeps what she had").to.equal(aliceBefore);
    expect(await vtxosAgreeWithServer(), "the spendable VTXOs add up to the balance").to.equal(b.spendable_sat);
  }

  LIGHTNING_RECEIVE_FAULT_POINTS.forEach((point, i) => {
    it(`killed at ${point}, the restarted daemon settles the receive once: no sats lost`, async () => {
      await crashAndFinish(point, 3_000 + i * 100);
    });
  });
});
