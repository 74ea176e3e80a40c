import { expect } from "chai";
import { ArkServerInternalError, ArkServerRejectedError } from "@tender/ark-grpc";
import { decodeTx, decodeVtxoTreeSpec, encodeOutPoint, formatOutPoint, signAttestation, txidHex, vtxoStatusAttestation, type Vtxo } from "@tender/ark-protocol";
import type { RoundAttemptEvent, RoundEvent, VtxoProposalEvent } from "@tender/ark-protocol/server";
import { ClientSpendState } from "../../src/ark-server/vtxo-registry.js";
import { PADDING_PUBKEY } from "../../src/ark-server/rounds/round-tree.js";
import { RoundFixture } from "./round-fixture.js";
import { prepareSubmission, refreshOutputs } from "./round-kit.js";
import { rejection } from "./fixture.js";
import type { WalletKit } from "./wallet-kit.js";

async function waitFor(cond: () => boolean, timeoutMs = 10_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!cond()) {
    if (Date.now() > until) throw new Error("condition not met in time");
    await new Promise((r) => setTimeout(r, 20));
  }
}

const isAttempt = (e: RoundEvent): e is RoundAttemptEvent => e.kind === "attempt";
const isProposal = (e: RoundEvent): e is VtxoProposalEvent => e.kind === "vtxo-proposal";

