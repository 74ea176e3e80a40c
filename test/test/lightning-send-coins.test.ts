/**
 * Which coins a Lightning send spends and makes, on the real daemon over HTTP against the devnet's
 * reference Ark server charging captaind's Lightning-send fee (min 10, base 75, ppm by the
 * inputs' blocks to expiry): change larger than the payment comes back in two pieces, smaller
 * change whole; a payment larger than every VTXO spends several; a dust-sized payment goes
 * through; the whole balance can be sent when amount + fee is exactly the balance, one sat more
 * is refused with barkd's text; inputs inside the wallet's refresh threshold still pay. Each case
 * checks the balance, the VTXO list, the movement and the server's spend states.
 */
import { expect } from "chai";
import { createHash } from "node:crypto";
import { splitChange } from "@tender/ark-protocol";
import { cleanup, startDaemon, type Daemon } from "../src/daemon-process.js";
import {
  ALICE_MNEMONIC, BOB_MNEMONIC, CAROL_MNEMONIC, boardToDaemon, createBody, ok, until, type DevnetWithArk, type Movement, type VtxoInfo,
} from "./ark-harness.js";
import {
  LIGHTNING_CONFIG, LN_SEND_FEE, balance, feeDevnet, sendFeeOf, sendMovements, sendStatus, serverAmount, serverState, spendableVtxos, untilPaid, walletAgreesWithServer,
} from "./lightning-send-harness.js";

/** A fourth wallet (BIP-39 test vector). */
const DAVE_MNEMONIC = "zoo zoo zoo zoo zoo zoo zoo zoo zoo zoo zoo wrong";
const sha256Hex = (hex: string) => createHash("sha256").update(Buffer.from(hex, "hex")).digest("hex");
const sum = (xs: readonly { amount_sat: number }[]) => xs.reduce((t, x) => t + x.amount_sat, 0);

