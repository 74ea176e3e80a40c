/**
 * A Lightning send whose payment stays pending (the payee holds it) is asked back once the tip
 * comes within the wallet's `vtxo_refresh_expiry_threshold` of the HTLC expiry; the server
 * refuses while the payment is in flight and the HTLCs have not expired, so the daemon asks again
 * until the tip passes the expiry, then the HTLCs come back as a spendable VTXO. A payee that
 * settles inside that window gets the send recorded as paid instead. `sends/{id}` is read at
 * every phase. Each case has its own wallet, boarded when it starts (the case mines past its
 * HTLC expiry, which would bring an older board near its own expiry).
 */
import { expect } from "chai";
import { createHash } from "node:crypto";
import { cleanup, startDaemon, type Daemon } from "../src/daemon-process.js";
import {
  ALICE_MNEMONIC, BOB_MNEMONIC, boardToDaemon, createBody, ok, startArkDevnet, until, type Balance, type DevnetWithArk, type Movement,
} from "./ark-harness.js";

interface SendInfo { payment_hash: string; state: string; invoice: string | null; preimage: string | null }

const CONFIG = {
  plugins: [
    "@tender/plugin-wallet", "@tender/plugin-notifications", "@tender/plugin-history", "@tender/plugin-chain", "@tender/plugin-fees",
    "@tender/plugin-ark", "@tender/plugin-lightning",
  ],
  pluginConfig: { notifications: { waitTimeoutMs: 300 }, ark: { deliveryRetryMs: 500 } },
};
/** Not the regtest default (12), so the test shows the setting is what counts. */
const THRESHOLD = 30;
/** Longer than a few check intervals (2 s): a step that was going to happen has happened. */
const SETTLE_MS = 5_000;

