/**
 * Intra-Ark Lightning from the daemons' side, over HTTP against the devnet (server charging
 * captaind's Lightning-send fee and a Lightning-receive fee of 100 sat + 2000 ppm): Bob's daemon
 * issues an invoice (`POST /lightning/receives/invoice`), Alice's daemon pays it
 * (`POST /lightning/pay`); the server pays inside the Ark, Bob claims, both balances and both
 * histories agree with the fees, Bob's receive is settled with the preimage Alice's send reports,
 * and the server holds Alice's HTLCs spent and Bob's new VTXOs spendable. An invoice Bob cancelled
 * is refused when Alice pays it: her HTLCs are revoked and nothing is lost on either side.
 */
import { expect } from "chai";
import { createHash } from "node:crypto";
import { cleanup, startDaemon, type Daemon } from "../src/daemon-process.js";
import { ALICE_MNEMONIC, BOB_MNEMONIC, boardToDaemon, createBody, ok, until, type DevnetWithArk, type Movement } from "./ark-harness.js";
import {
  LIGHTNING_CONFIG, balance, feeDevnet, sendMovements, sendStatus, serverAmount, serverState, untilPaid, untilRevoked, walletAgreesWithServer,
} from "./lightning-send-harness.js";
import { printLogsOnFailure } from "./rounds-harness.js";

interface ReceiveInfo { payment_hash: string; state: string; invoice: string; payment_preimage: string | null; amount_sat: number }
interface FeeEstimate { fee_sat: number; net_amount_sat: number }

const sha256Hex = (hex: string) => createHash("sha256").update(Buffer.from(hex, "hex")).digest("hex");

