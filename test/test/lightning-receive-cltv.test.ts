/**
 * Lightning receive on the real daemon over HTTP when the payer's HTLC reaches the server with only
 * the CLTV budget the invoice demands left (as after a long route whose hops consumed their
 * deltas): the devnet's external payer holds the HTLC with a chosen CLTV expiry. At the invoice's
 * bound (tip + min_final_cltv_expiry) the receive settles once for the invoice amount; one block
 * below it the receive is not claimed, the payer is refunded and nothing is credited.
 */
import { expect } from "chai";
import { arkServer, lightning } from "@tender/devnet";
import { cleanup, startDaemon, type Daemon } from "../src/daemon-process.js";
import { ALICE_MNEMONIC, boardToDaemon, createBody, ok, until, type Balance, type DevnetWithArk, type Movement } from "./ark-harness.js";

interface ReceiveInfo { payment_hash: string; state: string; payment_preimage: string | null; amount_sat: number }
interface ExternalPayment { status: string; preimage: string | null; cltv_expiry: number }
interface HoldInvoiceView { state: string; held_htlc_expiries: number[]; external_payments: ExternalPayment[] }
interface FeeEstimate { fee_sat: number; net_amount_sat: number }

const CONFIG = {
  plugins: [
    "@tender/plugin-wallet", "@tender/plugin-notifications", "@tender/plugin-history", "@tender/plugin-chain", "@tender/plugin-fees",
    "@tender/plugin-ark", "@tender/plugin-lightning",
  ],
  pluginConfig: { notifications: { waitTimeoutMs: 300 }, ark: { deliveryRetryMs: 500 } },
};

describe("Lightning receive over HTTP with the payer's HTLC at the invoice's minimum CLTV expiry (the budget left after a long route)", function () {
  this.timeout(180_000);
  let devnet: DevnetWithArk;
  let alice: Daemon;

  before(async () => {
    devnet = await arkServer.startDevnetWithArk({ seed: "lightning-receive-cltv-e2e", ark: { profile: "test" } });
    if (devnet.node.tipHeight() < 101) devnet.node.mine(101 - devnet.node.tipHeight());
    alice = await startDaemon({ config: CONFIG });
    await ok(alice, "POST", "/api/v1/wallet/create", createBody(devnet, ALICE_MNEMONIC));
    await ok(alice, "POST", "/api/v1/wallet/import-vtxo", { vtxos: [await boardToDaemon(alice, devnet, ALICE_MNEMONIC, 50_000n)] });
  });
  after(async () => {
    if (alice) { await alice.stop(); cleanup(alice.datadir); }
    await devnet?.stop();
  });

  async function control<T>(method: string, path: string, body?: unknown): Promise<T> {
    const r = await fetch(`${devnet.lnControlUrl}${path}`, { method, headers: { "content-type": "application/json" }, ...(body ? { body: JSON.stringify(body) } : {}) });
    expect(r.status, `${method} ${path}: ${await r.clone().text()}`).to.equal(200);
    return (await r.json()) as T;
  }
  const spendable = async () => (await ok<Balance>(alice, "GET", "/api/v1/wallet/balance")).spendable_sat;
  const movementsOf = async (hash: string) => (await ok<Movement[]>(alice, "GET", "/api/v1/history")).filter((m) => m.subsystem.name === "bark.lightning_receive" && m.metadata?.payment_hash === hash);

  /** A new invoice of the daemon, paid by the external payer with its HTLC expiring `below` blocks under tip + the invoice's min_final_cltv_expiry. */
  async function payAtBound(amountSat: number, below: number): Promise<{ hash: string; expiry: number; minFinal: number }> {
    const { invoice } = await ok<{ invoice: string }>(alice, "POST", "/api/v1/lightning/receives/invoice", { amount_sat: amountSat });
    const decoded = lightning.decodeBolt11(invoice);
    const minFinal = decoded.minFinalCltvExpiryDelta;
    const expiry = devnet.node.tipHeight() + minFinal - below;
    const paid = await control<{ payment_hash: string; cltv_expiry: number; amount_msat: unknown }>("POST", "/hold-invoices/pay", { invoice, cltv_expiry: expiry });
    expect(paid.cltv_expiry).to.equal(expiry);
    return { hash: paid.payment_hash, expiry, minFinal };
  }

  it("an HTLC expiring exactly at tip + min_final_cltv_expiry: the daemon claims, the payer succeeds once, the balance rises by the amount minus the fee", async () => {
    const before = await spendable();
    const fee = await ok<FeeEstimate>(alice, "GET", "/api/v1/fees/lightning/receive?amount_sat=21000");
    const { hash, expiry, minFinal } = await payAtBound(21_000, 0);
    // the invoice demands the wallet's own minimum plus the server's HTLC delta: more than the default 18
    expect(minFinal).to.be.greaterThan(18);
    const done = await until("settled", async () => { const r = await ok<ReceiveInfo>(alice, "GET", `/api/v1/lightning/receives/${hash}`); return r.state === "settled" ? r : undefined; }, 60_000);
    expect(done.amount_sat).to.equal(21_000);
    const view = await until("payer succeeded", async () => {
      const v = await control<HoldInvoiceView>("GET", `/hold-invoices/${hash}`);
      return v.external_payments.some((p) => p.status === "succeeded") ? v : undefined;
    });
    expect(view.state).to.equal("paid");
    expect(view.held_htlc_expiries).to.deep.equal([expiry]);
    expect(view.external_payments.map((p) => [p.status, p.cltv_expiry, p.preimage])).to.deep.equal([["succeeded", expiry, done.payment_preimage]]);
    expect(await spendable()).to.equal(before + fee.net_amount_sat);
    const moves = await movementsOf(hash);
    expect(moves.map((m) => [m.status, m.intended_balance_sat, m.effective_balance_sat])).to.deep.equal([["successful", 21_000, fee.net_amount_sat]]);
  });

  it("an HTLC expiring one block below that bound: not claimed, the payer is refunded, the hold invoice cancelled and nothing is credited", async () => {
    const before = await spendable();
    const { hash, expiry } = await payAtBound(13_000, 1);
    const view = await until("payer refunded", async () => {
      const v = await control<HoldInvoiceView>("GET", `/hold-invoices/${hash}`);
      return v.external_payments.some((p) => p.status === "refunded") ? v : undefined;
    }, 60_000);
    expect(view.state).to.equal("cancelled");
    expect(view.external_payments.map((p) => [p.status, p.cltv_expiry, p.preimage])).to.deep.equal([["refunded", expiry, null]]);
    // the daemon gives the receive up without revealing the preimage
    await until("receive no longer pending", async () => (await ok<ReceiveInfo[]>(alice, "GET", "/api/v1/lightning/receives")).every((r) => r.payment_hash !== hash) ? true : undefined, 60_000);
    expect(await spendable()).to.equal(before);
    expect((await ok<Balance>(alice, "GET", "/api/v1/wallet/balance")).claimable_lightning_receive_sat).to.equal(0);
    expect((await movementsOf(hash)).filter((m) => m.status === "successful")).to.deep.equal([]);
  });
});
