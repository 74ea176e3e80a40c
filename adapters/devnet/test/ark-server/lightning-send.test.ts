import { expect } from "chai";
import { sha256 } from "@noble/hashes/sha2.js";
import { encodeVtxo, formatOutPoint, toHex, vtxoId, type Vtxo } from "@tender/ark-protocol";
import { BadUserInputError, UnusableInputsError } from "../../src/ark-server/server-errors.js";
import { rejection } from "./fixture.js";
import { LightningFixture, PVER, cosignHtlcs, hashOf, initiate, revoke } from "./lightning-kit.js";
import { newKey, type WalletKit } from "./wallet-kit.js";

describe("ark server: Lightning send (HTLC cosign, payment through the Lightning node, settlement, revocation)", function () {
  this.timeout(60_000);
  let f: LightningFixture;
  let alice: WalletKit;
  beforeEach(async () => {
    f = await LightningFixture.open();
    alice = f.wallet();
  });
  afterEach(() => f.close());

  const stateOf = async (v: Vtxo) => (await f.server.ctx.store.getVtxo(formatOutPoint(v.point)))?.state;
  const mailbox = async (kit: WalletKit) => (await f.server.readMailbox(kit.mailbox.pk, kit.authorization(), 0n)).messages;
  const waitFinal = (hash: Uint8Array) => f.server.lightningSend.check(hash, true);

  it("pays a BOLT11 invoice: HTLCs cosigned, paid on Lightning, success with the preimage (also on a second check), HTLCs spent, the sender told through its mailbox", async () => {
    const inv = f.ln.createInvoice({ amountSat: 20_000n, description: "coffee" });
    const [coin] = [await alice.board(100_000n)];
    const { htlcs, change } = await cosignHtlcs(f, alice, [coin!], hashOf(inv), 20_000n, { changePieces: 2 });
    expect(htlcs.map((v) => v.amount)).to.deep.equal([20_000n]);
    expect(change.map((v) => v.amount)).to.deep.equal([40_000n, 40_000n]);
    await initiate(f, alice, inv.invoice, htlcs, 20_000n);
    // a replay of the same initiation is fine and pays nothing twice
    await initiate(f, alice, inv.invoice, htlcs, 20_000n);
    const result = await waitFinal(hashOf(inv));
    expect(result.status).to.equal("success");
    const preimage = (result as { preimage: Uint8Array }).preimage;
    expect(toHex(sha256(preimage))).to.equal(inv.paymentHash);
    expect(await f.server.lightningSend.check(hashOf(inv), false)).to.deep.equal(result);
    expect(f.ln.invoice(inv.paymentHash)!.state).to.equal("paid");
    expect(f.ln.allPays().filter((p) => toHex(p.paymentHash) === inv.paymentHash)).to.have.length(1);
    for (const v of htlcs) expect(await stateOf(v)).to.equal("spent");
    for (const v of change) expect(await stateOf(v)).to.equal("spendable");
    expect(await f.server.lightningSend.store.settlement(inv.paymentHash)).to.equal(toHex(preimage));
    const msgs = await mailbox(alice);
    expect(msgs.map((m) => m.kind)).to.deep.equal(["lightning-send-finished"]);
    expect(msgs[0]).to.include({ kind: "lightning-send-finished" });
    expect(toHex((msgs[0] as { paymentHash: Uint8Array }).paymentHash)).to.equal(inv.paymentHash);
    expect(toHex((msgs[0] as { preimage: Uint8Array }).preimage)).to.equal(toHex(preimage));
  });

  it("a multi-input HTLC package pays an amountless invoice for the user's amount", async () => {
    const inv = f.ln.createInvoice({});
    const coins = [await alice.board(30_000n), await alice.board(30_000n)];
    const { htlcs } = await cosignHtlcs(f, alice, coins, hashOf(inv), 50_000n);
    expect(htlcs.map((v) => v.amount)).to.deep.equal([30_000n, 20_000n]);
    await initiate(f, alice, inv.invoice, htlcs, 50_000n);
    expect((await waitFinal(hashOf(inv))).status).to.equal("success");
    expect(f.ln.invoice(inv.paymentHash)!.receivedMsat).to.equal(50_000_000n);
  });

  it("an unroutable invoice fails; the HTLCs are revoked to an ordinary VTXO that pays on; the failure reaches the mailbox without a preimage", async () => {
    const inv = f.ln.createInvoice({ amountSat: 10_000n, kind: "unroutable" });
    const { htlcs } = await cosignHtlcs(f, alice, [await alice.board(50_000n)], hashOf(inv), 10_000n);
    await initiate(f, alice, inv.invoice, htlcs, 10_000n);
    expect(await waitFinal(hashOf(inv))).to.deep.equal({ status: "failed" });
    const back = await revoke(f, alice, htlcs);
    expect(back.map((v) => [v.amount, v.policy.type])).to.deep.equal([[10_000n, "pubkey"]]);
    for (const v of htlcs) expect(await stateOf(v)).to.equal("spent");
    expect(await stateOf(back[0]!)).to.equal("spendable");
    // the revoked VTXO is an ordinary pubkey VTXO: it pays on as an arkoor
    const { sent } = await alice.send(back, 4_000n, newKey().pk);
    expect(sent.map((v) => v.amount)).to.deep.equal([4_000n]);
    const msgs = await mailbox(alice);
    expect(msgs.map((m) => [m.kind, (m as { preimage?: Uint8Array }).preimage])).to.deep.equal([["lightning-send-finished", undefined]]);
    // a later payment of another invoice succeeds
    const ok = f.ln.createInvoice({ amountSat: 3_000n });
    const again = await cosignHtlcs(f, alice, [await alice.board(20_000n)], hashOf(ok), 3_000n);
    await initiate(f, alice, ok.invoice, again.htlcs, 3_000n);
    expect((await waitFinal(hashOf(ok))).status).to.equal("success");
  });

  it("refuses a revocation after success, with the preimage in the text; and while the payment is in flight, until the HTLCs expire", async () => {
    const paid = f.ln.createInvoice({ amountSat: 5_000n });
    const s1 = await cosignHtlcs(f, alice, [await alice.board(20_000n)], hashOf(paid), 5_000n);
    await initiate(f, alice, paid.invoice, s1.htlcs, 5_000n);
    const ok = (await waitFinal(hashOf(paid))) as { preimage: Uint8Array };
    const after = await rejection(revoke(f, alice, s1.htlcs));
    expect(after).to.be.instanceOf(BadUserInputError);
    expect(after.message).to.equal(`bad user input: invoice has already been paid, preimage: ${toHex(ok.preimage)}`);

    const held = f.ln.createInvoice({ amountSat: 5_000n, kind: "hold" });
    const s2 = await cosignHtlcs(f, alice, [await alice.board(20_000n)], hashOf(held), 5_000n);
    await initiate(f, alice, held.invoice, s2.htlcs, 5_000n);
    await until(() => f.ln.invoice(held.paymentHash)!.state === "held");
    expect((await f.server.lightningSend.check(hashOf(held), false)).status).to.equal("pending");
    expect((await rejection(revoke(f, alice, s2.htlcs))).message).to.equal("bad user input: This lightning payment is not eligible for revocation yet");
    // past the HTLC expiry, a payment still held by the payee may be revoked
    f.node.mine((s2.htlcs[0]!.policy as { htlcExpiry: number }).htlcExpiry - f.node.tipHeight() + 1);
    const back = await revoke(f, alice, s2.htlcs);
    expect(back.map((v) => v.amount)).to.deep.equal([5_000n]);
    // the payee settling afterwards cannot make the server count it paid: the HTLCs are gone
    f.ln.settleHold(held.paymentHash);
    await until(async () => (await f.server.lightningSend.check(hashOf(held), false)).status === "success");
    for (const v of back) expect(await stateOf(v)).to.equal("spendable");
  });

  it("refuses paying a settled invoice again, and a second payer while one is in flight", async () => {
    const inv = f.ln.createInvoice({ amountSat: 5_000n });
    const s1 = await cosignHtlcs(f, alice, [await alice.board(20_000n)], hashOf(inv), 5_000n);
    await initiate(f, alice, inv.invoice, s1.htlcs, 5_000n);
    await waitFinal(hashOf(inv));
    const bob = f.wallet();
    const paidAgain = await rejection(cosignHtlcs(f, bob, [await bob.board(20_000n)], hashOf(inv), 5_000n));
    expect(paidAgain.message).to.equal("bad user input: invoice has already been paid");

    const held = f.ln.createInvoice({ amountSat: 5_000n, kind: "hold" });
    const s2 = await cosignHtlcs(f, alice, [await alice.board(20_000n)], hashOf(held), 5_000n);
    await initiate(f, alice, held.invoice, s2.htlcs, 5_000n);
    const second = await rejection(cosignHtlcs(f, bob, [await bob.board(20_000n)], hashOf(held), 5_000n));
    expect(second.message).to.equal("bad user input: payment already in progress for this invoice");
  });

  it("InitiateLightningPayment checks the HTLCs against the invoice: hash, registration, amount bounds and the fee", async () => {
    const inv = f.ln.createInvoice({ amountSat: 10_000n });
    const other = f.ln.createInvoice({ amountSat: 10_000n });
    const wrongHash = await cosignHtlcs(f, alice, [await alice.board(20_000n)], hashOf(other), 10_000n);
    expect((await rejection(initiate(f, alice, inv.invoice, wrongHash.htlcs, 10_000n))).message).to.equal("bad user input: htlc payment hash doesn't match invoice");
    const unregistered = await cosignHtlcs(f, alice, [await alice.board(20_000n)], hashOf(inv), 10_000n, { register: false });
    const notReg = await rejection(initiate(f, alice, inv.invoice, unregistered.htlcs, 10_000n));
    expect(notReg).to.be.instanceOf(UnusableInputsError);
    expect(notReg.message).to.match(/is not spendable \(state: unregistered\)$/);
    await f.server.registerVtxoTransactions(unregistered.htlcs.map((v) => encodeVtxo(v)));
    expect((await rejection(initiate(f, alice, inv.invoice, unregistered.htlcs, 9_999n))).message).to.equal("bad user input: requested payment amount too low for invoice");
    expect((await rejection(initiate(f, alice, inv.invoice, unregistered.htlcs, 20_001n))).message).to.equal("bad user input: requested payment amount more than double invoice amount");
    expect((await rejection(initiate(f, alice, inv.invoice, unregistered.htlcs, 10_001n))).message).to.equal("bad user input: HTLC VTXO sum of 10000 is less than the payment amount of 10001 plus fees of 0");
    expect(f.ln.allPays()).to.deep.equal([]);
  });

  it("charges the Lightning-send fee: HTLCs short of amount + fee are refused; the surplus raises the routing budget", async () => {
    await f.close();
    f = await LightningFixture.open({ fees: { ...f.server.config.fees, lightningSend: { minFeeSat: 10n, baseFeeSat: 75n, ppmExpiryTable: [{ expiryBlocksThreshold: 0, ppm: 1000n }] } } });
    alice = f.wallet();
    const inv = f.ln.createInvoice({ amountSat: 100_000n });
    const short = await cosignHtlcs(f, alice, [await alice.board(200_000n)], hashOf(inv), 100_000n, { fee: 174n });
    expect((await rejection(initiate(f, alice, inv.invoice, short.htlcs, 100_000n))).message).to.equal("bad user input: HTLC VTXO sum of 100174 is less than the payment amount of 100000 plus fees of 175");
    f.ln.setRouting({ baseFeeMsat: 1_000n, feePpm: 1_000n });
    const inv2 = f.ln.createInvoice({ amountSat: 100_000n });
    const enough = await cosignHtlcs(f, alice, [await alice.board(200_000n)], hashOf(inv2), 100_000n, { fee: 175n });
    await initiate(f, alice, inv2.invoice, enough.htlcs, 100_000n);
    expect((await waitFinal(hashOf(inv2))).status).to.equal("success");
    // routing took 1 sat + 1000 ppm = 101 sat of the 157-sat budget (900 000 ppm of 175)
    const pay = f.ln.allPays().find((p) => toHex(p.paymentHash) === inv2.paymentHash)!;
    expect(pay.amountSentMsat).to.equal(100_101_000n);
    f.ln.setRouting({ baseFeeMsat: 200_000n });
    const inv3 = f.ln.createInvoice({ amountSat: 100_000n });
    const over = await cosignHtlcs(f, alice, [await alice.board(200_000n)], hashOf(inv3), 100_000n, { fee: 175n });
    await initiate(f, alice, inv3.invoice, over.htlcs, 100_000n);
    expect(await waitFinal(hashOf(inv3))).to.deep.equal({ status: "failed" });
    expect(f.ln.allPays().find((p) => toHex(p.paymentHash) === inv3.paymentHash)!.failure).to.match(/fee budget/);
  });

  it("HTLC cosign refusals: no HTLC output, differing HTLCs, an expiry too low; HTLC-send VTXOs are no arkoor inputs nor mailbox payments", async () => {
    const inv = f.ln.createInvoice({ amountSat: 5_000n });
    const coin = await alice.board(20_000n);
    const k = alice.key();
    const plain = alice.prepareArkoor([coin], [{ amount: 20_000n, policy: { type: "pubkey", userPubkey: k.pk } }]);
    expect((await rejection(f.server.lightningSend.requestHtlcCosign(plain.parts, PVER))).message).to.equal("bad user input: no HTLC outputs provided");
    const expiry = f.node.tipHeight() + f.server.config.htlcSendExpiryDelta;
    const mixed = alice.prepareArkoor([coin], [
      { amount: 5_000n, policy: { type: "server-htlc-send-v1", userPubkey: k.pk, paymentHash: hashOf(inv), htlcExpiry: expiry } },
      { amount: 15_000n, policy: { type: "server-htlc-send-v1", userPubkey: k.pk, paymentHash: hashOf(inv), htlcExpiry: expiry + 1 } },
    ]);
    expect((await rejection(f.server.lightningSend.requestHtlcCosign(mixed.parts, PVER))).message).to.equal("bad user input: not all HTLC outputs are identical");
    const tip = f.node.tipHeight();
    const low = await rejection(cosignHtlcs(f, alice, [coin], hashOf(inv), 5_000n, { expiry: tip + f.server.config.htlcSendExpiryDelta - 2 }));
    expect(low.message).to.equal(`bad user input: requested expiry is too low. our tip is ${tip}. sync your node and try again`);
    expect((await rejection(f.server.lightningSend.requestHtlcCosign(plain.parts, 4))).message).to.contain("UPDATE YOUR WALLET");

    const { htlcs } = await cosignHtlcs(f, alice, [coin], hashOf(inv), 5_000n);
    const asArkoor = alice.prepareArkoor(htlcs, [{ amount: 5_000n, policy: { type: "pubkey", userPubkey: newKey().pk } }], { requirePubkeyInputs: false });
    expect((await rejection(f.server.requestArkoorCosign(asArkoor.parts))).message).to.equal("bad user input: server htlc send vtxo not supported");
    const bob = f.wallet();
    const posted = await rejection(f.server.postArkoorMessage(await bob.blindedMailboxId(bob.key()), htlcs.map((v) => encodeVtxo(v))));
    expect(posted.message).to.match(/is not a final payment vtxo \(policy: server-htlc-send-v1\)/);
    expect(vtxoId(htlcs[0]!)).to.have.length(36);
  });

  it("a payment in flight when the server stops ends after the restart: reconciled with the node, HTLCs spent, the sender told once", async () => {
    const held = f.ln.createInvoice({ amountSat: 7_000n, kind: "hold" });
    const { htlcs } = await cosignHtlcs(f, alice, [await alice.board(20_000n)], hashOf(held), 7_000n);
    await initiate(f, alice, held.invoice, htlcs, 7_000n);
    await until(() => f.ln.invoice(held.paymentHash)!.state === "held");
    await f.server.close();
    f.ln.settleHold(held.paymentHash);
    await f.reopen();
    await until(async () => (await f.server.lightningSend.check(hashOf(held), false)).status === "success");
    for (const v of htlcs) expect(await stateOf(v)).to.equal("spent");
    await until(async () => (await mailbox(alice)).length === 1);
    expect(f.ln.allPays().filter((p) => toHex(p.paymentHash) === held.paymentHash)).to.have.length(1);
  });
});

async function until(cond: () => boolean | Promise<boolean>, ms = 10_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await cond())) {
    if (Date.now() > end) throw new Error("condition not met in time");
    await new Promise((r) => setTimeout(r, 20));
  }
}
