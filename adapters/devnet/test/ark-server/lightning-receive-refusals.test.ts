import { expect } from "chai";
import { randomBytes } from "node:crypto";
import { sha256 } from "@noble/hashes/sha2.js";
import { revocationOutputs, toHex, type Vtxo } from "@tender/ark-protocol";
import type { GrpcArkServer } from "@tender/ark-grpc";
import { rejection } from "./fixture.js";
import { eventually, payFromArk, portParts, Receive, ReceiveFixture } from "./lightning-receive-kit.js";
import type { WalletKit } from "./wallet-kit.js";
import { testFeeSchedule } from "../../src/ark-server/server-config.js";
import { TEST_RECEIVE_SETTINGS } from "../../src/ark-server/lightning/receive-settings.js";

describe("ark server: Lightning receive refusals and recovery (start limits, receive fee, claims near the payer's HTLC expiry, settle retried, revocation against a granted intra-Ark receive)", function () {
  this.timeout(60_000);
  let f: ReceiveFixture | undefined;
  afterEach(async () => {
    await f?.close();
    f = undefined;
  });

  const start = async (port: GrpcArkServer, amountSat: bigint, minCltvDelta = 50) =>
    port.startLightningReceive({ paymentHash: sha256(new Uint8Array(randomBytes(32))), amountSat, minCltvDelta });

  it("StartLightningReceive: 0 sats, above max_vtxo_amount and above max_ln_receive_amount are refused (the limit itself allowed), a too large CLTV delta is an internal error; a dust receive goes through to the claim", async () => {
    f = await ReceiveFixture.start({ maxVtxoAmount: 100_000n, maxLnReceiveAmount: 50_000n });
    const port = await f.port();
    expect((await rejection(start(port, 0n))).message).to.include("Cannot create invoice for 0 sats");
    expect((await rejection(start(port, 100_001n))).message).to.include("Requested amount exceeds limit of 100000");
    expect((await rejection(start(port, 50_001n))).message).to.include("Requested amount exceeds lightning receive limit of 50000");
    expect(await start(port, 50_000n)).to.match(/^lnbcrt/);
    const tooLate = await rejection(start(port, 1_000n, 59));
    expect(tooLate.message).to.include("Requested min HTLC CLTV delta is greater than max HTLC recv CLTV delta");
    expect(tooLate.message).to.include("INTERNAL");

    const dust = new Receive(f, f.wallet(), port, 200n);
    await dust.start();
    // asking again for the same hash returns the same invoice
    expect(await port.startLightningReceive({ paymentHash: dust.paymentHash, amountSat: 200n, minCltvDelta: dust.minCltvDelta })).to.equal(dust.invoice);
    await f.ln.holds.payExternally(dust.invoice, { routeCltvDelta: 40 });
    await port.checkLightningReceive(dust.paymentHash, true);
    expect((await rejection(port.startLightningReceive({ paymentHash: dust.paymentHash, amountSat: 200n, minCltvDelta: dust.minCltvDelta }))).message).to.include("invoice already accepted");
    const htlcs = await dust.prepare();
    expect(htlcs.map((v) => v.amount)).to.deep.equal([200n]);
    expect((await dust.claim()).map((v) => v.amount)).to.deep.equal([200n]);
  });

  it("charges the Lightning-receive fee: the HTLC-recv VTXOs carry the amount minus base fee and ppm (100 000 → 99 700)", async () => {
    f = await ReceiveFixture.start({ fees: { ...testFeeSchedule(), lightningReceive: { baseFeeSat: 100n, ppm: 2000n } } });
    const bob = new Receive(f, f.wallet(), await f.port(), 100_000n);
    await bob.start();
    await f.ln.holds.payExternally(bob.invoice, { routeCltvDelta: 40 });
    await bob.port.checkLightningReceive(bob.paymentHash, true);
    const htlcs = await bob.prepare();
    expect(htlcs.reduce((s, v) => s + v.amount, 0n)).to.equal(99_700n);
    expect((await rejection(start(bob.port, 100n))).message).to.include("Fee (101) exceeds amount (100)");
  });

  it("the preimage is kept when settling the hold invoice fails: the claim answers, the settle is retried in the background and after a restart until the payer sees success", async () => {
    f = await ReceiveFixture.start();
    const bob = new Receive(f, f.wallet(), await f.port(), 4_000n);
    await bob.start();
    const paid = await f.ln.holds.payExternally(bob.invoice, { routeCltvDelta: 40 });
    await bob.port.checkLightningReceive(bob.paymentHash, true);
    await bob.prepare();
    const settle = f.ln.settleHoldInvoice.bind(f.ln);
    let refusals = 0;
    f.ln.settleHoldInvoice = async () => {
      refusals++;
      throw new Error("node unreachable");
    };
    await bob.claim();
    expect((await bob.port.checkLightningReceive(bob.paymentHash, false)).state).to.equal("settled");
    await eventually(() => refusals >= 2);
    expect(paid.status).to.equal("pending");
    await f.ark.stop();
    f.ln.settleHoldInvoice = settle;
    await f.ark.start();
    await eventually(() => paid.status === "succeeded");
    expect(paid.preimage).to.equal(toHex(bob.preimage));
  });

  it("pool change deeper than the pool's depth cap is not granted again; CheckLightningReceive(wait) returns after its fallback period while nothing happens", async () => {
    f = await ReceiveFixture.start({ lightningReceive: { ...TEST_RECEIVE_SETTINGS, poolMaxExitDepth: 2, checkWaitMs: 300, poolIssueIntervalMs: 600_000, poolTargets: [{ amountSat: 100_000n, count: 1 }] } });
    const pool = f.ark.server.lightningReceive.pool;
    const receive = async (amount: bigint) => {
      const r = new Receive(f!, f!.wallet(), await f!.port(), amount);
      await r.start();
      await f!.ln.holds.payExternally(r.invoice, { routeCltvDelta: 40 });
      await r.port.checkLightningReceive(r.paymentHash, true);
      return r.prepare();
    };
    const first = await receive(10_000n);
    expect(first[0]!.genesis.length).to.equal(2);
    expect((await pool.available()).map((v) => [v.amount, v.genesis.length])).to.deep.equal([[90_000n, 2]]);
    const second = await receive(10_000n);
    expect(second[0]!.genesis.length).to.equal(3);
    // the 80 000-sat change is at depth 3, above the cap of 2: kept by the server, not granted
    expect(await pool.available()).to.deep.equal([]);

    const idle = new Receive(f, f.wallet(), await f.port(), 1_000n);
    await idle.start();
    const t0 = Date.now();
    expect((await idle.port.checkLightningReceive(idle.paymentHash, true)).state).to.equal("created");
    expect(Date.now() - t0).to.be.within(250, 5_000);
  });

  it("a granted receive whose payer HTLC comes within 3 blocks of expiring is not claimed: the claim is refused, the hold invoice cancelled, the payer refunded, nothing settled", async () => {
    f = await ReceiveFixture.start();
    const bob = new Receive(f, f.wallet(), await f.port(), 7_000n);
    await bob.start();
    const minFinal = bob.minCltvDelta + (await bob.port.connect()).arkInfo.htlcExpiryDelta;
    const expiry = f.node.tipHeight() + minFinal;
    const paid = await f.ln.holds.payExternally(bob.invoice, { routeCltvDelta: 40, cltvExpiry: expiry });
    expect((await bob.port.checkLightningReceive(bob.paymentHash, true)).state).to.equal("accepted");
    await bob.prepare();
    f.node.mine(expiry - f.node.tipHeight() - 2);
    const err = await rejection(bob.claim());
    expect(err.message).to.match(/too close to the current chaintip to safely settle the hold invoice|payment status in incorrect state: canceled/);
    await eventually(async () => (await bob.port.checkLightningReceive(bob.paymentHash, false)).state === "canceled");
    // the server records the cancel before it cancels the hold invoice: the payer hears of it just after
    await eventually(async () => paid.status === "refunded");
    expect(paid.status).to.equal("refunded");
    expect(await f.ark.server.lightningSend.store.settlement(bob.hashHex)).to.equal(undefined);
  });

  it("intra-Ark: past its HTLC expiry the sender may revoke while nothing was granted (the receive is canceled), but not once HTLC-recv VTXOs were granted (the receiver claims)", async () => {
    f = await ReceiveFixture.start();
    const alice = f.wallet();
    const alicePort = await f.port();
    const revoke = (htlcs: Vtxo[], kit: WalletKit) => {
      const back = kit.key();
      const { pkg, nonces, parts } = kit.prepareArkoor(htlcs, revocationOutputs(htlcs, back.pk), { requirePubkeyInputs: false });
      return alicePort.requestLightningPayHtlcRevocation(portParts(parts)).then((resp) => kit.finishArkoor(pkg, nonces, resp.map((r) => ({ serverPubNonces: [...r.serverPubNonces], serverPartialSigs: [...r.serverPartialSigs] }))));
    };
    const sendDelta = (await alicePort.connect()).arkInfo.htlcSendExpiryDelta;

    const bob = new Receive(f, f.wallet(), await f.port(), 6_000n);
    await bob.start();
    const early = await payFromArk(alice, alicePort, f.node, [await alice.board(20_000n)], bob.invoice, 6_000n);
    expect((await bob.port.checkLightningReceive(bob.paymentHash, true)).state).to.equal("accepted");
    expect((await rejection(revoke(early, alice))).message).to.include("not eligible for revocation yet");
    f.node.mine(sendDelta + 1);
    expect((await revoke(early, alice)).map((v) => v.policy.type)).to.deep.equal(["pubkey"]);
    expect((await bob.port.checkLightningReceive(bob.paymentHash, false)).state).to.equal("canceled");
    expect((await rejection(bob.prepare())).message).to.include("payment canceled");

    const carol = new Receive(f, f.wallet(), await f.port(), 6_000n);
    await carol.start();
    const late = await payFromArk(alice, alicePort, f.node, [await alice.board(20_000n)], carol.invoice, 6_000n);
    await carol.port.checkLightningReceive(carol.paymentHash, true);
    await carol.prepare();
    f.node.mine(sendDelta + 1);
    expect((await rejection(revoke(late, alice))).message).to.include("invoice receive is already committed (status: htlcs-ready)");
    await carol.claim();
    const result = await alicePort.checkLightningPayment(carol.paymentHash, true);
    expect(result.status).to.equal("success");
    expect(toHex((result as { preimage: Uint8Array }).preimage)).to.equal(toHex(carol.preimage));
  });
});