describe("ark server: interactive hArk rounds", function () {
  this.timeout(60_000);
  let f: RoundFixture;
  beforeEach(async () => {
    f = await RoundFixture.start();
  });
  afterEach(() => f.close());

  const stateOf = async (kit: WalletKit, v: Vtxo) => {
    const id = encodeOutPoint(v.point);
    return (await f.port().client.ark("getVtxoStatus", { vtxoId: id, attestation: signAttestation(vtxoStatusAttestation(id), kit.secretFor(v.policy.userPubkey)) })).spendState;
  };

  it("refreshes a board through a full round: attest, submit, sign, finish, leaf cosign, forfeit, unlock; the new VTXO validates against the broadcast funding tx", async () => {
    const { kit, vtxos } = await f.walletWith(50_000n);
    const alice = f.participant(kit, vtxos);
    f.ark.server.triggerRound();
    const outcome = await alice.outcome;
    expect(outcome.vtxos).to.have.length(1);
    expect(outcome.vtxos[0]!.amount).to.equal(50_000n);
    // the funding tx is in the node's mempool and the round's outputs are unclaimed until the forfeits
    expect(f.node.getTxStatus(txidHex(outcome.fundingTx))).to.deep.equal({ confirmed: false });
    expect(await stateOf(kit, vtxos[0]!)).to.equal(ClientSpendState.SPENT);
    const done = await alice.complete();
    expect(await stateOf(kit, done.vtxos[0]!)).to.equal(ClientSpendState.SPENDABLE);
    expect(done.vtxos[0]!.expiryHeight).to.equal(f.node.tipHeight() + f.info.vtxoLifetime);
    // the refreshed VTXO can be paid onwards by arkoor
    const { sent } = await kit.send(done.vtxos, 20_000n, kit.key().pk);
    expect(sent[0]!.amount).to.equal(20_000n);
    expect(formatOutPoint(done.vtxos[0]!.point)).to.match(/:0$/);
  });

  it("pads a single-output round to two leaves with the unspendable padding leaf", async () => {
    const rec = f.recorder();
    const { kit, vtxos } = await f.walletWith(40_000n);
    const alice = f.participant(kit, vtxos);
    f.ark.server.triggerRound();
    await alice.complete();
    const proposal = (await rec.until(isProposal)) as VtxoProposalEvent;
    const spec = decodeVtxoTreeSpec(proposal.vtxosSpec);
    expect(spec.leaves).to.have.length(2);
    expect(spec.leaves[1]!.amount).to.equal(330n);
    expect(spec.leaves[1]!.cosignPubkey).to.equal(null);
    expect(spec.leaves[1]!.policy.userPubkey).to.deep.equal(PADDING_PUBKEY);
    expect(spec.globalCosignPubkeys).to.have.length(1);
    // the tree output is vout 0 of the funding tx, change goes back to the server wallet
    const funding = decodeTx(proposal.unsignedRoundTx);
    expect(funding.outputs[0]!.value).to.equal(40_330n);
    expect(funding.outputs[1]!.script).to.deep.equal(f.ark.server.ctx.keys.walletScript);
    await rec.stop();
  });

  it("holds 4^nb_round_nonces outputs: a request that does not fit is refused, the round closes as soon as it is full", async () => {
    await f.close();
    f = await RoundFixture.start({ overrides: { nbRoundNonces: 1, roundSubmitTimeMs: 20_000 } });
    const rec = f.recorder();
    const wallets = await Promise.all([1, 2, 3, 4, 5].map(() => f.walletWith(30_000n)));
    const started = Date.now();
    f.ark.server.triggerRound();
    const attempt = (await rec.until(isAttempt)) as RoundAttemptEvent;
    const players = wallets.slice(0, 3).map((w) => f.participant(w.kit, w.vtxos));
    await waitFor(() => players.every((p) => p.unlockHashes.length === 1));
    // 3 of 4 places taken: two outputs do not fit (INTERNAL, as captaind)
    const big = wallets[3]!;
    const half = big.vtxos[0]!.amount / 2n;
    const tooMany = prepareSubmission(big.kit, attempt.challenge, big.vtxos, [half, half].map((amount) => ({ amount, policy: { type: "pubkey" as const, userPubkey: big.kit.key().pk } })), 1);
    const err = await rejection(f.port().submitPayment(tooMany.request));
    expect(err).to.be.instanceOf(ArkServerInternalError);
    expect(err.message).to.include("not enough outputs left in this round, try next round");
    // the fourth output fills the round: sign-up ends long before its 20 s window
    players.push(f.participant(big.kit, big.vtxos));
    const outcomes = await Promise.all(players.map((p) => p.outcome));
    expect(Date.now() - started).to.be.lessThan(15_000);
    expect(outcomes.every((o) => o.tree.spec.leaves.length === 4)).to.equal(true);
    const extra = wallets[4]!;
    const late = prepareSubmission(extra.kit, attempt.challenge, extra.vtxos, refreshOutputs(extra.kit, extra.vtxos), 1);
    expect((await rejection(f.port().submitPayment(late.request))).message).to.match(/Message arrived late or round was full|no round is running/);
    for (const p of players) await p.complete();
    await rec.stop();
  });

  it("a cosigner that withholds its signatures is excluded: a second attempt with the same pinned funding input finishes without it", async () => {
    const rec = f.recorder();
    const a = await f.walletWith(30_000n);
    const b = await f.walletWith(45_000n);
    const withholder = f.participant(a.kit, a.vtxos, { withholdOn: [0] });
    const honest = f.participant(b.kit, b.vtxos);
    f.ark.server.triggerRound();
    const outcome = await honest.outcome;
    expect(honest.attempts).to.deep.equal([0n, 1n]);
    // the withholder's resubmission to attempt 1 is refused (INTERNAL, as captaind) naming its input
    const refused = await rejection(withholder.outcome);
    expect(refused).to.be.instanceOf(ArkServerInternalError);
    expect(refused.message).to.include(`input vtxo ${formatOutPoint(a.vtxos[0]!.point)} has been banned for this round`);
    const proposals = rec.events.filter(isProposal);
    expect(proposals.map((p) => p.attemptSeq)).to.deep.equal([0n, 1n]);
    const [first, second] = proposals.map((p) => decodeTx(p.unsignedRoundTx));
    expect(formatOutPoint(second!.inputs[0]!.prevout)).to.equal(formatOutPoint(first!.inputs[0]!.prevout));
    expect(txidHex(second!)).to.not.equal(txidHex(first!));
    expect(outcome.tree.spec.leaves.map((l) => l.amount)).to.deep.equal([45_000n, 330n]);
    const done = await honest.complete();
    expect(done.vtxos[0]!.amount).to.equal(45_000n);
    // the withholder's input was never spent
    expect(await stateOf(a.kit, a.vtxos[0]!)).to.equal(ClientSpendState.SPENDABLE);
    await rec.stop();
  });

  it("a client subscribing during the sign-up window gets the running attempt first and joins it", async () => {
    await f.close();
    f = await RoundFixture.start({ overrides: { roundSubmitTimeMs: 4000 } });
    const rec = f.recorder();
    f.ark.server.triggerRound();
    const attempt = (await rec.until(isAttempt)) as RoundAttemptEvent;
    const { kit, vtxos } = await f.walletWith(25_000n);
    const late = f.participant(kit, vtxos);
    const outcome = await late.outcome;
    expect(late.attempts).to.deep.equal([attempt.attemptSeq]);
    expect(outcome.vtxos[0]!.amount).to.equal(25_000n);
    await late.complete();
    await rec.stop();
  });

  it("after an empty round a new subscriber gets the failure, not a stale attempt; the next triggered round brings a fresh one", async () => {
    const rec = f.recorder();
    f.ark.server.triggerRound();
    const attempt = (await rec.until(isAttempt)) as RoundAttemptEvent;
    const failed = await rec.until((e) => e.kind === "failed");
    expect(failed.roundSeq).to.equal(attempt.roundSeq);
    const first = await f.nextEvent(() => true);
    expect(first).to.deep.equal(failed);
    expect(await f.port().lastRoundEvent()).to.deep.equal(failed);
    // empty rounds wait for the interval: nothing follows on its own
    expect(rec.events.map((e) => e.kind)).to.deep.equal(["attempt", "failed"]);
    f.ark.server.triggerRound();
    const fresh = (await f.nextEvent((e) => e.kind === "attempt" && e.roundSeq > attempt.roundSeq)) as RoundAttemptEvent;
    expect(fresh.roundSeq).to.equal(attempt.roundSeq + 1n);
    expect(fresh.challenge).to.not.deep.equal(attempt.challenge);
    await rec.stop();
  });

  it("TriggerRound on the admin port starts a round; a second trigger while one is queued is ignored", async () => {
    const rec = f.recorder();
    const { RoundAdminServiceClient } = await import("@tender/ark-grpc");
    const { credentials } = await import("@grpc/grpc-js");
    const admin = new RoundAdminServiceClient(f.ark.adminUrl.replace("http://", ""), credentials.createInsecure());
    try {
      const trigger = () => new Promise<void>((res, rej) => admin.triggerRound({}, (e) => (e ? rej(e) : res())));
      await trigger();
      const attempt = (await rec.until(isAttempt)) as RoundAttemptEvent;
      // two triggers during the running round queue one round, not two
      await trigger();
      await trigger();
      await rec.until((e) => e.kind === "failed" && e.roundSeq === attempt.roundSeq + 1n);
      await new Promise((r) => setTimeout(r, 500));
      expect(rec.events.filter(isAttempt).map((e) => e.roundSeq)).to.deep.equal([attempt.roundSeq, attempt.roundSeq + 1n]);
    } finally {
      admin.close();
      await rec.stop();
    }
  });

  it("two clients in one round each get their outputs, spending all their inputs", async () => {
    const a = await f.walletWith(20_000n, 25_000n);
    const b = await f.walletWith(60_000n);
    const pa = f.participant(a.kit, a.vtxos);
    const pb = f.participant(b.kit, b.vtxos, { outputs: [{ amount: 30_000n, policy: { type: "pubkey", userPubkey: b.kit.key().pk } }, { amount: 30_000n, policy: { type: "pubkey", userPubkey: b.kit.key().pk } }] });
    f.ark.server.triggerRound();
    const [da, db] = await Promise.all([pa.complete(), pb.complete()]);
    expect(txidHex(da.outcome.fundingTx)).to.equal(txidHex(db.outcome.fundingTx));
    expect(da.vtxos.map((v) => v.amount)).to.deep.equal([45_000n]);
    expect(db.vtxos.map((v) => v.amount)).to.deep.equal([30_000n, 30_000n]);
    expect(da.preimage).to.not.deep.equal(db.preimage);
    for (const v of [...a.vtxos, ...b.vtxos]) expect(await stateOf(v === b.vtxos[0] ? b.kit : a.kit, v)).to.equal(ClientSpendState.SPENT);
  });

  it("refuses a branch partial signature that does not verify, then accepts the cosigner's valid set and finishes", async () => {
    const a = await f.walletWith(20_000n);
    const b = await f.walletWith(30_000n);
    const pa = f.participant(a.kit, a.vtxos, { tamperFirst: true });
    const pb = f.participant(b.kit, b.vtxos);
    f.ark.server.triggerRound();
    const [da, db] = await Promise.all([pa.complete(), pb.complete()]);
    expect(pa.refusals).to.have.length(1);
    expect((pa.refusals[0] as ArkServerRejectedError).serverMessage).to.equal("bad user input: invalid partial signatures: partial signature 0 does not verify");
    expect(txidHex(da.outcome.fundingTx)).to.equal(txidHex(db.outcome.fundingTx));
    expect(pa.attempts).to.deep.equal(pb.attempts);
  });

  it("never reuses the coins of an unconfirmed round funding tx, even when the node dropped it; the server's own change is trusted", async () => {
    const a = await f.walletWith(30_000n);
    const b = await f.walletWith(35_000n);
    const first = f.participant(a.kit, a.vtxos);
    f.ark.server.triggerRound();
    const t1 = (await first.complete()).outcome.fundingTx;
    const t1id = txidHex(t1);
    const spentByT1 = t1.inputs.map((i) => formatOutPoint(i.prevout));
    // the node forgets the round funding tx during the next round's sign-up: its coin looks unspent again
    const r1 = (await f.port().lastRoundEvent())!.roundSeq;
    const rec = f.recorder();
    const blocked = f.participant(b.kit, b.vtxos);
    f.ark.server.triggerRound();
    await rec.until((e) => e.kind === "attempt" && e.roundSeq > r1);
    f.node.evict(t1id);
    expect(f.node.getTxStatus(t1id)).to.equal(undefined);
    // the only unspent wallet coin is the one the first round spent: the round cannot be funded
    expect(await rejection(blocked.outcome)).to.be.instanceOf(Error);
    expect(f.logLines.some((l) => l.includes("Insufficient funds"))).to.equal(true);
    await rec.stop();
    // the next round re-broadcasts the first funding tx and spends its unconfirmed change
    const second = f.participant(b.kit, b.vtxos);
    f.ark.server.triggerRound();
    const t2 = (await second.complete()).outcome.fundingTx;
    expect(f.node.getTxStatus(t1id)).to.deep.equal({ confirmed: false });
    expect(t2.inputs.map((i) => formatOutPoint(i.prevout)).filter((o) => spentByT1.includes(o))).to.deep.equal([]);
    expect(t2.inputs.map((i) => formatOutPoint(i.prevout))).to.deep.equal([`${t1id}:1`]);
    f.node.mine(1);
    expect(f.node.getTxStatus(txidHex(t2))?.confirmed).to.equal(true);
  });
});
