/**
 * Lightning send survives SIGKILL at every checkpoint of its action: for each fault point the
 * daemon is killed there during a send, restarted, and left to finish. The payment ends paid
 * (preimage, the payee paid once, the balance down by amount + fee) or refunded (the balance
 * whole, the payee unpaid), never both; no sats go missing and no VTXO is both spendable in the
 * wallet and spent at the server. Two more sends die at their first check while the payee holds
 * the payment, which the payee settles (paid) or cancels (refunded) before the restart. One devnet
 * and one wallet serve every case.
 */
import { expect } from "chai";
import { createHash } from "node:crypto";
import { faultPointLine } from "@tender/core";
import { LIGHTNING_SEND_FAULT_POINTS } from "@tender/plugin-lightning";
import { cleanup, startDaemon, tempDatadir, type Daemon } from "../src/daemon-process.js";
import {
  ALICE_MNEMONIC, boardToDaemon, createBody, ok, startArkDevnet, until, type Balance, type DevnetWithArk, type Movement, type VtxoInfo,
} from "./ark-harness.js";

interface SendInfo { payment_hash: string; state: string; invoice: string | null; preimage: string | null }
interface FeeEstimate { fee_sat: number }

const CONFIG = {
  plugins: [
    "@tender/plugin-wallet", "@tender/plugin-notifications", "@tender/plugin-history", "@tender/plugin-chain", "@tender/plugin-fees",
    "@tender/plugin-ark", "@tender/plugin-lightning",
  ],
  pluginConfig: { notifications: { waitTimeoutMs: 300 }, ark: { deliveryRetryMs: 500 } },
};

/** Points reached only when the payment fails: those sends pay an unroutable invoice, the others a normal one. */
const REVOCATION_POINTS: readonly string[] = ["ln-send:revoke", "ln-send:after-revoke", "ln-send:store-revoked", "ln-send:after-store-revoked"];