describe("a Lightning send still pending near its HTLC expiry is revoked (wallet threshold, server refuses until expiry)", function () {
  this.timeout(120_000);
  let devnet: DevnetWithArk;
  const daemons: Daemon[] = [];

  before(async () => {
    devnet = await startArkDevnet("lightning-send-expiry-e2e");
  });
  after(async () => {
    for (const d of daemons) { await d.stop(); cleanup(d.datadir); }
    await devnet?.stop();
  });

  async function wallet(mnemonic: string, sats: bigint): Promise<Daemon> {
    const d = await startDaemon({ config: CONFIG, env: { TENDER_VTXO_REFRESH_EXPIRY_THRESHOLD: String(THRESHOLD) } });
    daemons.push(d);
    await ok(d, "POST", "/api/v1/wallet/create", createBody(devnet, mnemonic));
    await ok(d, "POST", "/api/v1/wallet/import-vtxo", { vtxos: [await boardToDaemon(d, devnet, mnemonic, sats)] });
    return d;
  }
  const status = (d: Daemon, hash: string) => ok<SendInfo>(d, "GET", `/api/v1/lightning/sends/${hash}`);
  const balance = (d: Daemon) => ok<Balance>(d, "GET", "/api/v1/wallet/balance");
  const sendMovements = async (d: Daemon, hash: string) => (await ok<Movement[]>(d, "GET", "/api/v1/history"))
    .filter((m) => m.subsystem.name === "bark.lightning_send" && m.metadata?.payment_hash === hash);
  const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
  /** Mines until the tip is `height`. */
  const mineTo = (height: number) => {
    const n = height - devnet.node.tipHeight();
    expect(n, `mining up to ${height}`).to.be.at.least(0);
    if (n > 0) devnet.node.mine(n);
  };

  /** Pays a fresh hold invoice of `amount` and waits until the payee holds it; returns the hash and the HTLC expiry height. */
  async function payHeld(d: Daemon, amount: number): Promise<{ hash: string; htlcExpiry: number }> {
    const { htlc_send_expiry_delta: delta } = await ok<{ htlc_send_expiry_delta: number }>(d, "GET", "/api/v1/wallet/ark-info");
    const inv = devnet.lightning.createInvoice({ amountSat: BigInt(amount), kind: "hold" });
    const tip = devnet.node.tipHeight();
    await ok(d, "POST", "/api/v1/lightning/pay", { destination: inv.invoice });
    expect(devnet.node.tipHeight(), "no block while paying").to.equal(tip);
    await until("the payee to hold the payment", async () => (devnet.lightning.invoice(inv.paymentHash)!.state === "held" ? true : undefined));
    // the HTLCs carry tip + htlc_send_expiry_delta (no block was mined in between)
    return { hash: inv.paymentHash, htlcExpiry: tip + delta };
  }

  it("pending up to the threshold it stays payment-initiated; past it revocable-htlcs while the server refuses; past the HTLC expiry revoked, balance whole", async () => {
    const alice = await wallet(ALICE_MNEMONIC, 100_000n);
    const before = await balance(alice);
    const { hash, htlcExpiry } = await payHeld(alice, 8_000);
    const pending = await balance(alice);
    expect(pending.pending_lightning_send_sat).to.be.at.least(8_000);
    expect(pending.spendable_sat + pending.pending_lightning_send_sat).to.equal(before.spendable_sat);

    // at the threshold (tip = expiry − threshold) the payment is still simply pending
    mineTo(htlcExpiry - THRESHOLD);
    await sleep(SETTLE_MS);
    expect((await status(alice, hash)).state).to.equal("payment-initiated");

    // one block into the window: the daemon asks for the money back, the server refuses (in flight, not expired)
    mineTo(htlcExpiry - THRESHOLD + 1);
    await until("revocable-htlcs", async () => ((await status(alice, hash)).state === "revocable-htlcs" ? true : undefined), 15_000);
    await sleep(SETTLE_MS);
    expect(await status(alice, hash)).to.deep.include({ state: "revocable-htlcs", invoice: devnet.lightning.invoice(hash)!.invoice, preimage: null });
    expect((await sendMovements(alice, hash)).map((m) => m.status)).to.deep.equal(["pending"]);
    expect(await balance(alice)).to.deep.equal(pending);

    // at the expiry itself the server still refuses
    mineTo(htlcExpiry);
    await sleep(SETTLE_MS);
    expect((await status(alice, hash)).state).to.equal("revocable-htlcs");
    expect(await balance(alice)).to.deep.equal(pending);

    // past the expiry the server's last look at the node finds no success: revoked, the money is back
    mineTo(htlcExpiry + 1);
    await until("revoked", async () => ((await sendMovements(alice, hash))[0]?.status === "failed" ? true : undefined), 20_000);
    expect((await sendMovements(alice, hash)).map((m) => [m.status, m.effective_balance_sat, m.offchain_fee_sat])).to.deep.equal([["failed", 0, 0]]);
    expect(await status(alice, hash)).to.deep.equal({ payment_hash: hash, state: "unknown", invoice: null, preimage: null });
    expect(await balance(alice)).to.include({ spendable_sat: before.spendable_sat, pending_lightning_send_sat: 0 });
  });

  it("inside the window the payee settles before the HTLC expiry: the refused revocation turns into paid, never revoked", async () => {
    const bob = await wallet(BOB_MNEMONIC, 60_000n);
    const before = await balance(bob);
    const { hash, htlcExpiry } = await payHeld(bob, 6_000);
    const pending = await balance(bob);
    mineTo(htlcExpiry - THRESHOLD + 5);
    await until("revocable-htlcs", async () => ((await status(bob, hash)).state === "revocable-htlcs" ? true : undefined), 15_000);

    devnet.lightning.settleHold(hash);
    const done = await until("paid", async () => { const s = await status(bob, hash); return s.state === "paid" ? s : undefined; }, 20_000);
    expect(createHash("sha256").update(Buffer.from(done.preimage!, "hex")).digest("hex")).to.equal(hash);
    const fee = pending.pending_lightning_send_sat - 6_000;
    expect((await sendMovements(bob, hash)).map((m) => [m.status, m.effective_balance_sat])).to.deep.equal([["successful", -(6_000 + fee)]]);
    // past the expiry nothing changes any more: no revocation of a paid send
    mineTo(htlcExpiry + 2);
    await sleep(SETTLE_MS);
    expect((await status(bob, hash)).state).to.equal("paid");
    expect(await balance(bob)).to.include({ spendable_sat: before.spendable_sat - 6_000 - fee, pending_lightning_send_sat: 0 });
    expect(devnet.lightning.invoice(hash)!.state).to.equal("paid");
  });
});
