/**
 * A Lightning send survives a restart of the Ark server mid-payment, driven through the devnet
 * control API: the daemon pays a hold invoice, the server is stopped (`POST /devnet/ark/stop`),
 * the payee settles or cancels the held payment on the simulated network
 * (`POST /devnet/ln/invoices/{hash}/settle|cancel`) while the server is down, and the server is
 * started again (`POST /devnet/ark/start`). The send ends paid exactly once (the payee paid once,
 * one successful movement, the balance down by amount + fee) or refunded (balance whole), and the
 * wallet's VTXOs agree with the server's.
 */
import { expect } from "chai";
import { createHash } from "node:crypto";
import { cleanup, startDaemon, type Daemon } from "../src/daemon-process.js";
import {
  ALICE_MNEMONIC, boardToDaemon, createBody, ok, startArkDevnet, until, type Balance, type DevnetWithArk, type Movement, type VtxoInfo,
} from "./ark-harness.js";

interface SendInfo { payment_hash: string; state: string; invoice: string | null; preimage: string | null }

const CONFIG = {
  plugins: [
    "@tender/plugin-wallet", "@tender/plugin-notifications", "@tender/plugin-history", "@tender/plugin-chain", "@tender/plugin-fees",
    "@tender/plugin-ark", "@tender/plugin-lightning",
  ],
  pluginConfig: { notifications: { waitTimeoutMs: 300 }, ark: { deliveryRetryMs: 500 } },
};

