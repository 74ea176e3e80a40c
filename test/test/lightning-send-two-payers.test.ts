/**
 * One invoice, several payers, on the real daemon over HTTP against the devnet (server charging
 * captaind's Lightning-send fee): while one wallet's payment is in flight another wallet is
 * refused by the server with nothing locked or lost, and refused again once the first one paid;
 * five concurrent requests of one daemon give exactly one payment; two daemons paying at the
 * same moment pay the payee once and one send is paid; the other is refused, and should both
 * have had their HTLCs cosigned before either payment started, the refused one never counts its
 * HTLCs as paid (the server refuses to revoke them for an invoice another payer settled, as
 * captaind does, so they stay pending and unspent at the server). A payer whose
 * `InitiateLightningPayment` got no answer (dropped by the devnet's fault proxy) and who then sees
 * the invoice paid by another wallet does not take that success for its own: its HTLCs are still
 * spendable at the server, so it asks them back instead of recording the payment.
 */
import { expect } from "chai";
import { cleanup, startDaemon, type ApiResponse, type Daemon } from "../src/daemon-process.js";
import {
  ALICE_MNEMONIC, BOB_MNEMONIC, CAROL_MNEMONIC, boardToDaemon, createBody, ok, until, type DevnetWithArk, type VtxoInfo,
} from "./ark-harness.js";
import {
  LIGHTNING_CONFIG, balance, feeDevnet, sendMovements, sendStatus, serverState, untilPaid, walletAgreesWithServer,
} from "./lightning-send-harness.js";
import { printLogsOnFailure } from "./rounds-harness.js";
import { armFault, clearFaults, faultHits, proxyBody } from "./recovery-harness.js";

