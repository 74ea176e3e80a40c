import { expect } from "chai";
import { randomBytes } from "node:crypto";
import { sha256 } from "@noble/hashes/sha2.js";
import { ArkServerRejectedError } from "@tender/ark-grpc";
import { encodeTx, encodeVtxo, exitTransactions, formatOutPoint, toHex, vtxoIdString, type Vtxo } from "@tender/ark-protocol";
import type { RoundAttemptEvent, RoundEvent } from "@tender/ark-protocol/server";
import { BadUserInputError, UnusableInputsError } from "../../src/ark-server/server-errors.js";
import { rejection } from "./fixture.js";
import { LightningFixture, PVER, cosignHtlcs, hashOf, initiate, revoke } from "./lightning-kit.js";
import { payFromArk, portParts, ReceiveFixture } from "./lightning-receive-kit.js";
import { p2trDestination, offboard, planOffboard } from "./offboard-kit.js";
import { EventRecorder } from "./round-fixture.js";
import { prepareDelegated, prepareSubmission, refreshOutputs } from "./round-kit.js";
import { newKey, pubkeyPolicy, type WalletKit } from "./wallet-kit.js";

describe("ark server: Lightning send refusals (exit depth and the revocation, the settlement log, exited inputs, unlock hashes)", function () {
  this.timeout(60_000);
  let f: LightningFixture | undefined;
  afterEach(async () => {
    await f?.close();
    f = undefined;
  });

  const stateOf = async (v: Vtxo) => (await f!.server.ctx.store.getVtxo(formatOutPoint(v.point)))?.state;
  const waitFinal = (hash: Uint8Array) => f!.server.lightningSend.check(hash, true);

  it("revoking HTLCs at the maximum exit depth is cosigned (the revocation is exempt from the depth limit), while an arkoor or an HTLC package from that depth is refused", async () => {
    f = await LightningFixture.open({ maxVtxoExitDepth: 3 });
    const alice = f.wallet();
    const inv = f.ln.createInvoice({ amountSat: 10_000n, kind: "unroutable" });
    const { htlcs, change } = await cosignHtlcs(f, alice, [await alice.board(30_000n)], hashOf(inv), 10_000n);
    expect(htlcs.map((v) => v.genesis.length)).to.deep.equal([3]);
    const depthText = (v: Vtxo) => `bad user input: input vtxo ${formatOutPoint(v.point)} exit depth 3 meets or exceeds the maximum of 3; refresh the VTXO in a round to reset its exit depth`;
    // the change next to the HTLC is at depth 3: neither an arkoor nor another HTLC package may spend it
    expect((await rejection(alice.send(change, 1_000n, newKey().pk))).message).to.equal(depthText(change[0]!));
    const other = f.ln.createInvoice({ amountSat: 1_000n });
    expect((await rejection(cosignHtlcs(f, alice, change, hashOf(other), 1_000n))).message).to.equal(depthText(change[0]!));

    await initiate(f, alice, inv.invoice, htlcs, 10_000n);
    expect(await waitFinal(hashOf(inv))).to.deep.equal({ status: "failed" });
    const back = await revoke(f, alice, htlcs);
    expect(back.map((v) => [v.amount, v.policy.type, v.genesis.length])).to.deep.equal([[10_000n, "pubkey", 5]]);
    for (const v of htlcs) expect(await stateOf(v)).to.equal("spent");
    expect(await stateOf(back[0]!)).to.equal("spendable");
  });

  it("the settlement log decides: with the attempt regressed to failed and the HTLCs spendable again, the revocation is refused with the preimage and nothing is spent", async () => {
    f = await LightningFixture.open();
    const alice = f.wallet();
    const inv = f.ln.createInvoice({ amountSat: 6_000n });
    const { htlcs } = await cosignHtlcs(f, alice, [await alice.board(20_000n)], hashOf(inv), 6_000n);
    await initiate(f, alice, inv.invoice, htlcs, 6_000n);
    const ok = (await waitFinal(hashOf(inv))) as { status: string; preimage: Uint8Array };
    expect(ok.status).to.equal("success");
    await regress(f, inv.paymentHash, htlcs);
    expect((await f.server.lightningSend.store.latest(inv.paymentHash))?.status).to.equal("failed");
    for (const v of htlcs) expect(await stateOf(v)).to.equal("spendable");

    const refused = await rejection(revoke(f, alice, htlcs));
    expect(refused).to.be.instanceOf(BadUserInputError);
    expect(refused.message).to.equal(`bad user input: invoice has already been paid, preimage: ${toHex(ok.preimage)}`);
    for (const v of htlcs) {
      expect(await stateOf(v)).to.equal("spendable");
      expect(f.server.ctx.locks.isLocked(vtxoIdString(v))).to.equal(false);
    }
    expect(await f.server.lightningSend.store.settlement(inv.paymentHash)).to.equal(toHex(ok.preimage));
  });

  it("the settlement log is read again under the input locks: a settlement the first look missed still refuses the revocation before anything is recorded", async () => {
    f = await LightningFixture.open();
    const alice = f.wallet();
    const inv = f.ln.createInvoice({ amountSat: 6_000n });
    const { htlcs } = await cosignHtlcs(f, alice, [await alice.board(20_000n)], hashOf(inv), 6_000n);
    await initiate(f, alice, inv.invoice, htlcs, 6_000n);
    const ok = (await waitFinal(hashOf(inv))) as { preimage: Uint8Array };
    await regress(f, inv.paymentHash, htlcs);
    // the first read of the log sees nothing, as if the settlement landed right after it
    const store = f.server.lightningSend.store;
    const real = store.settlement.bind(store);
    let reads = 0;
    store.settlement = async (hash: string) => (++reads === 1 ? undefined : real(hash));
    const refused = await rejection(revoke(f, alice, htlcs));
    expect(reads).to.be.at.least(2);
    expect(refused.message).to.equal(`bad user input: invoice has already been paid, preimage: ${toHex(ok.preimage)}`);
    for (const v of htlcs) expect(await stateOf(v)).to.equal("spendable");
  });

  it("refuses an HTLC package over an input whose exit confirmed on chain, and InitiateLightningPayment over an HTLC VTXO that exited; nothing is paid", async () => {
    f = await LightningFixture.open();
    const alice = f.wallet();
    const inv = f.ln.createInvoice({ amountSat: 5_000n });
    const coin = await alice.board(20_000n);
    f.node.mineTransactions(exitTransactions(coin).map((t) => encodeTx(t)));
    const err = await rejection(cosignHtlcs(f, alice, [coin], hashOf(inv), 5_000n));
    expect(err).to.be.instanceOf(UnusableInputsError);
    expect(err.message).to.equal(`bad user input: vtxo ${formatOutPoint(coin.point)} has exited onchain`);
    expect(await stateOf(coin)).to.equal("spendable");
    expect(await f.server.lightningSend.store.latest(inv.paymentHash)).to.equal(undefined);

    const { htlcs } = await cosignHtlcs(f, alice, [await alice.board(20_000n)], hashOf(inv), 5_000n);
    for (const t of exitTransactions(htlcs[0]!)) f.node.mineTransactions([encodeTx(t)]);
    const exited = await rejection(initiate(f, alice, inv.invoice, htlcs, 5_000n));
    expect(exited).to.be.instanceOf(UnusableInputsError);
    expect(exited.message).to.equal(`bad user input: vtxo ${formatOutPoint(htlcs[0]!.point)} has exited onchain`);
    expect(await f.server.lightningSend.store.latest(inv.paymentHash)).to.equal(undefined);
    expect(f.ln.allPays()).to.deep.equal([]);
  });

  it("refuses a round participation's unlock hash as the payment hash of a send and of a receive", async () => {
    f = await LightningFixture.open();
    const alice = f.wallet();
    const coin = await alice.board(30_000n);
    const unlockHash = await f.server.submitRoundParticipation(prepareDelegated(alice, [coin], refreshOutputs(alice, [coin])), PVER);
    const send = await rejection(cosignHtlcs(f, alice, [await alice.board(20_000n)], unlockHash, 5_000n));
    expect(send).to.be.instanceOf(BadUserInputError);
    expect(send.message).to.equal("bad user input: payment hash collides with an existing unlock hash");
    const receive = await rejection(f.server.lightningReceive.startReceive({ paymentHash: unlockHash, amountSat: 5_000n, minCltvDelta: 50, mailboxId: alice.mailbox.pk }, PVER));
    expect(receive.message).to.equal("bad user input: payment hash collides with an existing unlock hash");
    // a fresh hash goes through both
    const fresh = sha256(new Uint8Array(randomBytes(32)));
    expect(await f.server.lightningReceive.startReceive({ paymentHash: fresh, amountSat: 5_000n, minCltvDelta: 50 }, PVER)).to.match(/^lnbcrt/);
  });
});

