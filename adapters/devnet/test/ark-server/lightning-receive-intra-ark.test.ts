import { expect } from "chai";
import { randomBytes } from "node:crypto";
import { encodeOutPoint, formatOutPoint, lightningReceiveAttestation, revocationOutputs, signAttestation, toHex, vtxoId } from "@tender/ark-protocol";
import { rejection } from "./fixture.js";
import { eventually, payFromArk, portParts, Receive, ReceiveFixture } from "./lightning-receive-kit.js";
import { encodeBolt11 } from "../../src/lightning/bolt11-codec.js";
import { RECEIVE_TOKEN_KIND } from "../../src/ark-server/lightning/receive-service.js";

describe("ark server: Lightning receive paid from inside the Ark, anti-DoS proofs, pool grants", function () {
  this.timeout(60_000);
  let f: ReceiveFixture | undefined;
  afterEach(async () => {
    await f?.close();
    f = undefined;
  });

  it("intra-Ark: a wallet of the same server pays the invoice without a Lightning payment; the hold invoice is cancelled, the receiver claims, the sender's attempt succeeds with the preimage and its mailbox says so", async () => {
    f = await ReceiveFixture.start();
    const bob = new Receive(f, f.wallet(), await f.port(), 15_000n);
    await bob.start();
    const alice = f.wallet();
    const alicePort = await f.port();
    const coin = await alice.board(50_000n);
    const htlcs = await payFromArk(alice, alicePort, f.node, [coin], bob.invoice, 15_000n);
    expect((await bob.port.checkLightningReceive(bob.paymentHash, true)).state).to.equal("accepted");
    expect((await f.ln.holds.listHoldInvoices(bob.paymentHash))[0]!.state).to.equal("cancelled");
    expect(f.ln.allPays().filter((p) => toHex(p.paymentHash) === bob.hashHex)).to.have.length(0);
    await eventually(async () => (await bob.mailbox()).some((m) => m.kind === "incoming-lightning-payment"));
    expect((await alicePort.checkLightningPayment(bob.paymentHash, false)).status).to.equal("pending");

    await bob.prepare();
    await bob.claim();
    const result = await alicePort.checkLightningPayment(bob.paymentHash, true);
    expect(result.status).to.equal("success");
    expect(toHex((result as { preimage: Uint8Array }).preimage)).to.equal(toHex(bob.preimage));
    for (const v of htlcs) expect((await f.ark.server.ctx.store.getVtxo(formatOutPoint(v.point)))?.state).to.equal("spent");
    const msgs = (await alicePort.readMailbox({ mailboxId: alice.mailbox.pk, authorization: alice.authorization(), checkpoint: 0n })).messages;
    expect(msgs.map((m) => m.kind)).to.deep.equal(["lightning-send-finished"]);
    expect(toHex((msgs[0] as { preimage: Uint8Array }).preimage)).to.equal(toHex(bob.preimage));
    expect((await bob.port.checkLightningReceive(bob.paymentHash, false)).state).to.equal("settled");
  });

  it("intra-Ark: an invoice with the receive's payment hash that is not byte-identical to the issued one is refused", async () => {
    f = await ReceiveFixture.start();
    const bob = new Receive(f, f.wallet(), await f.port(), 20_000n);
    await bob.start();
    // same hash, cheaper, signed by someone else
    const forged = encodeBolt11({ network: "regtest", amountMsat: 1_000_000n, timestamp: Math.floor(Date.now() / 1000), paymentHash: bob.paymentHash, paymentSecret: randomBytes(32), description: "", expirySecs: 3600, minFinalCltvExpiryDelta: 18 }, new Uint8Array(randomBytes(32)));
    const alice = f.wallet();
    const err = await rejection(payFromArk(alice, await f.port(), f.node, [await alice.board(30_000n)], forged, 1_000n));
    expect(err.message).to.include("invoice does not match the invoice we issued");
    expect((await bob.port.checkLightningReceive(bob.paymentHash, false)).state).to.equal("created");
  });

  it("intra-Ark: a receiver that cancels before claiming makes the sender's attempt fail, and the sender revokes", async () => {
    f = await ReceiveFixture.start();
    const bob = new Receive(f, f.wallet(), await f.port(), 8_000n);
    await bob.start();
    const alice = f.wallet();
    const alicePort = await f.port();
    const htlcs = await payFromArk(alice, alicePort, f.node, [await alice.board(20_000n)], bob.invoice, 8_000n);
    expect((await bob.port.checkLightningReceive(bob.paymentHash, true)).state).to.equal("accepted");
    await bob.port.cancelLightningReceive(bob.paymentHash);
    expect((await alicePort.checkLightningPayment(bob.paymentHash, true)).status).to.equal("failed");
    expect((await rejection(bob.prepare())).message).to.include("payment canceled");
    const back = alice.key();
    const { pkg, nonces, parts } = alice.prepareArkoor(htlcs, revocationOutputs(htlcs, back.pk), { requirePubkeyInputs: false });
    const resp = await alicePort.requestLightningPayHtlcRevocation(portParts(parts));
    const revoked = alice.finishArkoor(pkg, nonces, resp.map((r) => ({ serverPubNonces: [...r.serverPubNonces], serverPartialSigs: [...r.serverPartialSigs] })));
    expect(revoked.map((v) => [v.amount, v.policy.type])).to.deep.equal([[8_000n, "pubkey"]]);
  });

  it("anti-DoS required: no proof is refused; an owned VTXO's attestation is accepted, a tampered one refused; a token is accepted once, unknown and used tokens refused", async () => {
    f = await ReceiveFixture.start({ lnReceiveAntiDosRequired: true });
    const pay = async (r: Receive) => {
      await r.start();
      await f!.ln.holds.payExternally(r.invoice, { routeCltvDelta: 40 });
      await r.port.checkLightningReceive(r.paymentHash, true);
    };
    const bob = new Receive(f, f.wallet(), await f.port(), 6_000n);
    await pay(bob);
    expect((await rejection(bob.prepare())).message).to.include("either a receive token or a challenge proof must be provided");

    const own = await bob.kit.board(20_000n);
    const id = vtxoId(own);
    const tampered = signAttestation(lightningReceiveAttestation(new Uint8Array(32).fill(9), encodeOutPoint(own.point)), bob.kit.secretFor(own.policy.userPubkey));
    expect((await rejection(bob.prepare({ kind: "vtxo", vtxoId: id, attestation: tampered }))).message).to.include("vtxo attestation invalid");
    const attestation = signAttestation(lightningReceiveAttestation(bob.paymentHash, encodeOutPoint(own.point)), bob.kit.secretFor(own.policy.userPubkey));
    expect(await bob.prepare({ kind: "vtxo", vtxoId: id, attestation })).to.have.length.greaterThan(0);
    await bob.claim();

    const carol = new Receive(f, f.wallet(), await f.port(), 6_000n);
    await pay(carol);
    expect((await rejection(carol.prepare({ kind: "token", token: "no-such-token" }))).message).to.include("receive token not found");
    await f.ark.server.lightningReceive.store.addToken("tok-1", RECEIVE_TOKEN_KIND, BigInt(Math.floor(Date.now() / 1000) + 600));
    expect(await carol.prepare({ kind: "token", token: "tok-1" })).to.have.length.greaterThan(0);
    const dave = new Receive(f, f.wallet(), await f.port(), 6_000n);
    await pay(dave);
    expect((await rejection(dave.prepare({ kind: "token", token: "tok-1" }))).message).to.include("receive token already used");
  });

  it("pool: a grant larger than one pool VTXO is funded from several; the pool's change funds the next receive", async () => {
    f = await ReceiveFixture.start();
    await f.ark.server.lightningReceive.pool.topUp(true);
    f.node.mine(1);
    const small = (await f.ark.server.lightningReceive.pool.available()).filter((v) => v.amount === 10_000n);
    expect(small.length).to.be.at.least(3);
    // more than any 10 000-sat VTXO, less than the large target: picked by earliest expiry until covered
    const bob = new Receive(f, f.wallet(), await f.port(), 1_500_000n);
    await bob.start();
    await f.ln.holds.payExternally(bob.invoice, { routeCltvDelta: 40 });
    await bob.port.checkLightningReceive(bob.paymentHash, true);
    const htlcs = await bob.prepare();
    expect(htlcs.length).to.be.greaterThan(1);
    expect(htlcs.reduce((s, v) => s + v.amount, 0n)).to.equal(1_500_000n);
    await bob.claim();
    const before = await f.ark.server.lightningReceive.pool.available();
    const change = before.filter((v) => v.genesis.length === 2);
    expect(change.length).to.equal(1);
    const carol = new Receive(f, f.wallet(), await f.port(), change[0]!.amount);
    await carol.start();
    await f.ln.holds.payExternally(carol.invoice, { routeCltvDelta: 40 });
    await carol.port.checkLightningReceive(carol.paymentHash, true);
    const carolHtlcs = await carol.prepare();
    expect(carolHtlcs.reduce((s, v) => s + v.amount, 0n)).to.equal(change[0]!.amount);
    await carol.claim();
  });
});