describe("Lightning send coins: change split, several inputs, dust and the full balance (captaind's Lightning-send fee)", function () {
  this.timeout(120_000);
  let devnet: DevnetWithArk;
  const daemons: Daemon[] = [];

  before(async () => {
    devnet = await feeDevnet("lightning-send-coins-e2e");
  });
  after(async () => {
    for (const d of daemons) { await d.stop(); cleanup(d.datadir); }
    await devnet?.stop();
  });

  /** A fresh daemon whose wallet holds one board VTXO per amount. */
  async function wallet(mnemonic: string, amounts: readonly number[]): Promise<Daemon> {
    const d = await startDaemon({ config: LIGHTNING_CONFIG });
    daemons.push(d);
    await ok(d, "POST", "/api/v1/wallet/create", createBody(devnet, mnemonic));
    for (const a of amounts) await ok(d, "POST", "/api/v1/wallet/import-vtxo", { vtxos: [await boardToDaemon(d, devnet, mnemonic, BigInt(a))] });
    expect((await balance(d)).spendable_sat).to.equal(sum(amounts.map((amount_sat) => ({ amount_sat }))));
    return d;
  }

  /**
   * Pays a fresh normal invoice of `amount` (or an amountless one with `amount_sat`) and waits until
   * it is paid; checks the preimage, the payee, the fee against the estimate and the protocol's
   * price of the inputs the movement lists, and the balance; returns the movement.
   */
  async function payAndCheck(d: Daemon, amount: number, opts: { amountless?: boolean } = {}): Promise<{ movement: Movement; fee: number; inputs: VtxoInfo[] }> {
    const before = await spendableVtxos(d);
    const estimate = await ok<{ fee_sat: number; vtxos_spent: string[] }>(d, "GET", `/api/v1/fees/lightning/pay?amount_sat=${amount}`);
    const inv = devnet.lightning.createInvoice(opts.amountless ? {} : { amountSat: BigInt(amount) });
    const tip = devnet.node.tipHeight();
    const paid = await ok<{ payment_hash: string }>(d, "POST", "/api/v1/lightning/pay", { destination: inv.invoice, ...(opts.amountless ? { amount_sat: amount } : {}) });
    expect(paid.payment_hash).to.equal(inv.paymentHash);
    const s = await untilPaid(d, inv.paymentHash);
    expect(sha256Hex(s.preimage!)).to.equal(inv.paymentHash);
    expect(devnet.lightning.invoice(inv.paymentHash)).to.deep.include({ state: "paid", receivedMsat: BigInt(amount) * 1000n });
    const [movement, ...more] = await sendMovements(d, inv.paymentHash);
    expect(more).to.deep.equal([]);
    const inputs = before.filter((v) => movement!.input_vtxos.includes(v.id));
    expect(inputs.map((v) => v.id).sort(), "the movement's inputs are wallet VTXOs").to.deep.equal([...movement!.input_vtxos].sort());
    expect([...estimate.vtxos_spent].sort(), "the estimate selected the same inputs").to.deep.equal([...movement!.input_vtxos].sort());
    const fee = sendFeeOf(LN_SEND_FEE, amount, inputs, tip);
    expect(estimate.fee_sat, "the estimate is the fee charged").to.equal(fee);
    expect(movement).to.deep.include({ status: "successful", intended_balance_sat: -amount, effective_balance_sat: -(amount + fee), offchain_fee_sat: fee });
    expect(movement!.metadata?.payment_preimage).to.equal(s.preimage);
    expect((await balance(d)).spendable_sat).to.equal(sum(before) - amount - fee);
    // the server spent the inputs and the HTLCs, which carry amount + fee; the change is spendable there
    const htlcs = movement!.metadata?.htlc_vtxos as string[];
    expect(htlcs.length).to.be.at.least(1);
    let htlcSum = 0;
    for (const id of htlcs) {
      expect(await serverState(devnet, id), `HTLC ${id} at the server`).to.equal("spent");
      htlcSum += await serverAmount(devnet, id);
    }
    expect(htlcSum, "the HTLCs carry amount + fee").to.equal(amount + fee);
    for (const id of movement!.input_vtxos) expect(await serverState(devnet, id), `input ${id} at the server`).to.equal("spent");
    expect(await walletAgreesWithServer(d, devnet)).to.equal((await balance(d)).spendable_sat);
    return { movement: movement!, fee, inputs };
  }

  it("change larger than the payment comes back as two equal pieces (the last takes the remainder); smaller change, spending both pieces, comes back whole", async () => {
    const alice = await wallet(ALICE_MNEMONIC, [200_000]);
    const first = await payAndCheck(alice, 50_000);
    const change1 = 200_000 - 50_000 - first.fee;
    const pieces = await spendableVtxos(alice);
    expect(pieces.map((v) => v.amount_sat)).to.have.members([Math.floor(change1 / 2), change1 - Math.floor(change1 / 2)]);
    expect(splitChange(BigInt(change1), 50_000n).map(Number), "as the protocol splits it").to.have.members(pieces.map((v) => v.amount_sat));
    expect([...first.movement.output_vtxos].sort()).to.deep.equal(pieces.map((v) => v.id).sort());
    for (const v of pieces) expect(v).to.deep.include({ policy_type: "pubkey", state: { type: "spendable" } });

    // 100 000 needs both pieces; what is left (less than the payment) stays one VTXO
    const second = await payAndCheck(alice, 100_000);
    expect([...second.movement.input_vtxos].sort()).to.deep.equal(pieces.map((v) => v.id).sort());
    const [whole, ...none] = await spendableVtxos(alice);
    expect(none).to.deep.equal([]);
    expect(whole!.amount_sat).to.equal(change1 - 100_000 - second.fee);
    expect(second.movement.output_vtxos).to.deep.equal([whole!.id]);
  });

  it("a payment larger than any single VTXO spends several: one HTLC per input, change whole, all of it agreed by the server", async () => {
    const bob = await wallet(BOB_MNEMONIC, [40_000, 50_000, 60_000]);
    const { movement, fee, inputs } = await payAndCheck(bob, 120_000);
    expect(inputs.map((v) => v.amount_sat).sort()).to.deep.equal([40_000, 50_000, 60_000]);
    // the package spreads the HTLC over the inputs in order: one HTLC piece per input
    expect((movement.metadata?.htlc_vtxos as string[]).length).to.equal(3);
    const [change, ...none] = await spendableVtxos(bob);
    expect(none).to.deep.equal([]);
    expect(change!.amount_sat).to.equal(150_000 - 120_000 - fee);
    expect(movement.output_vtxos).to.deep.equal([change!.id]);
    expect(await serverState(devnet, change!.id)).to.equal("spendable");
    expect((await ok<VtxoInfo[]>(bob, "GET", "/api/v1/wallet/vtxos?all=true")).filter((v) => v.state.type === "locked")).to.deep.equal([]);
  });

  it("dust-sized payments go through: a 329-sat invoice, and an amountless invoice paid 1 sat (its HTLC below dust)", async () => {
    const dave = await wallet(DAVE_MNEMONIC, [50_000]);
    await payAndCheck(dave, 329);
    const tiny = await payAndCheck(dave, 1, { amountless: true });
    const [htlc] = tiny.movement.metadata?.htlc_vtxos as string[];
    expect(await serverAmount(devnet, htlc!)).to.equal(1 + tiny.fee).and.to.be.below(330);
  });

  it("sends the full balance: amount + fee equal to the balance leaves nothing; one sat more is refused with barkd's text and changes nothing", async () => {
    const carol = await wallet(CAROL_MNEMONIC, [100_000]);
    const [coin] = await spendableVtxos(carol);
    const tip = devnet.node.tipHeight();
    // the largest amount whose amount + fee is exactly the balance
    let amount = 100_000;
    while (amount > 0 && amount + sendFeeOf(LN_SEND_FEE, amount, [coin!], tip) > 100_000) amount--;
    expect(amount + sendFeeOf(LN_SEND_FEE, amount, [coin!], tip), "an amount exactly using the balance exists").to.equal(100_000);

    const over = amount + 1;
    const needed = over + sendFeeOf(LN_SEND_FEE, over, [coin!], tip);
    const tooMuch = devnet.lightning.createInvoice({ amountSat: BigInt(over) });
    const history = (await ok<Movement[]>(carol, "GET", "/api/v1/history")).length;
    const refused = await carol.api("POST", "/api/v1/lightning/pay", { body: { destination: tooMuch.invoice } });
    expect([refused.status, refused.json]).to.deep.equal([500, { message: `Failed to pay lightning invoice: Insufficient money available. Needed ${needed} but 100000 is available` }]);
    expect(await balance(carol)).to.deep.include({ spendable_sat: 100_000, pending_lightning_send_sat: 0 });
    expect((await ok<Movement[]>(carol, "GET", "/api/v1/history")).length).to.equal(history);
    expect(await sendStatus(carol, tooMuch.paymentHash)).to.include({ state: "unknown" });
    expect(devnet.lightning.invoice(tooMuch.paymentHash)!.state).to.equal("unpaid");

    const { movement, fee } = await payAndCheck(carol, amount);
    expect(amount + fee).to.equal(100_000);
    expect(movement.output_vtxos, "no change").to.deep.equal([]);
    expect(await balance(carol)).to.deep.include({ spendable_sat: 0, pending_lightning_send_sat: 0 });
    expect(await spendableVtxos(carol)).to.deep.equal([]);
  });
});

