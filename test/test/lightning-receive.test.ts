/**
 * Lightning receive on the real daemon over HTTP against the devnet's reference Ark server: an
 * invoice paid by an external payer (the devnet's Lightning control) is claimed by the daemon on
 * its own after the server's `IncomingLightningPayment` message (balance, history, notification,
 * the payer sees the payment succeed); the fee estimate is what is charged; a receive canceled
 * before payment is gone and its hold invoice cancelled; a second daemon on the same server pays
 * an invoice through `POST /lightning/pay` (intra-Ark); a receive-for-address lands at the other
 * wallet; a BIP-321 URI with an amount carries the invoice; bad input answers barkd's codes.
 * Every answer's body is checked against barkd's OpenAPI schema for its operation and status.
 */
import { expect } from "chai";
import { createHash } from "node:crypto";
import { arkServer } from "@tender/devnet";
import { barkdTemplate, checkAgainstBarkd } from "../src/barkd-schemas.js";
import { cleanup, startDaemon, type ApiResponse, type Daemon } from "../src/daemon-process.js";
import {
  ALICE_MNEMONIC, BOB_MNEMONIC, boardToDaemon, createBody, ok, until, type Balance, type DevnetWithArk, type Movement,
} from "./ark-harness.js";

interface ReceiveInfo {
  payment_hash: string; state: string; invoice: string; payment_preimage: string | null; amount_sat: number; htlc_vtxo_ids: string[];
  settled_at: string | null; preimage_revealed_at: string | null; finished_at: string | null; htlc_vtxos: unknown[];
}
interface FeeEstimate { gross_amount_sat: number; fee_sat: number; net_amount_sat: number; vtxos_spent: string[] }
interface HoldInvoiceView { state: string; payments: { status: string; preimage: string | null }[] }

const CONFIG = {
  plugins: [
    "@tender/plugin-wallet", "@tender/plugin-notifications", "@tender/plugin-history", "@tender/plugin-chain", "@tender/plugin-fees",
    "@tender/plugin-ark", "@tender/plugin-lightning",
  ],
  pluginConfig: { notifications: { waitTimeoutMs: 300 }, ark: { deliveryRetryMs: 500 } },
};
const sha256Hex = (hex: string) => createHash("sha256").update(Buffer.from(hex, "hex")).digest("hex");

