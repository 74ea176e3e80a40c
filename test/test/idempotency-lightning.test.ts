import { expect } from "chai";
import { faultPointLine } from "@tender/core";
import { cleanup, startDaemon, tempDatadir, type ApiResponse, type Daemon } from "../src/daemon-process.js";
import { ALICE_MNEMONIC, boardToDaemon, createBody, ok, startArkDevnet, until, type DevnetWithArk, type Movement } from "./ark-harness.js";
import { LIGHTNING_CONFIG, balance } from "./lightning-send-harness.js";

/** Resolves when the daemon's process has ended by itself (a fault point killed it). */
async function exited(d: Daemon, ms = 30_000): Promise<void> {
  await until("the daemon to be killed at its fault point", async () => (d.proc.exitCode !== null || d.proc.signalCode !== null ? true : undefined), ms);
}

describe("Idempotency-Key on a Lightning payment killed before its answer: 409 while the payee holds it, then its outcome, paid once", function () {
  this.timeout(240_000);
  let devnet: DevnetWithArk;
  let alice: Daemon;
  const datadir = tempDatadir("tenderd-idem-ln-");

  before(async () => {
    devnet = await startArkDevnet("idempotency-lightning-e2e");
    alice = await startDaemon({ datadir, config: LIGHTNING_CONFIG });
    await ok(alice, "POST", "/api/v1/wallet/create", createBody(devnet, ALICE_MNEMONIC));
    const hex = await boardToDaemon(alice, devnet, ALICE_MNEMONIC, 200_000n);
    await ok(alice, "POST", "/api/v1/wallet/import-vtxo", { vtxos: [hex] });
  });
  after(async () => {
    await alice?.stop();
    cleanup(datadir);
    await devnet?.stop();
  });

  it("SIGKILL between the pay and its answer, hold invoice: the retry answers 409 while held, the payment once settled, and never pays again", async () => {
    const pay = (d: Daemon, invoice: string): Promise<ApiResponse> =>
      d.api("POST", "/api/v1/lightning/pay", { body: { destination: invoice }, headers: { "Idempotency-Key": "invoice-42" } });
    const before = (await balance(alice)).spendable_sat;
    const held = devnet.lightning.createInvoice({ amountSat: 6_000n, kind: "hold" });
    const sendsOf = async () => (await ok<Movement[]>(alice, "GET", "/api/v1/history"))
      .filter((m) => m.subsystem.name === "bark.lightning_send" && m.metadata?.payment_hash === held.paymentHash);

    await alice.stop();
    alice = await startDaemon({ datadir, config: LIGHTNING_CONFIG, env: { TENDER_FAULT_INJECT: "idempotency:before-store" } });
    expect(await pay(alice, held.invoice).then(() => "answered", () => "connection lost")).to.equal("connection lost");
    await exited(alice);
    expect(alice.stderr()).to.contain(faultPointLine("idempotency:before-store"));

    alice = await startDaemon({ datadir, config: LIGHTNING_CONFIG });
    await until("the payee holds the payment", async () => (devnet.lightning.invoice(held.paymentHash)!.state === "held" ? true : undefined), 30_000);
    const whileHeld = await pay(alice, held.invoice);
    expect(whileHeld.status, whileHeld.text).to.equal(409);
    expect((whileHeld.json as { message: string }).message).to.match(/still being resolved/);

    devnet.lightning.settleHold(held.paymentHash);
    const answer = await until("the settled payment's answer", async () => {
      const r = await pay(alice, held.invoice);
      return r.status === 409 ? undefined : r;
    }, 60_000);
    expect(answer.status, answer.text).to.equal(200);
    expect(answer.headers.get("idempotent-replayed")).to.equal("true");
    const body = answer.json as { message: string; payment_hash: string; movement_id: number };
    const [movement, ...more] = await sendsOf();
    expect(more, "one send movement for the invoice").to.deep.equal([]);
    expect(body).to.deep.equal({ message: "Payment initiated successfully", payment_hash: held.paymentHash, movement_id: movement!.id });
    expect(movement!.status).to.equal("successful");
    expect(devnet.lightning.invoice(held.paymentHash)!.state).to.equal("paid");
    const fee = movement!.offchain_fee_sat;
    await until("nothing pending", async () => ((await balance(alice)).pending_lightning_send_sat === 0 ? true : undefined));
    expect((await balance(alice)).spendable_sat, "amount and fee spent once").to.equal(before - 6_000 - fee);

    const again = await pay(alice, held.invoice);
    expect([again.status, again.json]).to.deep.equal([200, body]);
    expect(await sendsOf()).to.have.length(1);
  });
});