describe("Lightning send with inputs inside the wallet's refresh threshold (near expiry) still pays", function () {
  this.timeout(120_000);
  /** The wallet's `vtxo_refresh_expiry_threshold` in these tests. */
  const THRESHOLD = 20;
  let devnet: DevnetWithArk;
  let alice: Daemon | undefined;

  before(async () => {
    devnet = await feeDevnet("lightning-send-near-expiry-e2e");
  });
  after(async () => {
    if (alice) { await alice.stop(); cleanup(alice.datadir); }
    await devnet?.stop();
  });

  it("a hold invoice paid from a VTXO 5 blocks from expiry: pending while held (priced at the near-expiry tier), paid once settled", async () => {
    alice = await startDaemon({ config: LIGHTNING_CONFIG, env: { TENDER_VTXO_REFRESH_EXPIRY_THRESHOLD: String(THRESHOLD) } });
    await ok(alice, "POST", "/api/v1/wallet/create", createBody(devnet, ALICE_MNEMONIC));
    await ok(alice, "POST", "/api/v1/wallet/import-vtxo", { vtxos: [await boardToDaemon(alice, devnet, ALICE_MNEMONIC, 100_000n)] });
    const [coin] = await spendableVtxos(alice);
    devnet.node.mine(coin!.expiry_height - 5 - devnet.node.tipHeight());
    const tip = devnet.node.tipHeight();
    await until("the wallet's chain source at the new tip", async () => ((await ok<{ tip_height: number }>(alice!, "GET", "/api/v1/bitcoin/tip")).tip_height === tip ? true : undefined));
    expect(coin!.expiry_height - tip).to.equal(5);
    expect(coin!.expiry_height - tip, "inside the refresh threshold").to.be.below(THRESHOLD);

    const { htlc_send_expiry_delta: delta } = await ok<{ htlc_send_expiry_delta: number }>(alice, "GET", "/api/v1/wallet/ark-info");
    expect(tip + delta, "the HTLC expiry is the send's own, far past the input's expiry").to.be.above(coin!.expiry_height + THRESHOLD);
    const fee = sendFeeOf(LN_SEND_FEE, 20_000, [coin!], tip);
    expect(fee, "inputs below 97 blocks to expiry pay no ppm: base fee only").to.equal(75);
    expect((await ok<{ fee_sat: number }>(alice, "GET", "/api/v1/fees/lightning/pay?amount_sat=20000")).fee_sat).to.equal(fee);

    const held = devnet.lightning.createInvoice({ amountSat: 20_000n, kind: "hold" });
    await ok(alice, "POST", "/api/v1/lightning/pay", { destination: held.invoice });
    await until("the payee to hold the payment", async () => (devnet.lightning.invoice(held.paymentHash)!.state === "held" ? true : undefined));
    expect((await sendStatus(alice, held.paymentHash)).state).to.equal("payment-initiated");
    expect(await balance(alice)).to.deep.include({ spendable_sat: 100_000 - 20_000 - fee, pending_lightning_send_sat: 20_000 + fee });

    devnet.lightning.settleHold(held.paymentHash);
    const done = await untilPaid(alice, held.paymentHash);
    expect(sha256Hex(done.preimage!)).to.equal(held.paymentHash);
    const [m] = await sendMovements(alice, held.paymentHash);
    expect(m).to.deep.include({ status: "successful", effective_balance_sat: -(20_000 + fee), offchain_fee_sat: fee });
    expect(await balance(alice)).to.deep.include({ spendable_sat: 100_000 - 20_000 - fee, pending_lightning_send_sat: 0 });
    expect(await serverState(devnet, coin!.id)).to.equal("spent");
    expect(await walletAgreesWithServer(alice, devnet)).to.equal(100_000 - 20_000 - fee);
  });
});
