/**
 * Lightning send on the real daemon over HTTP against the devnet's reference Ark server and its
 * simulated Lightning network: a normal invoice is paid (preimage, balance, history), an
 * unroutable one is revoked with the money back, a hold invoice shows as pending until the payee
 * settles or cancels it, the fee estimate is what is charged, and bad input changes nothing. Every
 * answer's body is checked against barkd's OpenAPI schema for its operation and status.
 */
import { expect } from "chai";
import { createHash } from "node:crypto";
import { barkdTemplate, checkAgainstBarkd } from "../src/barkd-schemas.js";
import { cleanup, startDaemon, type ApiResponse, type Daemon } from "../src/daemon-process.js";
import {
  ALICE_MNEMONIC, boardToDaemon, createBody, ok, startArkDevnet, until, type Balance, type DevnetWithArk, type Movement,
} from "./ark-harness.js";

interface SendInfo { payment_hash: string; state: string; invoice: string | null; preimage: string | null }
interface FeeEstimate { gross_amount_sat: number; fee_sat: number; net_amount_sat: number; vtxos_spent: string[] }

const CONFIG = {
  plugins: [
    "@tender/plugin-wallet", "@tender/plugin-notifications", "@tender/plugin-history", "@tender/plugin-chain", "@tender/plugin-fees",
    "@tender/plugin-ark", "@tender/plugin-lightning",
  ],
  pluginConfig: { notifications: { waitTimeoutMs: 300 }, ark: { deliveryRetryMs: 500 } },
};