describe("one invoice, several payers (two daemons, or one daemon concurrently)", function () {
  this.timeout(120_000);
  let devnet: DevnetWithArk;
  let alice: Daemon;
  let bob: Daemon;
  /** Talks to the server through the devnet's fault proxy. */
  let carol: Daemon;

  before(async () => {
    devnet = await feeDevnet("lightning-send-two-payers-e2e");
    [alice, bob, carol] = await Promise.all([startDaemon({ config: LIGHTNING_CONFIG }), startDaemon({ config: LIGHTNING_CONFIG }), startDaemon({ config: LIGHTNING_CONFIG })]);
    for (const [d, mnemonic] of [[alice, ALICE_MNEMONIC], [bob, BOB_MNEMONIC], [carol, CAROL_MNEMONIC]] as const) {
      await ok(d, "POST", "/api/v1/wallet/create", d === carol ? proxyBody(devnet, mnemonic) : createBody(devnet, mnemonic));
      await ok(d, "POST", "/api/v1/wallet/import-vtxo", { vtxos: [await boardToDaemon(d, devnet, mnemonic, 300_000n)] });
    }
  });
  afterEach(function () {
    printLogsOnFailure(this, { alice, bob, carol });
  });
  after(async () => {
    for (const d of [alice, bob, carol]) if (d) { await d.stop(); cleanup(d.datadir); }
    await devnet?.stop();
  });

  const pay = (d: Daemon, invoice: string): Promise<ApiResponse> => d.api("POST", "/api/v1/lightning/pay", { body: { destination: invoice } });
  const completePays = (hash: string) => devnet.lightning.allPays().filter((p) => p.status === "complete" && Buffer.from(p.paymentHash).toString("hex") === hash);

  /** The wallet is as it was: balance, nothing pending or locked, every VTXO agreeing with the server; a movement of `hash`, if any, failed without a fee. */
  async function untouched(d: Daemon, spendableBefore: number, hash: string): Promise<void> {
    expect(await balance(d)).to.deep.include({ spendable_sat: spendableBefore, pending_lightning_send_sat: 0 });
    expect((await ok<VtxoInfo[]>(d, "GET", "/api/v1/wallet/vtxos?all=true")).filter((v) => v.state.type === "locked")).to.deep.equal([]);
    expect(await walletAgreesWithServer(d, devnet)).to.equal(spendableBefore);
    for (const m of await sendMovements(d, hash)) expect(m).to.deep.include({ status: "failed", effective_balance_sat: 0, offchain_fee_sat: 0 });
    expect((await sendStatus(d, hash)).state).to.equal("unknown");
  }

  it("while Alice's payment is held Bob is refused (payment already in progress), nothing locked; once it is paid Bob is refused (already paid)", async () => {
    const aliceBefore = (await balance(alice)).spendable_sat;
    const bobBefore = (await balance(bob)).spendable_sat;
    const held = devnet.lightning.createInvoice({ amountSat: 30_000n, kind: "hold" });
    await ok(alice, "POST", "/api/v1/lightning/pay", { destination: held.invoice });
    await until("the payee to hold Alice's payment", async () => (devnet.lightning.invoice(held.paymentHash)!.state === "held" ? true : undefined));

    // the server refuses Bob's HTLC cosign: barkd's prefix and the server's text
    const second = await pay(bob, held.invoice);
    expect(second.status).to.equal(500);
    expect((second.json as { message: string }).message).to.match(/^Failed to pay lightning invoice: .*payment already in progress for this invoice$/);
    await untouched(bob, bobBefore, held.paymentHash);
    expect((await sendStatus(alice, held.paymentHash)).state).to.equal("payment-initiated");

    devnet.lightning.settleHold(held.paymentHash);
    await untilPaid(alice, held.paymentHash);
    const [m] = await sendMovements(alice, held.paymentHash);
    expect(m!.status).to.equal("successful");
    expect((await balance(alice)).spendable_sat).to.equal(aliceBefore + m!.effective_balance_sat);

    const third = await pay(bob, held.invoice);
    expect(third.status).to.equal(500);
    expect((third.json as { message: string }).message).to.match(/^Failed to pay lightning invoice: .*invoice has already been paid$/);
    await untouched(bob, bobBefore, held.paymentHash);
    expect(completePays(held.paymentHash)).to.have.length(1);
  });

  it("five concurrent requests of one daemon: exactly one pays, the others are refused as in progress or paid; one movement, amount + fee spent once", async () => {
    const before = (await balance(alice)).spendable_sat;
    const inv = devnet.lightning.createInvoice({ amountSat: 10_000n });
    const answers = await Promise.all(Array.from({ length: 5 }, () => pay(alice, inv.invoice)));
    const accepted = answers.filter((a) => a.status === 200);
    expect(accepted).to.have.length(1);
    expect(accepted[0]!.json).to.deep.include({ message: "Payment initiated successfully", payment_hash: inv.paymentHash });
    for (const a of answers.filter((x) => x.status !== 200)) {
      expect(a.status).to.equal(500);
      expect((a.json as { message: string }).message).to.be.oneOf(["payment already in progress for this invoice", "Invoice has already been paid"]);
    }
    await untilPaid(alice, inv.paymentHash);
    const movements = await sendMovements(alice, inv.paymentHash);
    expect(movements.map((m) => m.status)).to.deep.equal(["successful"]);
    expect((await balance(alice)).spendable_sat).to.equal(before - 10_000 - movements[0]!.offchain_fee_sat);
    expect(completePays(inv.paymentHash)).to.have.length(1);
    expect(await walletAgreesWithServer(alice, devnet)).to.equal((await balance(alice)).spendable_sat);
  });

  it("Alice and Bob pay one invoice at the same moment: the payee is paid once, one send is paid; the other is refused, and HTLCs it got cosigned are never counted as paid", async () => {
    const before = new Map([[alice, (await balance(alice)).spendable_sat], [bob, (await balance(bob)).spendable_sat]]);
    const inv = devnet.lightning.createInvoice({ amountSat: 12_000n });
    const answers = new Map(await Promise.all([alice, bob].map(async (d) => [d, await pay(d, inv.invoice)] as const)));
    const accepted = [...answers].filter(([, r]) => r.status === 200);
    expect(accepted.length, [...answers.values()].map((r) => r.text).join(" / ")).to.equal(1);
    const [winner] = accepted[0]!;
    const loser = winner === alice ? bob : alice;
    const refusal = answers.get(loser)!;
    expect(refusal.status).to.equal(500);
    expect((refusal.json as { message: string }).message).to.match(/^Failed to pay lightning invoice: .*(payment already in progress for this invoice|invoice has already been paid)$/);

    await untilPaid(winner, inv.paymentHash);
    expect(completePays(inv.paymentHash)).to.have.length(1);
    const [m] = await sendMovements(winner, inv.paymentHash);
    expect(m!.status).to.equal("successful");
    for (const id of m!.metadata?.htlc_vtxos as string[]) expect(await serverState(devnet, id)).to.equal("spent");
    expect((await balance(winner)).spendable_sat).to.equal(before.get(winner)! - 12_000 - m!.offchain_fee_sat);
    expect(await walletAgreesWithServer(winner, devnet)).to.equal((await balance(winner)).spendable_sat);

    if ((await sendStatus(loser, inv.paymentHash)).state === "unknown") {
      // refused at the HTLC cosign: nothing was locked
      await untouched(loser, before.get(loser)!, inv.paymentHash);
      return;
    }
    // both cosigns passed before either payment was initiated; the server refused the loser's initiate. Its HTLCs
    // are asked back, which the server refuses for an invoice another payer settled: the send is stuck, never paid
    const stuck = await until("the loser's revocation refused for the settled invoice", async () => {
      const s = await sendStatus(loser, inv.paymentHash);
      return s.state === "revocation-stuck" ? s : undefined;
    }, 30_000);
    expect(stuck.preimage).to.equal(null);
    await new Promise((r) => setTimeout(r, 4_000)); // a retry later it still is not counted as paid
    expect((await sendStatus(loser, inv.paymentHash)).state).to.equal("revocation-stuck");
    const [lm, ...more] = await sendMovements(loser, inv.paymentHash);
    expect(more).to.deep.equal([]);
    expect(lm!.status).to.equal("pending");
    const b = await balance(loser);
    expect(b.pending_lightning_send_sat, "the HTLCs still count as the wallet's").to.equal(12_000 + lm!.offchain_fee_sat);
    expect(b.spendable_sat + b.pending_lightning_send_sat).to.equal(before.get(loser)!);
    for (const id of lm!.metadata?.htlc_vtxos as string[]) expect(await serverState(devnet, id), "the loser's HTLC was not taken").to.equal("spendable");
  });

  it("Carol's initiate gets no answer, then Alice pays the invoice: Carol's HTLCs stay unspent at the server, so the success is not hers: never paid, revocation asked for", async () => {
    const before = (await balance(carol)).spendable_sat;
    const inv = devnet.lightning.createInvoice({ amountSat: 11_000n });
    // Carol's initiate never reaches the server, and her status checks go unanswered until Alice has paid
    const dropInitiate = await armFault(devnet, { kind: "drop", method: "InitiateLightningPayment" });
    const dropCheck = await armFault(devnet, { kind: "drop", method: "CheckLightningPayment" });
    const carolAnswer = await pay(carol, inv.invoice);
    expect(carolAnswer.status, carolAnswer.text).to.equal(200); // unanswered: pending, completed or revoked in the background
    expect(await faultHits(devnet, dropInitiate.id)).to.be.greaterThan(0);
    expect(await faultHits(devnet, dropCheck.id)).to.be.greaterThan(0);
    const [cm] = await sendMovements(carol, inv.paymentHash);
    const carolHtlcs = cm!.metadata?.htlc_vtxos as string[];
    for (const id of carolHtlcs) expect(await serverState(devnet, id), "Carol's HTLCs are cosigned and registered").to.equal("spendable");

    // no attempt holds Carol's HTLCs, so the server cosigns and pays Alice's
    await ok(alice, "POST", "/api/v1/lightning/pay", { destination: inv.invoice });
    // (not untilPaid: Alice may still hold the stuck HTLCs of the race above as pending)
    const alicePaid = await until("Alice's send paid", async () => {
      const st = await sendStatus(alice, inv.paymentHash);
      return st.state === "paid" ? st : undefined;
    }, 30_000);
    expect(alicePaid.preimage).to.be.a("string");
    expect(completePays(inv.paymentHash)).to.have.length(1);

    // Carol's checks now read the hash's success; her own HTLCs were not spent by it
    await clearFaults(devnet);
    const stuck = await until("Carol's revocation refused for the invoice Alice settled", async () => {
      const st = await sendStatus(carol, inv.paymentHash);
      return st.state === "revocation-stuck" ? st : undefined;
    }, 30_000);
    expect(stuck.preimage).to.equal(null);
    await new Promise((r) => setTimeout(r, 4_000)); // a few checks and retries later she still is not paid
    expect((await sendStatus(carol, inv.paymentHash)).state).to.equal("revocation-stuck");
    const [lm, ...more] = await sendMovements(carol, inv.paymentHash);
    expect(more).to.deep.equal([]);
    expect(lm!.status).to.equal("pending");
    const b = await balance(carol);
    expect(b.pending_lightning_send_sat, "the HTLCs still count as Carol's").to.equal(11_000 + lm!.offchain_fee_sat);
    expect(b.spendable_sat + b.pending_lightning_send_sat).to.equal(before);
    for (const id of carolHtlcs) expect(await serverState(devnet, id), "Carol's HTLC was not taken").to.equal("spendable");
  });
});