describe("ark server: HTLC-send VTXOs in rounds and offboards (refused as inputs; once revoked, an ordinary VTXO)", function () {
  this.timeout(60_000);
  let f: ReceiveFixture | undefined;
  afterEach(async () => {
    await f?.close();
    f = undefined;
  });

  /** HTLC-send VTXOs of a held payment (the payee neither settles nor cancels). */
  async function heldHtlcs(kit: WalletKit): Promise<Vtxo[]> {
    const port = await f!.port();
    const inv = f!.ln.createInvoice({ amountSat: 8_000n, kind: "hold" });
    return payFromArk(kit, port, f!.node, [await kit.board(20_000n)], inv.invoice, 8_000n);
  }
  const isAttempt = (e: RoundEvent): e is RoundAttemptEvent => e.kind === "attempt";
  const rejected = async (p: Promise<unknown>): Promise<ArkServerRejectedError> => {
    const e = await rejection(p);
    expect(e, e.message).to.be.instanceOf(ArkServerRejectedError);
    return e as ArkServerRejectedError;
  };

  it("refuses HTLC-send VTXOs as inputs of a round (interactive and delegated) and of an offboard, naming them; nothing stays locked", async () => {
    f = await ReceiveFixture.start({ roundSubmitTimeMs: 20_000 });
    const alice = f.wallet();
    const htlcs = await heldHtlcs(alice);
    const ids = htlcs.map((v) => vtxoIdString(v));
    const port = await f.port();
    const info = (await port.connect()).arkInfo;

    const rec = new EventRecorder(port);
    f.ark.server.triggerRound();
    const attempt = (await rec.until(isAttempt)) as RoundAttemptEvent;
    await rec.stop();
    const interactive = await rejected(port.submitPayment(prepareSubmission(alice, attempt.challenge, htlcs, refreshOutputs(alice, htlcs), info.nbRoundNonces).request));
    expect(interactive.serverMessage).to.equal(`unusable inputs: [${ids.join(",")}]: bad user input: input vtxo(s) not spendable`);
    expect(interactive.rejectedVtxoIds).to.deep.equal(ids);

    const delegated = await rejected(port.submitRoundParticipation(prepareDelegated(alice, htlcs, refreshOutputs(alice, htlcs))));
    expect(delegated.serverMessage).to.equal(`unusable inputs: [${ids.join(",")}]: bad user input: input vtxo(s) unusable`);
    expect(delegated.rejectedVtxoIds).to.deep.equal(ids);

    const plan = await planOffboard(port, info, f.node, alice, htlcs, p2trDestination(3));
    const off = await rejected(port.prepareOffboard(plan.request));
    expect(off.serverMessage).to.contain("input vtxo(s) not spendable");
    expect(off.rejectedVtxoIds).to.deep.equal(ids);

    for (const id of ids) {
      expect((await f.ark.server.ctx.store.getVtxo(id))?.state).to.equal("spendable");
      expect(f.ark.server.ctx.locks.isLocked(id)).to.equal(false);
    }
    expect(f.ark.server.offboards.sessions.heldCoins().size).to.equal(0);
  });

  it("a revoked HTLC-send VTXO is offboarded like any VTXO: the destination gets its amount less the fee, the VTXO is spent by the offboard", async () => {
    f = await ReceiveFixture.start();
    const alice = f.wallet();
    const port = await f.port();
    const info = (await port.connect()).arkInfo;
    const inv = f.ln.createInvoice({ amountSat: 9_000n, kind: "unroutable" });
    const htlcs = await payFromArk(alice, port, f.node, [await alice.board(30_000n)], inv.invoice, 9_000n);
    expect((await port.checkLightningPayment(hashOf(inv), true)).status).to.equal("failed");
    const key = alice.key();
    const { pkg, nonces, parts } = alice.prepareArkoor(htlcs, [{ amount: 9_000n, policy: pubkeyPolicy(key.pk) }], { requirePubkeyInputs: false });
    const resp = await port.requestLightningPayHtlcRevocation(portParts(parts));
    const back = alice.finishArkoor(pkg, nonces, resp.map((r) => ({ serverPubNonces: [...r.serverPubNonces], serverPartialSigs: [...r.serverPartialSigs] })));
    await port.registerVtxoTransactions(back.map((v) => encodeVtxo(v)));
    expect(back.map((v) => [v.amount, v.policy.type])).to.deep.equal([[9_000n, "pubkey"]]);

    const script = p2trDestination(4);
    const plan = await planOffboard(port, info, f.node, alice, back, script);
    const done = await offboard(port, alice, plan);
    expect(done.signed.outputs[0]).to.deep.equal({ value: 9_000n - plan.feeSat, script });
    expect(f.node.getTxStatus(done.txid), "offboard tx in the mempool").to.not.equal(undefined);
    expect((await f.ark.server.ctx.store.getVtxo(vtxoIdString(back[0]!)))?.state).to.equal("spent");
    expect((await f.ark.server.offboards.store.forfeitOf(vtxoIdString(back[0]!)))?.offboardTxid).to.equal(done.txid);
  });
});

/** Makes the payment of `hash` look unpaid to everything but the settlement log: attempt failed without preimage, HTLCs spendable. */
async function regress(f: LightningFixture, hash: string, htlcs: readonly Vtxo[]): Promise<void> {
  await f.server.ctx.store.write(async (sql) => {
    await sql.execute("update ark_server_ln_attempt set status = 'failed', preimage = null where payment_hash = ?", [hash], "run");
    for (const v of htlcs) await sql.execute("update ark_server_vtxo set state = 'spendable' where vtxo_id = ?", [vtxoIdString(v)], "run");
  });
}