describe("Lightning send over HTTP on the devnet (POST /lightning/pay, GET /lightning/sends/{id}, GET /fees/lightning/pay)", function () {
  this.timeout(120_000);
  let devnet: DevnetWithArk;
  let alice: Daemon;

  before(async () => {
    devnet = await startArkDevnet("lightning-send-e2e");
    alice = await startDaemon({ config: CONFIG });
    await ok(alice, "POST", "/api/v1/wallet/create", createBody(devnet, ALICE_MNEMONIC));
    const hex = await boardToDaemon(alice, devnet, ALICE_MNEMONIC, 200_000n);
    await ok(alice, "POST", "/api/v1/wallet/import-vtxo", { vtxos: [hex] });
    expect((await balance()).spendable_sat).to.equal(200_000);
  });
  after(async () => {
    if (alice) { await alice.stop(); cleanup(alice.datadir); }
    await devnet?.stop();
  });

  /** Every Lightning-related operation and status answered, as `METHOD template status`, once its body matched barkd's schema. */
  const checked = new Set<string>();
  /** Calls Alice's daemon and requires barkd to document a JSON schema for the answer, which the body must match. */
  async function call(method: string, path: string, body?: unknown): Promise<ApiResponse> {
    const r = await alice.api(method, path, body === undefined ? (method === "POST" ? { body: {} } : {}) : { body });
    expect(checkAgainstBarkd(method, path, r.status, r.json), `barkd's schema for ${method} ${path} ${r.status}`).to.equal(true);
    checked.add(`${method} ${barkdTemplate(path.split("?")[0]!)} ${r.status}`);
    return r;
  }
  async function okChecked<T>(method: string, path: string, body?: unknown): Promise<T> {
    const r = await call(method, path, body);
    expect(r.status, `${method} ${path}: ${r.text}`).to.equal(200);
    return r.json as T;
  }

  const balance = () => okChecked<Balance>("GET", "/api/v1/wallet/balance");
  const status = (id: string) => okChecked<SendInfo>("GET", `/api/v1/lightning/sends/${id}`);
  const sendMovement = async (hash: string) => (await okChecked<Movement[]>("GET", "/api/v1/history"))
    .find((m) => m.subsystem.name === "bark.lightning_send" && m.metadata?.payment_hash === hash);

  it("pays a normal invoice: the preimage hashes to the payment hash, the balance drops by amount + the estimated fee, the movement succeeds", async () => {
    const before = (await balance()).spendable_sat;
    const fee = await okChecked<FeeEstimate>("GET", "/api/v1/fees/lightning/pay?amount_sat=20000");
    expect(fee.net_amount_sat).to.equal(20_000);
    expect(fee.gross_amount_sat).to.equal(20_000 + fee.fee_sat);
    const inv = devnet.lightning.createInvoice({ amountSat: 20_000n, description: "coffee" });
    const { movement_id: paidMovement, ...paid } = await okChecked<{ message: string; payment_hash: string; movement_id: number }>("POST", "/api/v1/lightning/pay", { destination: inv.invoice });
    expect(paid).to.deep.equal({ message: "Payment initiated successfully", payment_hash: inv.paymentHash });
    expect(paidMovement, "tender names the payment's movement").to.be.a("number");
    const done = await until("paid", async () => { const s = await status(inv.paymentHash); return s.state === "paid" ? s : undefined; });
    expect(done.invoice).to.equal(null);
    expect(createHash("sha256").update(Buffer.from(done.preimage!, "hex")).digest("hex")).to.equal(inv.paymentHash);
    expect(await status(inv.invoice)).to.deep.equal(done);
    expect(devnet.lightning.invoice(inv.paymentHash)!.state).to.equal("paid");
    const b = await balance();
    expect(b.spendable_sat).to.equal(before - 20_000 - fee.fee_sat);
    expect(b.pending_lightning_send_sat).to.equal(0);
    const m = await sendMovement(inv.paymentHash);
    expect(m?.status).to.equal("successful");
    expect(m?.metadata?.payment_preimage).to.equal(done.preimage);
    expect(m?.sent_to).to.deep.equal([{ destination: { type: "invoice", value: inv.invoice }, amount_sat: 20_000 }]);
    expect(m?.intended_balance_sat).to.equal(-20_000);
    expect(m?.effective_balance_sat).to.equal(-20_000 - fee.fee_sat);
    // paying it again is refused and changes nothing
    const again = await call("POST", "/api/v1/lightning/pay", { destination: inv.invoice });
    expect([again.status, again.json]).to.deep.equal([500, { message: "Invoice has already been paid" }]);
    expect((await balance()).spendable_sat).to.equal(b.spendable_sat);
  });

  it("an unroutable invoice is revoked: the HTLCs come back as a spendable VTXO, the balance is whole again, the send reads unknown, the movement failed", async () => {
    const before = (await balance()).spendable_sat;
    const inv = devnet.lightning.createInvoice({ amountSat: 10_000n, kind: "unroutable" });
    await okChecked("POST", "/api/v1/wallet/send", { destination: inv.invoice });
    // the failed movement and the send's own record are two writes: wait for both
    const m = await until("revoked", async () => {
      const x = await sendMovement(inv.paymentHash);
      return x?.status === "failed" && (await status(inv.paymentHash)).state === "unknown" ? x : undefined;
    });
    expect(m.effective_balance_sat).to.equal(0);
    expect(await status(inv.paymentHash)).to.deep.equal({ payment_hash: inv.paymentHash, state: "unknown", invoice: null, preimage: null });
    const b = await balance();
    expect(b.spendable_sat).to.equal(before);
    expect(b.pending_lightning_send_sat).to.equal(0);
  });

  it("a hold invoice is pending_lightning_send_sat while held; settled it is paid, canceled it is refunded", async () => {
    const before = (await balance()).spendable_sat;
    const held = devnet.lightning.createInvoice({ amountSat: 5_000n, kind: "hold" });
    await okChecked("POST", "/api/v1/lightning/pay", { destination: held.invoice });
    await until("held", async () => (devnet.lightning.invoice(held.paymentHash)!.state === "held" ? true : undefined));
    const s = await status(held.paymentHash);
    expect(s.state).to.equal("payment-initiated");
    expect(s.invoice).to.equal(held.invoice);
    const pending = await balance();
    expect(pending.pending_lightning_send_sat).to.be.at.least(5_000);
    const fee = pending.pending_lightning_send_sat - 5_000;
    expect(pending.spendable_sat).to.equal(before - 5_000 - fee);
    devnet.lightning.settleHold(held.paymentHash);
    await until("paid", async () => ((await status(held.paymentHash)).state === "paid" ? true : undefined));
    expect(await balance()).to.include({ spendable_sat: before - 5_000 - fee, pending_lightning_send_sat: 0 });

    const canceled = devnet.lightning.createInvoice({ amountSat: 7_000n, kind: "hold" });
    const mid = (await balance()).spendable_sat;
    await okChecked("POST", "/api/v1/lightning/pay", { destination: canceled.invoice });
    await until("held", async () => (devnet.lightning.invoice(canceled.paymentHash)!.state === "held" ? true : undefined));
    expect((await balance()).pending_lightning_send_sat).to.be.at.least(7_000);
    devnet.lightning.cancelHold(canceled.paymentHash);
    // refunded: the movement failed and the revoked HTLCs are back (pending 0) — two writes the test must not race
    await until("refunded", async () => ((await sendMovement(canceled.paymentHash))?.status === "failed" && (await balance()).pending_lightning_send_sat === 0 ? true : undefined));
    expect(await balance()).to.include({ spendable_sat: mid, pending_lightning_send_sat: 0 });
  });

  it("refuses bad input with barkd's codes and texts and changes nothing", async () => {
    const before = await balance();
    const history = (await okChecked<Movement[]>("GET", "/api/v1/history")).length;
    const notLn = await call("POST", "/api/v1/lightning/pay", { destination: "not-an-invoice" });
    expect([notLn.status, notLn.json]).to.deep.equal([400, { message: "argument is not a valid BOLT-11 invoice, BOLT-12 offer, Lightning address or LNURL" }]);
    const inv = devnet.lightning.createInvoice({ amountSat: 1_000n });
    const comment = await call("POST", "/api/v1/lightning/pay", { destination: inv.invoice, comment: "hi" });
    expect([comment.status, comment.json]).to.deep.equal([400, { message: "comment is not supported for BOLT-11 invoices" }]);
    const badId = await call("GET", "/api/v1/lightning/sends/xyz");
    expect([badId.status, badId.json]).to.deep.equal([400, { message: "identifier is not a valid payment hash or invoice" }]);
    const unseen = "ab".repeat(32);
    expect(await status(unseen)).to.deep.equal({ payment_hash: unseen, state: "unknown", invoice: null, preimage: null });
    const tooMuch = devnet.lightning.createInvoice({ amountSat: 10_000_000n });
    const poor = await call("POST", "/api/v1/lightning/pay", { destination: tooMuch.invoice });
    expect(poor.status).to.equal(500);
    expect((poor.json as { message: string }).message).to.match(/^Failed to pay lightning invoice: Insufficient money available/);
    expect(await balance()).to.deep.equal(before);
    expect((await okChecked<Movement[]>("GET", "/api/v1/history")).length).to.equal(history);
  });

  it("answered every Lightning request above with a body matching barkd's OpenAPI schema for that operation and status", () => {
    expect([...checked].sort()).to.include.members([
      "GET /api/v1/fees/lightning/pay 200", "GET /api/v1/lightning/sends/{identifier} 200", "GET /api/v1/lightning/sends/{identifier} 400",
      "GET /api/v1/wallet/balance 200", "GET /api/v1/history 200",
      "POST /api/v1/lightning/pay 200", "POST /api/v1/lightning/pay 400", "POST /api/v1/lightning/pay 500", "POST /api/v1/wallet/send 200",
    ]);
  });
});
