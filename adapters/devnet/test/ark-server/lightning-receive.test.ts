import { expect } from "chai";
import { encodeVtxo, formatOutPoint, toHex, vtxoId } from "@tender/ark-protocol";
import { ArkServerNotFoundError } from "@tender/ark-grpc";
import { rejection } from "./fixture.js";
import { eventually, Receive, ReceiveFixture } from "./lightning-receive-kit.js";
import { TEST_RECEIVE_SETTINGS } from "../../src/ark-server/lightning/receive-settings.js";

describe("ark server: Lightning receive over gRPC (hold invoice, external payer, HTLC-recv grant, claim, settle)", function () {
  this.timeout(60_000);
  let f: ReceiveFixture | undefined;
  afterEach(async () => {
    await f?.close();
    f = undefined;
  });

  const stateOf = async (id: string) => (await f!.ark.server.ctx.store.getVtxo(id))?.state;
  const payExternally = (r: Receive, cltvExpiry?: number) => f!.ln.holds.payExternally(r.invoice, { routeCltvDelta: 40, ...(cltvExpiry !== undefined ? { cltvExpiry } : {}) });

  it("full receive: invoice issued, external payer's HTLCs accepted, receiver told by mailbox, HTLC-recv VTXOs granted and claimed, hold invoice settled, payer sees the preimage", async () => {
    f = await ReceiveFixture.start();
    const bob = new Receive(f, f.wallet(), await f.port(), 25_000n);
    await bob.start();
    expect((await bob.port.checkLightningReceive(bob.paymentHash, false)).state).to.equal("created");
    const paid = await payExternally(bob);
    const status = await bob.port.checkLightningReceive(bob.paymentHash, true);
    expect(status.state).to.equal("accepted");
    expect(status.htlcVtxoIds).to.have.length(0);
    await eventually(async () => (await bob.mailbox()).length > 0);
    const msgs = await bob.mailbox();
    expect(msgs.map((m) => m.kind)).to.deep.equal(["incoming-lightning-payment"]);
    const m = msgs[0] as { paymentHash: Uint8Array; amountMsat: bigint };
    expect(toHex(m.paymentHash)).to.equal(bob.hashHex);
    expect(m.amountMsat).to.equal(25_000_000n);

    const htlcs = await bob.prepare();
    expect(htlcs.reduce((s, v) => s + v.amount, 0n)).to.equal(25_000n);
    for (const v of htlcs) expect(await stateOf(formatOutPoint(v.point))).to.equal("htlc-recv-unclaimed");
    // asking again returns the same grant
    const again = await bob.port.prepareLightningReceiveClaim({ paymentHash: bob.paymentHash, userPubkey: bob.htlcKey!.pk, htlcRecvExpiry: f.node.tipHeight() + bob.minCltvDelta });
    expect(again.htlcVtxos.map(toHex)).to.deep.equal(htlcs.map((v) => toHex(encodeVtxo(v))));
    expect(again.receive.htlcVtxoIds.map(toHex).sort()).to.deep.equal(htlcs.map((v) => toHex(vtxoId(v))).sort());

    const claimed = await bob.claim();
    expect(claimed.map((v) => [v.amount, v.policy.type])).to.deep.equal(htlcs.map((v) => [v.amount, "pubkey"]));
    for (const v of claimed) expect(await stateOf(formatOutPoint(v.point))).to.equal("spendable");
    for (const v of htlcs) expect(await stateOf(formatOutPoint(v.point))).to.equal("spent");
    expect((await bob.port.checkLightningReceive(bob.paymentHash, false)).state).to.equal("settled");
    await eventually(() => paid.status === "succeeded");
    expect(paid.preimage).to.equal(toHex(bob.preimage));
    expect((await f.ln.holds.listHoldInvoices(bob.paymentHash))[0]!.state).to.equal("paid");
    expect(await f.ark.server.lightningSend.store.settlement(bob.hashHex)).to.equal(toHex(bob.preimage));
    // a replayed claim is answered again (idempotent), the payment stays settled once
    await bob.claim();
    expect(f.ln.holds.externalPayments(bob.hashHex).map((p) => p.status)).to.deep.equal(["succeeded"]);
  });

  it("a wrong preimage is refused and changes nothing; the right one then claims", async () => {
    f = await ReceiveFixture.start();
    const bob = new Receive(f, f.wallet(), await f.port(), 12_000n);
    await bob.start();
    await payExternally(bob);
    await bob.port.checkLightningReceive(bob.paymentHash, true);
    await bob.prepare();
    const err = await rejection(bob.claim(new Uint8Array(32).fill(7)));
    expect(err.message).to.include("preimage doesn't match payment hash");
    expect((await bob.port.checkLightningReceive(bob.paymentHash, false)).state).to.equal("htlcs-ready");
    expect(await f.ark.server.lightningSend.store.settlement(bob.hashHex)).to.equal(undefined);
    await bob.claim();
    expect((await bob.port.checkLightningReceive(bob.paymentHash, false)).state).to.equal("settled");
  });

  it("cancel: an unpaid receive is canceled (payer refused afterwards), cancel is idempotent; after the grant cancel is refused with captaind's text; unknown hashes are NOT_FOUND", async () => {
    f = await ReceiveFixture.start();
    const bob = new Receive(f, f.wallet(), await f.port(), 5_000n);
    await bob.start();
    await bob.port.cancelLightningReceive(bob.paymentHash);
    await bob.port.cancelLightningReceive(bob.paymentHash);
    expect((await bob.port.checkLightningReceive(bob.paymentHash, false)).state).to.equal("canceled");
    expect((await rejection(payExternally(bob))).message).to.include("invoice cancelled");

    const carol = new Receive(f, f.wallet(), await f.port(), 5_000n);
    await carol.start();
    await payExternally(carol);
    await carol.port.checkLightningReceive(carol.paymentHash, true);
    await carol.prepare();
    expect((await rejection(carol.port.cancelLightningReceive(carol.paymentHash))).message).to.include("cannot cancel: HTLC-recv vtxos have already been granted");
    await carol.claim();
    expect((await rejection(carol.port.cancelLightningReceive(carol.paymentHash))).message).to.include("cannot cancel: payment already settled");

    const unknown = await rejection(bob.port.checkLightningReceive(new Uint8Array(32).fill(1), false));
    expect(unknown).to.be.instanceOf(ArkServerNotFoundError);
    expect(unknown.message).to.include("invoice not found");
  });

  it("an external payment canceled by the receiver before the grant is refunded to the payer", async () => {
    f = await ReceiveFixture.start();
    const bob = new Receive(f, f.wallet(), await f.port(), 5_000n);
    await bob.start();
    const paid = await payExternally(bob);
    await bob.port.checkLightningReceive(bob.paymentHash, true);
    await bob.port.cancelLightningReceive(bob.paymentHash);
    expect(paid.status).to.equal("refunded");
    expect((await rejection(bob.prepare())).message).to.include("payment canceled");
  });

  it("expiry: an unpaid invoice is canceled once it expired; accepted HTLCs not claimed within the forward timeout are refunded; HTLCs with too low a CLTV expiry are refused", async () => {
    f = await ReceiveFixture.start({ lightningReceive: { ...TEST_RECEIVE_SETTINGS, invoiceExpirySecs: 1, htlcForwardTimeoutMs: 400 } });
    const bob = new Receive(f, f.wallet(), await f.port(), 5_000n);
    await bob.start();
    await eventually(async () => (await bob.port.checkLightningReceive(bob.paymentHash, false)).state === "canceled", 5_000);
    expect((await rejection(payExternally(bob))).message).to.match(/invoice (cancelled|expired)/);

    const carol = new Receive(f, f.wallet(), await f.port(), 5_000n);
    await carol.start();
    const paid = await payExternally(carol);
    expect((await carol.port.checkLightningReceive(carol.paymentHash, true)).state).to.equal("accepted");
    await eventually(async () => (await carol.port.checkLightningReceive(carol.paymentHash, false)).state === "canceled", 5_000);
    expect(paid.status).to.equal("refunded");

    const dave = new Receive(f, f.wallet(), await f.port(), 5_000n);
    await dave.start();
    const low = await payExternally(dave, f.node.tipHeight() + 2);
    await eventually(async () => (await dave.port.checkLightningReceive(dave.paymentHash, false)).state === "canceled", 5_000);
    expect(low.status).to.equal("refunded");
  });

  it("a restart of the server between acceptance and the claim: the receive resumes, is claimed and the hold invoice settled", async () => {
    f = await ReceiveFixture.start();
    const bob = new Receive(f, f.wallet(), await f.port(), 9_000n);
    await bob.start();
    const paid = await payExternally(bob);
    expect((await bob.port.checkLightningReceive(bob.paymentHash, true)).state).to.equal("accepted");
    await f.ark.stop();
    await f.ark.start();
    expect((await bob.port.checkLightningReceive(bob.paymentHash, false)).state).to.equal("accepted");
    await bob.prepare();
    await f.ark.stop();
    await f.ark.start();
    await bob.claim();
    await eventually(() => paid.status === "succeeded");
    expect(paid.preimage).to.equal(toHex(bob.preimage));
  });
});
