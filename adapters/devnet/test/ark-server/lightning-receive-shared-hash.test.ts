import { expect } from "chai";
import { fromHex, toHex } from "@tender/ark-protocol";
import { rejection } from "./fixture.js";
import { eventually, payFromArk, ReceiveFixture } from "./lightning-receive-kit.js";
import { TEST_RECEIVE_SETTINGS } from "../../src/ark-server/lightning/receive-settings.js";

describe("ark server: a receive sharing its payment hash with an outgoing Lightning payment in flight", function () {
  this.timeout(60_000);
  let f: ReceiveFixture | undefined;
  afterEach(async () => {
    await f?.close();
    f = undefined;
  });

  it("canceling the receive (its HTLCs not claimed within the forward timeout) refunds its payer but leaves the unrelated outgoing payment pending; it then succeeds when the payee settles, so the sender is never refunded as well", async () => {
    f = await ReceiveFixture.start({ lightningReceive: { ...TEST_RECEIVE_SETTINGS, htlcForwardTimeoutMs: 400 } });
    const alice = f.wallet();
    const alicePort = await f.port();
    // 1-2: a payee outside the Ark holds alice's payment of its hold invoice
    const external = f.ln.createInvoice({ amountSat: 10_000n, kind: "hold" });
    const hash = fromHex(external.paymentHash);
    await payFromArk(alice, alicePort, f.node, [await alice.board(30_000n)], external.invoice, 10_000n);
    await eventually(() => f!.ln.invoice(external.paymentHash)?.state === "held");
    expect((await f.ark.server.lightningSend.store.latest(external.paymentHash))?.status).to.equal("pending");

    // 3-4: the same payment hash registered as a receive and paid from outside; the server holds that HTLC
    const port = await f.port();
    const info = (await port.connect()).arkInfo;
    const invoice = await port.startLightningReceive({ paymentHash: hash, amountSat: 10_000n, minCltvDelta: info.vtxoExitDelta + info.htlcExpiryDelta + 32 });
    const paid = await f.ln.holds.payExternally(invoice, { routeCltvDelta: 40 });
    expect((await port.checkLightningReceive(hash, true)).state).to.equal("accepted");

    // 5: nobody claims; the forward timeout cancels the receive and refunds its payer, the outgoing attempt stays open
    await eventually(async () => (await port.checkLightningReceive(hash, false)).state === "canceled", 5_000);
    await eventually(() => paid.status === "refunded");
    await new Promise((r) => setTimeout(r, 300));
    expect((await f.ark.server.lightningSend.store.latest(external.paymentHash))?.status).to.equal("pending");
    expect((await alicePort.checkLightningPayment(hash, false)).status).to.equal("pending");
    expect(f.ln.invoice(external.paymentHash)?.state).to.equal("held");
    expect(await f.ark.server.lightningSend.store.settlement(external.paymentHash)).to.equal(undefined);

    // 7: the payee settles: the outgoing payment succeeds with its preimage, recorded by the server
    f.ln.settleHold(external.paymentHash);
    const done = await alicePort.checkLightningPayment(hash, true);
    expect(done.status).to.equal("success");
    expect(toHex((done as { preimage: Uint8Array }).preimage)).to.equal(external.preimage);
    expect(await f.ark.server.lightningSend.store.settlement(external.paymentHash)).to.equal(external.preimage);
    expect((await f.ark.server.lightningSend.store.latest(external.paymentHash))?.status).to.equal("succeeded");
    // the canceled receive stays canceled: nothing to grant
    expect((await rejection(port.prepareLightningReceiveClaim({ paymentHash: hash, userPubkey: alice.key().pk, htlcRecvExpiry: f.node.tipHeight() + 100 }))).message).to.include("payment canceled");
  });
});