describe("a Lightning send survives a restart of the Ark server mid-payment (devnet controls)", function () {
  this.timeout(120_000);
  let devnet: DevnetWithArk;
  let alice: Daemon;

  before(async () => {
    devnet = await startArkDevnet("lightning-send-server-restart-e2e");
    alice = await startDaemon({ config: CONFIG });
    await ok(alice, "POST", "/api/v1/wallet/create", createBody(devnet, ALICE_MNEMONIC));
    await ok(alice, "POST", "/api/v1/wallet/import-vtxo", { vtxos: [await boardToDaemon(alice, devnet, ALICE_MNEMONIC, 100_000n)] });
  });
  after(async () => {
    if (alice) { await alice.stop(); cleanup(alice.datadir); }
    if (devnet && !devnet.ark.running) await devnet.ark.start();
    await devnet?.stop();
  });

  /** POSTs to a devnet control and requires a 200. */
  async function control(url: string): Promise<unknown> {
    const r = await fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body: "{}" });
    expect(r.status, `${url}: ${await r.clone().text()}`).to.equal(200);
    return r.json();
  }
  const balance = () => ok<Balance>(alice, "GET", "/api/v1/wallet/balance");
  const status = (hash: string) => ok<SendInfo>(alice, "GET", `/api/v1/lightning/sends/${hash}`);
  const connected = async () => (await ok<{ connected: boolean }>(alice, "GET", "/api/v1/wallet/connected")).connected;
  const sendMovements = async (hash: string) => (await ok<Movement[]>(alice, "GET", "/api/v1/history"))
    .filter((m) => m.subsystem.name === "bark.lightning_send" && m.metadata?.payment_hash === hash);

  /** Every VTXO the wallet holds is spendable (unspent at the server) or spent (spent there); returns the spendable sum. */
  async function vtxosAgreeWithServer(): Promise<number> {
    let sum = 0;
    for (const v of await ok<VtxoInfo[]>(alice, "GET", "/api/v1/wallet/vtxos?all=true")) {
      const server = (await devnet.ark.server.ctx.store.getVtxo(v.id))?.state;
      expect(v.state.type, `wallet VTXO ${v.id}`).to.be.oneOf(["spendable", "spent"]);
      expect(server, `VTXO ${v.id} at the server`).to.equal(v.state.type);
      if (v.state.type === "spendable") sum += v.amount_sat;
    }
    return sum;
  }

  /** Pays a hold invoice, stops the server once it is held, lets the payee `end` it, starts the server; returns the hash and the balances. */
  async function payAcrossRestart(amount: number, end: "settle" | "cancel") {
    const before = await balance();
    const inv = devnet.lightning.createInvoice({ amountSat: BigInt(amount), kind: "hold" });
    await ok(alice, "POST", "/api/v1/lightning/pay", { destination: inv.invoice });
    await until("the payee to hold the payment", async () => (devnet.lightning.invoice(inv.paymentHash)!.state === "held" ? true : undefined));
    const held = await balance();
    expect((await status(inv.paymentHash)).state).to.equal("payment-initiated");

    expect(await control(`${devnet.arkControlUrl}/stop`)).to.include({ running: false });
    await until("the daemon to see the server gone", async () => ((await connected()) ? undefined : true));
    await control(`${devnet.lnControlUrl}/invoices/${inv.paymentHash}/${end}`);
    expect(devnet.lightning.invoice(inv.paymentHash)!.state).to.equal(end === "settle" ? "paid" : "canceled");
    // the server being down, the daemon cannot learn anything: the send stays pending
    await new Promise((r) => setTimeout(r, 3_000));
    expect((await status(inv.paymentHash)).state).to.equal("payment-initiated");
    expect(await balance()).to.deep.equal(held);

    expect(await control(`${devnet.arkControlUrl}/start`)).to.include({ running: true });
    return { hash: inv.paymentHash, before, held };
  }

  it("settled while the server is down: after the restart the send is paid exactly once, no sats lost", async () => {
    const { hash, before, held } = await payAcrossRestart(9_000, "settle");
    const fee = held.pending_lightning_send_sat - 9_000;
    const done = await until("paid", async () => { const s = await status(hash); return s.state === "paid" ? s : undefined; }, 30_000);
    expect(createHash("sha256").update(Buffer.from(done.preimage!, "hex")).digest("hex")).to.equal(hash);
    const payee = devnet.lightning.invoice(hash)!;
    expect(payee.receivedMsat).to.equal(9_000_000n);
    const pays = devnet.lightning.allPays().filter((p) => p.status === "complete" && Buffer.from(p.paymentHash).toString("hex") === hash);
    expect(pays, "the invoice was paid once").to.have.length(1);
    expect((await sendMovements(hash)).map((m) => [m.status, m.effective_balance_sat, m.offchain_fee_sat])).to.deep.equal([["successful", -(9_000 + fee), fee]]);
    const b = await balance();
    expect(b).to.include({ spendable_sat: before.spendable_sat - 9_000 - fee, pending_lightning_send_sat: 0 });
    expect(await vtxosAgreeWithServer()).to.equal(b.spendable_sat);
    const again = await alice.api("POST", "/api/v1/lightning/pay", { body: { destination: payee.invoice } });
    expect([again.status, again.json]).to.deep.equal([500, { message: "Invoice has already been paid" }]);
  });

  it("canceled while the server is down: after the restart the send is revoked, the balance whole", async () => {
    const { hash, before } = await payAcrossRestart(7_000, "cancel");
    await until("refunded", async () => ((await sendMovements(hash))[0]?.status === "failed" ? true : undefined), 30_000);
    expect((await sendMovements(hash)).map((m) => [m.status, m.effective_balance_sat, m.offchain_fee_sat])).to.deep.equal([["failed", 0, 0]]);
    expect(await status(hash)).to.deep.equal({ payment_hash: hash, state: "unknown", invoice: null, preimage: null });
    const pays = devnet.lightning.allPays().filter((p) => p.status === "complete" && Buffer.from(p.paymentHash).toString("hex") === hash);
    expect(pays).to.have.length(0);
    const b = await balance();
    expect(b).to.include({ spendable_sat: before.spendable_sat, pending_lightning_send_sat: 0 });
    expect(await vtxosAgreeWithServer()).to.equal(b.spendable_sat);
  });
});