describe("a Lightning send survives SIGKILL at every checkpoint (crash safety)", function () {
  this.timeout(60_000);
  let devnet: DevnetWithArk;
  const datadir = tempDatadir("tenderd-ln-crash-");
  let alice: Daemon;

  before(async function () {
    this.timeout(120_000);
    devnet = await startArkDevnet("lightning-send-crash-e2e");
    alice = await startDaemon({ datadir, config: CONFIG });
    await ok(alice, "POST", "/api/v1/wallet/create", createBody(devnet, ALICE_MNEMONIC));
    const hex = await boardToDaemon(alice, devnet, ALICE_MNEMONIC, 300_000n);
    await ok(alice, "POST", "/api/v1/wallet/import-vtxo", { vtxos: [hex] });
  });
  after(async () => {
    await alice?.stop();
    cleanup(datadir);
    await devnet?.stop();
  });

  const exitOf = (d: Daemon) => new Promise<NodeJS.Signals | null>((resolve) => {
    if (d.proc.exitCode !== null || d.proc.signalCode !== null) resolve(d.proc.signalCode);
    else d.proc.once("exit", (_code, signal) => resolve(signal));
  });
  const balance = () => ok<Balance>(alice, "GET", "/api/v1/wallet/balance");
  const sendMovements = async (hash: string) => (await ok<Movement[]>(alice, "GET", "/api/v1/history"))
    .filter((m) => m.subsystem.name === "bark.lightning_send" && m.metadata?.payment_hash === hash);

  /** Every VTXO the wallet holds as spendable is unspent at the server, every one it holds as spent is spent there, none stays locked. */
  async function vtxosAgreeWithServer(): Promise<number> {
    const all = await ok<VtxoInfo[]>(alice, "GET", "/api/v1/wallet/vtxos?all=true");
    let spendableSum = 0;
    for (const v of all) {
      const server = (await devnet.ark.server.ctx.store.getVtxo(v.id))?.state;
      expect(v.state.type, `wallet VTXO ${v.id}`).to.be.oneOf(["spendable", "spent"]);
      if (v.state.type === "spendable") {
        expect(server, `spendable VTXO ${v.id} at the server`).to.equal("spendable");
        spendableSum += v.amount_sat;
      } else {
        expect(server, `spent VTXO ${v.id} at the server`).to.equal("spent");
      }
    }
    return spendableSum;
  }

  /**
   * Sends `amount` to a fresh invoice of `kind` with the daemon armed to die at `point`, runs
   * `whileDown` while it is dead, restarts it and waits for the send to end; then checks that it
   * ended `expected` (paid once, or refunded with the balance whole) and that the VTXOs agree.
   */
  async function crashAndFinish(point: string, kind: "normal" | "unroutable" | "hold", amount: number, expected: "paid" | "refunded",
    whileDown: (paymentHash: string) => Promise<void> = async () => undefined): Promise<void> {
    const before = await balance();
    expect(before.pending_lightning_send_sat).to.equal(0);
    const estimate = await ok<FeeEstimate>(alice, "GET", `/api/v1/fees/lightning/pay?amount_sat=${amount}`);
    const inv = devnet.lightning.createInvoice({ amountSat: BigInt(amount), kind });

    await alice.stop();
    alice = await startDaemon({ datadir, config: CONFIG, env: { TENDER_FAULT_INJECT: point } });
    const killed = exitOf(alice);
    await alice.api("POST", "/api/v1/lightning/pay", { body: { destination: inv.invoice } }).catch((e: Error) => e);
    expect(await killed, `expected a SIGKILL at ${point}`).to.equal("SIGKILL");
    expect(alice.stderr(), `killed at ${point}, not elsewhere`).to.contain(faultPointLine(point));
    await whileDown(inv.paymentHash);

    alice = await startDaemon({ datadir, config: CONFIG });
    const end = await until(`the send killed at ${point} to end`, async () => {
      const s = await ok<SendInfo>(alice, "GET", `/api/v1/lightning/sends/${inv.paymentHash}`);
      const b = await balance();
      if (b.pending_lightning_send_sat !== 0) return undefined;
      if (s.state === "paid") return { s, b };
      if (s.state === "unknown" && (await sendMovements(inv.paymentHash)).every((m) => m.status === "failed")) return { s, b };
      return undefined;
    }, 30_000);

    const movements = await sendMovements(inv.paymentHash);
    for (const m of movements) expect(new Set(m.output_vtxos).size, "each output VTXO listed once").to.equal(m.output_vtxos.length);
    const payeePays = devnet.lightning.allPays().filter((p) => p.status === "complete" && Buffer.from(p.paymentHash).toString("hex") === inv.paymentHash);
    const payee = devnet.lightning.invoice(inv.paymentHash)!;
    if (expected === "paid") {
      // paid: the preimage is the payee's, the payee got the amount once, the wallet paid amount + fee
      expect(end.s.state).to.equal("paid");
      expect(createHash("sha256").update(Buffer.from(end.s.preimage!, "hex")).digest("hex")).to.equal(inv.paymentHash);
      expect(payee.state).to.equal("paid");
      expect(payee.receivedMsat).to.equal(BigInt(amount) * 1000n);
      expect(payeePays, "the invoice was paid once").to.have.length(1);
      expect(movements.map((m) => [m.status, m.effective_balance_sat, m.offchain_fee_sat])).to.deep.equal([["successful", -(amount + estimate.fee_sat), estimate.fee_sat]]);
      expect(end.b.spendable_sat + amount + estimate.fee_sat, "no sats lost").to.equal(before.spendable_sat);
      const again = await alice.api("POST", "/api/v1/lightning/pay", { body: { destination: inv.invoice } });
      expect([again.status, again.json], "paying again is refused").to.deep.equal([500, { message: "Invoice has already been paid" }]);
    } else {
      // refunded: nothing reached the payee, the balance is whole, the movement failed without a fee
      expect(end.s.preimage).to.equal(null);
      expect(payee.state).to.be.oneOf(["unpaid", "canceled"]);
      expect(payeePays).to.have.length(0);
      expect(movements.map((m) => [m.status, m.effective_balance_sat, m.offchain_fee_sat])).to.deep.equal([["failed", 0, 0]]);
      expect(end.b.spendable_sat, "the balance is whole").to.equal(before.spendable_sat);
    }
    expect(await vtxosAgreeWithServer(), "the spendable VTXOs add up to the balance").to.equal((await balance()).spendable_sat);
  }

  LIGHTNING_SEND_FAULT_POINTS.forEach((point, i) => {
    const failing = REVOCATION_POINTS.includes(point);
    it(`killed at ${point}, the restarted daemon ${failing ? "revokes the failed payment: balance whole" : "completes the payment once: no sats lost"}`, async () => {
      await crashAndFinish(point, failing ? "unroutable" : "normal", 1_000 + i * 100, failing ? "refunded" : "paid");
    });
  });

  const held = async (paymentHash: string) => {
    await until("the payee to hold the payment", async () => (devnet.lightning.invoice(paymentHash)!.state === "held" ? true : undefined));
  };
  it("killed at its first check while the payee holds the payment, which the payee settles meanwhile: the restarted daemon records it paid", async () => {
    await crashAndFinish("ln-send:check", "hold", 3_000, "paid", async (hash) => { await held(hash); devnet.lightning.settleHold(hash); });
  });
  it("killed at its first check while the payee holds the payment, which the payee cancels meanwhile: the restarted daemon revokes it, balance whole", async () => {
    await crashAndFinish("ln-send:check", "hold", 3_100, "refunded", async (hash) => { await held(hash); devnet.lightning.cancelHold(hash); });
  });
});