describe("Lightning receive over HTTP on the devnet (POST /lightning/receives/invoice[/for-address], GET/DELETE /lightning/receives[/{id}], GET /fees/lightning/receive)", function () {
  this.timeout(180_000);
  let devnet: DevnetWithArk;
  let alice: Daemon;
  let bob: Daemon;

  before(async () => {
    // the test profile, with captaind's default Lightning receive fee (100 sat + 2000 ppm) so the fee shows
    devnet = await arkServer.startDevnetWithArk({
      seed: "lightning-receive-e2e",
      ark: {
        profile: "test",
        overrides: { fees: { ...arkServer.testFeeSchedule(), lightningReceive: { baseFeeSat: 100n, ppm: 2000n } }, maxLnReceiveAmount: 150_000n },
      },
    });
    if (devnet.node.tipHeight() < 101) devnet.node.mine(101 - devnet.node.tipHeight());
    alice = await startDaemon({ config: CONFIG });
    bob = await startDaemon({ config: CONFIG });
    await ok(alice, "POST", "/api/v1/wallet/create", createBody(devnet, ALICE_MNEMONIC));
    await ok(bob, "POST", "/api/v1/wallet/create", createBody(devnet, BOB_MNEMONIC));
    await ok(alice, "POST", "/api/v1/wallet/import-vtxo", { vtxos: [await boardToDaemon(alice, devnet, ALICE_MNEMONIC, 100_000n)] });
    await ok(bob, "POST", "/api/v1/wallet/import-vtxo", { vtxos: [await boardToDaemon(bob, devnet, BOB_MNEMONIC, 100_000n)] });
  });
  after(async () => {
    for (const d of [alice, bob]) if (d) { await d.stop(); cleanup(d.datadir); }
    await devnet?.stop();
  });

  const checked = new Set<string>();
  /** Calls a daemon and requires barkd to document a JSON schema for the answer, which the body must match. */
  async function call(d: Daemon, method: string, path: string, body?: unknown): Promise<ApiResponse> {
    const r = await d.api(method, path, body === undefined ? (method === "POST" ? { body: {} } : {}) : { body });
    expect(checkAgainstBarkd(method, path, r.status, r.json), `barkd's schema for ${method} ${path} ${r.status}: ${r.text}`).to.equal(true);
    checked.add(`${method} ${barkdTemplate(path.split("?")[0]!)} ${r.status}`);
    return r;
  }
  async function okChecked<T>(d: Daemon, method: string, path: string, body?: unknown): Promise<T> {
    const r = await call(d, method, path, body);
    expect(r.status, `${method} ${path}: ${r.text}`).to.equal(200);
    return r.json as T;
  }
  const balance = (d: Daemon) => okChecked<Balance>(d, "GET", "/api/v1/wallet/balance");
  const receive = (d: Daemon, id: string) => okChecked<ReceiveInfo>(d, "GET", `/api/v1/lightning/receives/${id}`);
  const invoice = async (d: Daemon, amount: number, extra: Record<string, unknown> = {}) =>
    (await okChecked<{ invoice: string }>(d, "POST", "/api/v1/lightning/receives/invoice", { amount_sat: amount, ...extra })).invoice;
  async function control<T>(method: string, path: string, body?: unknown): Promise<T> {
    const r = await fetch(`${devnet.lnControlUrl}${path}`, { method, headers: { "content-type": "application/json" }, ...(body ? { body: JSON.stringify(body) } : {}) });
    expect(r.status, `${method} ${path}: ${await r.clone().text()}`).to.equal(200);
    return (await r.json()) as T;
  }
  const hashOf = async (d: Daemon, inv: string) => (await receive(d, inv)).payment_hash;
  const settled = (d: Daemon, hash: string) => until("settled", async () => { const r = await receive(d, hash); return r.state === "settled" ? r : undefined; }, 60_000);

  it("an external payer pays the invoice: the daemon claims on its own; balance, history, notification and the fee estimate agree", async () => {
    const fee = await okChecked<FeeEstimate>(alice, "GET", "/api/v1/fees/lightning/receive?amount_sat=30000");
    expect(fee).to.deep.include({ gross_amount_sat: 30_000, fee_sat: 100 + 60, net_amount_sat: 30_000 - 160 });
    expect(fee.vtxos_spent).to.deep.equal([]);
    const before = await balance(alice);
    const since = (await ok<{ last_pushed_at: string | null }>(alice, "GET", "/api/v1/notifications/wait")).last_pushed_at;
    const inv = await invoice(alice, 30_000, { description: "coffee" });
    const open = await receive(alice, inv);
    expect(open).to.deep.include({ state: "awaiting-payment", invoice: inv, amount_sat: 30_000, htlc_vtxo_ids: [], settled_at: null, finished_at: null, htlc_vtxos: [] });
    expect(sha256Hex(open.payment_preimage!)).to.equal(open.payment_hash);
    expect((await okChecked<ReceiveInfo[]>(alice, "GET", "/api/v1/lightning/receives")).map((r) => r.payment_hash)).to.include(open.payment_hash);

    await control("POST", "/hold-invoices/pay", { invoice: inv });
    const done = await settled(alice, open.payment_hash);
    expect(done.settled_at).to.be.a("string");
    expect(done.finished_at).to.equal(done.settled_at);
    expect(done.payment_preimage).to.equal(open.payment_preimage);
    const view = await until("payer succeeded", async () => {
      const v = await control<HoldInvoiceView & Record<string, unknown>>("GET", `/hold-invoices/${open.payment_hash}`);
      return JSON.stringify(v).includes("succeeded") ? v : undefined;
    });
    expect(JSON.stringify(view)).to.contain(open.payment_preimage!);
    const after = await balance(alice);
    expect(after.spendable_sat).to.equal(before.spendable_sat + fee.net_amount_sat);
    expect(after.claimable_lightning_receive_sat).to.equal(0);
    const m = (await okChecked<Movement[]>(alice, "GET", "/api/v1/history")).find((x) => x.subsystem.name === "bark.lightning_receive" && x.metadata?.payment_hash === open.payment_hash);
    expect(m).to.deep.include({
      status: "successful", subsystem: { name: "bark.lightning_receive", kind: "receive" }, intended_balance_sat: 30_000,
      effective_balance_sat: fee.net_amount_sat, offchain_fee_sat: fee.fee_sat, received_on: [{ destination: { type: "invoice", value: inv }, amount_sat: 30_000 }],
    });
    expect(m!.metadata?.payment_preimage).to.equal(open.payment_preimage);
    // one claimed VTXO per HTLC-recv VTXO the server granted from its pool; together the net amount
    let claimedSum = 0;
    for (const id of m!.output_vtxos) claimedSum += (await ok<{ amount_sat: number; state: { type: string } }>(alice, "GET", `/api/v1/wallet/vtxos/${id}`)).amount_sat;
    expect(m!.output_vtxos.length).to.be.at.least(1);
    expect(claimedSum).to.equal(fee.net_amount_sat);
    const polled = await ok<{ notifications: { type: string; movement: Movement }[] }>(alice, "GET", `/api/v1/notifications/wait${since ? `?since=${since}` : ""}`);
    expect(polled.notifications.filter((n) => n.movement.id === m!.id).map((n) => n.type)).to.include("movement-created");
    expect((await okChecked<ReceiveInfo[]>(alice, "GET", "/api/v1/lightning/receives")).map((r) => r.payment_hash)).to.not.include(open.payment_hash);
    expect(await receive(alice, open.payment_hash)).to.deep.equal(done);
  });

  it("DELETE before payment cancels: the receive is gone (GET answers barkd's 500), the server's hold invoice is cancelled", async () => {
    const inv = await invoice(alice, 5_000);
    const hash = await hashOf(alice, inv);
    // barkd documents an empty 200 (no JSON schema)
    const r = await alice.api("DELETE", `/api/v1/lightning/receives/${hash}`);
    expect([r.status, r.text]).to.deep.equal([200, ""]);
    const gone = await call(alice, "GET", `/api/v1/lightning/receives/${hash}`);
    expect([gone.status, gone.json]).to.deep.equal([500, { message: "Failed to get lightning receive status: no pending lightning receive found for this payment hash" }]);
    expect((await okChecked<ReceiveInfo[]>(alice, "GET", "/api/v1/lightning/receives")).map((x) => x.payment_hash)).to.not.include(hash);
    const view = await control<Record<string, unknown>>("GET", `/hold-invoices/${hash}`);
    expect(JSON.stringify(view)).to.match(/cancel/);
    const again = await call(alice, "DELETE", `/api/v1/lightning/receives/${inv}`);
    expect(again.status).to.equal(500);
  });

  it("a second daemon on the same server pays the invoice through POST /lightning/pay (intra-Ark): received minus the fee, the payer's send paid", async () => {
    const before = await balance(alice);
    const inv = await invoice(alice, 20_000);
    const hash = await hashOf(alice, inv);
    const paid = await okChecked<{ message: string; payment_hash: string }>(bob, "POST", "/api/v1/lightning/pay", { destination: inv });
    expect(paid.payment_hash).to.equal(hash);
    await settled(alice, hash);
    const fee = await okChecked<FeeEstimate>(alice, "GET", "/api/v1/fees/lightning/receive?amount_sat=20000");
    expect((await balance(alice)).spendable_sat).to.equal(before.spendable_sat + fee.net_amount_sat);
    const send = await until("bob's send paid", async () => {
      const s = await okChecked<{ state: string; preimage: string | null }>(bob, "GET", `/api/v1/lightning/sends/${hash}`);
      return s.state === "paid" ? s : undefined;
    }, 60_000);
    expect(sha256Hex(send.preimage!)).to.equal(hash);
  });

  it("an invoice for another wallet's address: Alice claims and delivers, Bob's balance rises by the amount minus the fee", async () => {
    const { address } = await ok<{ address: string }>(bob, "POST", "/api/v1/wallet/addresses/next");
    const bobBefore = (await balance(bob)).spendable_sat;
    const aliceBefore = (await balance(alice)).spendable_sat;
    const inv = (await okChecked<{ invoice: string }>(alice, "POST", "/api/v1/lightning/receives/invoice/for-address", { amount_sat: 12_000, address })).invoice;
    await control("POST", "/hold-invoices/pay", { invoice: inv });
    await settled(alice, await hashOf(alice, inv));
    const fee = await okChecked<FeeEstimate>(alice, "GET", "/api/v1/fees/lightning/receive?amount_sat=12000");
    await until("bob received", async () => ((await balance(bob)).spendable_sat === bobBefore + fee.net_amount_sat ? true : undefined), 30_000);
    expect((await balance(alice)).spendable_sat).to.equal(aliceBefore);
  });

  it("an invoice for the wallet's own address is claimed locally: credited once", async () => {
    const { address } = await ok<{ address: string }>(alice, "POST", "/api/v1/wallet/addresses/next");
    const before = (await balance(alice)).spendable_sat;
    const inv = (await okChecked<{ invoice: string }>(alice, "POST", "/api/v1/lightning/receives/invoice/for-address", { amount_sat: 6_000, address })).invoice;
    await control("POST", "/hold-invoices/pay", { invoice: inv });
    await settled(alice, await hashOf(alice, inv));
    const fee = await okChecked<FeeEstimate>(alice, "GET", "/api/v1/fees/lightning/receive?amount_sat=6000");
    expect((await balance(alice)).spendable_sat).to.equal(before + fee.net_amount_sat);
  });

  it("the server's receive limit: above it the request is barkd's 500 with the server's text, at it an invoice is made", async () => {
    const over = await call(alice, "POST", "/api/v1/lightning/receives/invoice", { amount_sat: 150_001 });
    expect(over.status).to.equal(500);
    expect((over.json as { message: string }).message).to.match(/^Failed to create invoice: .*Requested amount exceeds lightning receive limit of 150000/);
    const at = await okChecked<{ invoice: string }>(alice, "POST", "/api/v1/lightning/receives/invoice", { amount_sat: 150_000 });
    expect((await receive(alice, at.invoice)).amount_sat).to.equal(150_000);
  });

  it("POST /wallet/bip321 with an amount carries lightning=<a fresh invoice of this wallet for that amount>", async () => {
    const r = await okChecked<{ bip321: string; bolt11?: string }>(alice, "POST", "/api/v1/wallet/bip321", { amount_sat: 7_000 });
    const m = /[?&]lightning=([^&]+)/i.exec(r.bip321);
    expect(m, r.bip321).to.not.equal(null);
    const inv = decodeURIComponent(m![1]!);
    expect(inv.toLowerCase()).to.equal(r.bolt11!.toLowerCase());
    const info = await receive(alice, inv);
    expect(info).to.deep.include({ state: "awaiting-payment", amount_sat: 7_000 });
    const without = await okChecked<{ bip321: string; bolt11?: string | null }>(alice, "POST", "/api/v1/wallet/bip321", {});
    expect(without.bip321).to.not.match(/lightning=/i);
    expect(without.bolt11 ?? undefined).to.equal(undefined);
  });

  it("bad input answers barkd's codes and texts", async () => {
    const badId = await call(alice, "GET", "/api/v1/lightning/receives/nothing");
    expect([badId.status, badId.json]).to.deep.equal([400, { message: "identifier is not a valid payment hash, invoice or preimage" }]);
    const badCancel = await call(alice, "DELETE", "/api/v1/lightning/receives/nothing");
    expect([badCancel.status, badCancel.json]).to.deep.equal([400, { message: "identifier is not a valid payment hash or invoice" }]);
    const zero = await call(alice, "POST", "/api/v1/lightning/receives/invoice", { amount_sat: 0 });
    expect(zero.status).to.equal(500);
    expect((zero.json as { message: string }).message).to.match(/^Failed to create invoice: /);
    const badAddress = await call(alice, "POST", "/api/v1/lightning/receives/invoice/for-address", { amount_sat: 1_000, address: "nope" });
    expect(badAddress.status).to.equal(400);
    expect((badAddress.json as { message: string }).message).to.match(/^bad request: address is not a valid Ark address/);
    const missing = await alice.api("POST", "/api/v1/lightning/receives/invoice", { body: {} });
    expect(missing.status).to.be.oneOf([400, 422]);
  });

  it("every receive operation answered was checked against barkd's schema", () => {
    for (const op of [
      "POST /api/v1/lightning/receives/invoice 200", "POST /api/v1/lightning/receives/invoice 500", "POST /api/v1/lightning/receives/invoice/for-address 200",
      "POST /api/v1/lightning/receives/invoice/for-address 400", "GET /api/v1/lightning/receives 200", "GET /api/v1/lightning/receives/{identifier} 200",
      "GET /api/v1/lightning/receives/{identifier} 400", "GET /api/v1/lightning/receives/{identifier} 500", "DELETE /api/v1/lightning/receives/{identifier} 400", "GET /api/v1/fees/lightning/receive 200",
    ]) expect([...checked], op).to.include(op);
  });
});