describe("intra-Ark Lightning between two daemons: Bob's invoice paid by Alice, and a cancelled one refused", function () {
  this.timeout(120_000);
  let devnet: DevnetWithArk;
  let alice: Daemon;
  let bob: Daemon;

  before(async () => {
    devnet = await feeDevnet("lightning-send-intra-ark-e2e", { lightningReceive: { baseFeeSat: 100n, ppm: 2000n } });
    [alice, bob] = await Promise.all([startDaemon({ config: LIGHTNING_CONFIG }), startDaemon({ config: LIGHTNING_CONFIG })]);
    for (const [d, mnemonic] of [[alice, ALICE_MNEMONIC], [bob, BOB_MNEMONIC]] as const) {
      await ok(d, "POST", "/api/v1/wallet/create", createBody(devnet, mnemonic));
      await ok(d, "POST", "/api/v1/wallet/import-vtxo", { vtxos: [await boardToDaemon(d, devnet, mnemonic, 200_000n)] });
    }
  });
  afterEach(function () {
    printLogsOnFailure(this, { alice, bob });
  });
  after(async () => {
    for (const d of [alice, bob]) if (d) { await d.stop(); cleanup(d.datadir); }
    await devnet?.stop();
  });

  const receive = (id: string) => ok<ReceiveInfo>(bob, "GET", `/api/v1/lightning/receives/${id}`);
  const bobInvoice = async (amount: number) => {
    const { invoice } = await ok<{ invoice: string }>(bob, "POST", "/api/v1/lightning/receives/invoice", { amount_sat: amount });
    return { invoice, hash: (await receive(invoice)).payment_hash };
  };
  const receiveMovements = async (hash: string) => (await ok<Movement[]>(bob, "GET", "/api/v1/history"))
    .filter((m) => m.subsystem.name === "bark.lightning_receive" && m.metadata?.payment_hash === hash);

  it("Alice pays Bob's invoice: Alice − amount − send fee, Bob + amount − receive fee, both movements successful, Bob's receive settled with Alice's preimage", async () => {
    const before = { alice: (await balance(alice)).spendable_sat, bob: (await balance(bob)).spendable_sat };
    const sendFee = (await ok<FeeEstimate>(alice, "GET", "/api/v1/fees/lightning/pay?amount_sat=25000")).fee_sat;
    const recvFee = await ok<FeeEstimate>(bob, "GET", "/api/v1/fees/lightning/receive?amount_sat=25000");
    expect(recvFee).to.deep.include({ fee_sat: 100 + 50, net_amount_sat: 25_000 - 150 });
    const { invoice, hash } = await bobInvoice(25_000);
    expect((await receive(hash)).state).to.equal("awaiting-payment");

    const paid = await ok<{ payment_hash: string }>(alice, "POST", "/api/v1/lightning/pay", { destination: invoice });
    expect(paid.payment_hash).to.equal(hash);
    const settled = await until("Bob's receive settled", async () => { const r = await receive(hash); return r.state === "settled" ? r : undefined; }, 60_000);
    const sent = await untilPaid(alice, hash, 60_000);
    expect(sent.preimage).to.equal(settled.payment_preimage);
    expect(sha256Hex(sent.preimage!)).to.equal(hash);
    // nothing left the Ark: the simulated Lightning network saw no payment of the hash
    expect(devnet.lightning.allPays().filter((p) => Buffer.from(p.paymentHash).toString("hex") === hash)).to.deep.equal([]);

    const [am, ...moreSends] = await sendMovements(alice, hash);
    expect(moreSends).to.deep.equal([]);
    expect(am).to.deep.include({
      status: "successful", intended_balance_sat: -25_000, effective_balance_sat: -(25_000 + sendFee), offchain_fee_sat: sendFee,
      sent_to: [{ destination: { type: "invoice", value: invoice }, amount_sat: 25_000 }],
    });
    expect(am!.metadata?.payment_preimage).to.equal(sent.preimage);
    await until("Bob's movement successful", async () => ((await receiveMovements(hash))[0]?.status === "successful" ? true : undefined));
    const [bm, ...moreReceives] = await receiveMovements(hash);
    expect(moreReceives).to.deep.equal([]);
    expect(bm).to.deep.include({
      status: "successful", intended_balance_sat: 25_000, effective_balance_sat: recvFee.net_amount_sat, offchain_fee_sat: recvFee.fee_sat,
      received_on: [{ destination: { type: "invoice", value: invoice }, amount_sat: 25_000 }],
    });

    expect(await balance(alice)).to.deep.include({ spendable_sat: before.alice - 25_000 - sendFee, pending_lightning_send_sat: 0 });
    expect(await balance(bob)).to.deep.include({ spendable_sat: before.bob + recvFee.net_amount_sat, claimable_lightning_receive_sat: 0 });
    // the server's view: Alice's HTLCs spent, Bob's claimed VTXOs spendable and worth the net amount
    for (const id of am!.metadata?.htlc_vtxos as string[]) expect(await serverState(devnet, id), `Alice's HTLC ${id}`).to.equal("spent");
    let claimed = 0;
    for (const id of bm!.output_vtxos) {
      expect(await serverState(devnet, id), `Bob's VTXO ${id}`).to.equal("spendable");
      claimed += await serverAmount(devnet, id);
    }
    expect(claimed).to.equal(recvFee.net_amount_sat);
    expect(await walletAgreesWithServer(alice, devnet)).to.equal(before.alice - 25_000 - sendFee);
    expect(await walletAgreesWithServer(bob, devnet)).to.equal(before.bob + recvFee.net_amount_sat);
  });

  it("Bob cancels his invoice, then Alice pays it: refused by the server, her HTLCs revoked, nothing lost on either side", async () => {
    const before = { alice: (await balance(alice)).spendable_sat, bob: (await balance(bob)).spendable_sat };
    const { invoice, hash } = await bobInvoice(15_000);
    const cancel = await bob.api("DELETE", `/api/v1/lightning/receives/${hash}`);
    expect(cancel.status).to.equal(200);

    const r = await alice.api("POST", "/api/v1/lightning/pay", { body: { destination: invoice } });
    expect(r.status).to.equal(500);
    expect((r.json as { message: string }).message).to.match(/^Failed to pay lightning invoice: .*not awaiting payment/);
    const m = await untilRevoked(alice, hash);
    expect(m).to.deep.include({ status: "failed", effective_balance_sat: 0, offchain_fee_sat: 0 });
    expect((await sendStatus(alice, hash)).state).to.equal("unknown");
    // the HTLCs (amount + fee) were spent into the revocation output: change and revocation output are worth the inputs
    let htlcSum = 0;
    for (const id of m.metadata?.htlc_vtxos as string[]) {
      expect(await serverState(devnet, id), `HTLC ${id}`).to.equal("spent");
      htlcSum += await serverAmount(devnet, id);
    }
    expect(htlcSum).to.be.above(15_000);
    let inSum = 0;
    for (const id of m.input_vtxos) inSum += await serverAmount(devnet, id);
    let outSum = 0;
    for (const id of m.output_vtxos) {
      expect(await serverState(devnet, id), `output ${id}`).to.equal("spendable");
      outSum += await serverAmount(devnet, id);
    }
    expect(outSum, "change + revocation output = inputs").to.equal(inSum);
    expect(await balance(alice)).to.deep.include({ spendable_sat: before.alice, pending_lightning_send_sat: 0 });
    expect(await walletAgreesWithServer(alice, devnet)).to.equal(before.alice);
    expect(await balance(bob)).to.deep.include({ spendable_sat: before.bob, claimable_lightning_receive_sat: 0 });
    expect(await receiveMovements(hash)).to.deep.equal([]);
  });
});
