import { expect } from "chai";
import { ArkServerInternalError, ArkServerRejectedError, ArkServerUnavailableError } from "@tender/ark-protocol/server";
import { ISSUED, ev, notFound, rig, type Rig } from "./fakes.js";
import type { RoundsService } from "../src/rounds-service.js";

/** An interactive refresh of two fresh inputs, stored and tracked (status pending). */
async function explicitRefresh(r: Rig, s: RoundsService): Promise<{ id: number; inputs: string[] }> {
  const inputs = [r.vtxos.add(60_000n), r.vtxos.add(40_000n)];
  const prepared = (await s.prepare(inputs))!;
  const p = await s.createInteractive(prepared, "explicit");
  return { id: p.id, inputs };
}

describe("interactive participations and the round events (ordering rules, lost views of the round), over fakes", () => {
  let r: Rig;
  let s: RoundsService;
  beforeEach(async () => {
    r = await rig();
    s = r.service();
  });
  afterEach(() => r.db.close());

  const status = async (id: number) => (await r.store.get(id))!;

  it("joins only a round's first attempt, ignores older rounds and attempts, signs its attempt's proposal once, resubmits on a later attempt", async () => {
    const { id } = await explicitRefresh(r, s);
    await s.onRoundEvent(ev.attempt(5, 1), false);
    expect((await status(id)).status, "a later attempt is never joined fresh").to.equal("pending");
    await s.onRoundEvent(ev.attempt(6, 0), false);
    expect(await status(id)).to.deep.include({ status: "submitted", roundSeq: 6n, attemptSeq: 0n, unlockHash: "11".repeat(32) });
    for (const e of [ev.attempt(5, 0), ev.proposal(5, 0), ev.failed(5), ev.finished(5, 0)]) await s.onRoundEvent(e, false);
    expect(await status(id)).to.deep.include({ status: "submitted", roundSeq: 6n });
    expect(r.submitted).to.have.length(1);
    await s.onRoundEvent(ev.proposal(6, 0), false);
    await s.onRoundEvent(ev.proposal(6, 0), false);
    expect(r.signatures, "signed once").to.equal(1);
    await s.onRoundEvent(ev.attempt(6, 1), false);
    expect(await status(id)).to.deep.include({ status: "submitted", roundSeq: 6n, attemptSeq: 1n });
    expect(r.submitted, "fresh keys and nonces for the new attempt").to.have.length(2);
    await s.onRoundEvent(ev.proposal(6, 0), false);
    expect(r.signatures, "the old attempt's proposal is not signed").to.equal(1);
    expect(r.statusCalls).to.equal(0);
  });

  it("fails when its round fails, or finishes before it signed, once the server confirms it issued nothing: inputs back to spendable, movement failed", async () => {
    for (const end of [ev.failed(6), ev.finished(6, 0), ev.attempt(7, 0)]) {
      const { id, inputs } = await explicitRefresh(r, s);
      await s.onRoundEvent(ev.attempt(6, 0), false);
      await s.onRoundEvent(end, false);
      const p = await status(id);
      expect(p.status, `after ${end.kind} of round ${end.roundSeq}`).to.equal("failed");
      expect(p.error).to.equal("round 6 ended without our participation");
      expect(inputs.map((i) => r.vtxos.state(i))).to.deep.equal(["spendable", "spendable"]);
      expect(r.movements.get(p.movementId!)!.status).to.equal("failed");
    }
    expect(r.statusCalls, "the server was asked each time").to.equal(3);
  });

  it("takes the outputs the server says its round issued when the stream went on to a later round after it signed", async () => {
    const { id, inputs } = await explicitRefresh(r, s);
    await s.onRoundEvent(ev.attempt(6, 0), false);
    await s.onRoundEvent(ev.proposal(6, 0), false);
    r.status = async () => ISSUED;
    await s.onRoundEvent(ev.attempt(7, 0), false);
    const p = await status(id);
    expect(p).to.deep.include({ status: "finished", fundingTxid: "ff".repeat(32), inputsLocked: true });
    expect(inputs.map((i) => r.vtxos.state(i))).to.deep.equal([`locked by round.${id}`, `locked by round.${id}`]);
    expect(r.movements.get(p.movementId!)!.fundingTxid).to.equal("ff".repeat(32));
    expect(r.submitted, "not resubmitted to the later round").to.have.length(1);
  });

  it("a server that cannot be asked leaves the participation as it is; the next event asks again", async () => {
    const { id } = await explicitRefresh(r, s);
    await s.onRoundEvent(ev.attempt(6, 0), false);
    r.status = async () => { throw new Error("UNAVAILABLE"); };
    await s.onRoundEvent(ev.failed(6), false);
    expect((await status(id)).status).to.equal("submitted");
    r.status = async () => { throw notFound(); };
    await s.onRoundEvent(ev.attempt(7, 0), false);
    expect((await status(id)).status).to.equal("failed");
  });

  it("keeps a signed attempt when sending the signatures failed: the round's end decides", async () => {
    const { id } = await explicitRefresh(r, s);
    await s.onRoundEvent(ev.attempt(6, 0), false);
    r.ports.server.provideVtxoSignatures = async () => { throw new Error("connection reset"); };
    await s.onRoundEvent(ev.proposal(6, 0), false);
    expect((await status(id)).status).to.equal("submitted");
    await s.onRoundEvent(ev.finished(6, 0), false);
    expect(await status(id)).to.deep.include({ status: "finished", fundingTxid: "ff".repeat(32) });
  });

  it("a submission that only missed its attempt (late, round full, server out of reach) waits for the next round with its inputs held; other refusals fail it", async () => {
    const { id, inputs } = await explicitRefresh(r, s);
    const refusal = (status: string, serverMessage: string, code = 3) => ({ method: "/bark_server.ArkService/SubmitPayment", code, status, serverMessage, identifiers: [] });
    const missed = [
      new ArkServerRejectedError(refusal("INVALID_ARGUMENT", "bad user input: no round is running: wait for the next round attempt"), {}),
      new ArkServerRejectedError(refusal("INVALID_ARGUMENT", "bad user input: Round already started. Message arrived late or round was full."), {}),
      new ArkServerInternalError(refusal("INTERNAL", "not enough outputs left in this round, try next round", 13)),
      new ArkServerUnavailableError(refusal("UNAVAILABLE", "connection refused", 14)),
    ];
    for (const [i, e] of missed.entries()) {
      r.submit = async () => { throw e; };
      await s.onRoundEvent(ev.attempt(10 + i, 0), false);
      expect(await status(id), e.message).to.deep.include({ status: "pending", roundSeq: null, inputsLocked: true });
      expect(inputs.map((x) => r.vtxos.state(x))).to.deep.equal([`locked by round.${id}`, `locked by round.${id}`]);
    }
    r.submit = async () => { throw new ArkServerRejectedError(refusal("INVALID_ARGUMENT", "bad user input: refresh fee check failed"), {}); };
    await s.onRoundEvent(ev.attempt(20, 0), false);
    expect((await status(id)).status).to.equal("failed");
  });

  it("concurrent drivers of one participation (round events, syncs, the list) do not race: one submission, one signature, one outcome", async () => {
    const { id } = await explicitRefresh(r, s);
    const slow = r.submit;
    r.submit = async (req) => { await new Promise((res) => setTimeout(res, 20)); return slow(req); };
    const drivers = () => [s.onRoundEvent(ev.attempt(6, 0), false), s.sync(id), s.list(), s.onRoundEvent(ev.attempt(6, 0), false)];
    await Promise.all([...drivers(), ...drivers(), ...drivers()]);
    expect(await status(id)).to.deep.include({ status: "submitted", roundSeq: 6n });
    expect(r.submitted).to.have.length(1);
    await Promise.all(Array.from({ length: 10 }, () => s.onRoundEvent(ev.proposal(6, 0), false)));
    expect(r.signatures).to.equal(1);
    await Promise.all([s.onRoundEvent(ev.finished(6, 0), false), s.onRoundEvent(ev.finished(6, 0), false), s.sync(id), s.list()]);
    expect(await status(id)).to.deep.include({ status: "finished", fundingTxid: "ff".repeat(32) });
    expect(r.movements.size).to.equal(1);
  });

  describe("after a restart (joined by an earlier process, no secrets)", () => {
    it("waits out its round, then goes back to pending when the server issued nothing, and joins the next round's first attempt", async () => {
      const { id, inputs } = await explicitRefresh(r, s);
      await s.onRoundEvent(ev.attempt(6, 0), false);
      const restarted = r.service();
      for (const e of [ev.proposal(6, 0), ev.attempt(6, 1)]) await restarted.onRoundEvent(e, false);
      expect((await status(id)).status, "its round still runs").to.equal("submitted");
      expect(r.statusCalls).to.equal(0);
      await restarted.onRoundEvent(ev.finished(6, 1), false);
      expect(await status(id)).to.deep.include({ status: "pending", roundSeq: null, unlockHash: null, inputsLocked: true });
      expect(inputs.map((i) => r.vtxos.state(i)), "inputs still held").to.deep.equal([`locked by round.${id}`, `locked by round.${id}`]);
      await restarted.onRoundEvent(ev.attempt(7, 0), false);
      expect(await status(id)).to.deep.include({ status: "submitted", roundSeq: 7n });
    });

    it("joins the next round's first attempt in the same event when the first event it sees is that attempt", async () => {
      const { id } = await explicitRefresh(r, s);
      await s.onRoundEvent(ev.attempt(6, 0), false);
      await r.service().onRoundEvent(ev.attempt(9, 0), false);
      expect(await status(id)).to.deep.include({ status: "submitted", roundSeq: 9n });
      expect(r.submitted).to.have.length(2);
    });

    it("takes issued outputs from the replayed finished event, or from a sync, instead of resubmitting", async () => {
      const a = await explicitRefresh(r, s);
      const b = await explicitRefresh(r, s);
      await s.onRoundEvent(ev.attempt(6, 0), false);
      expect([(await status(a.id)).status, (await status(b.id)).status]).to.deep.equal(["submitted", "submitted"]);
      r.status = async () => ISSUED;
      const restarted = r.service();
      // the sync path: no event seen yet
      expect((await restarted.sync(b.id)).status).to.equal("unconfirmed");
      expect((await status(b.id)).status).to.equal("finished");
      // the replayed last event of its round
      await restarted.onRoundEvent(ev.finished(6, 0), false);
      expect((await status(a.id)).status).to.equal("finished");
      expect(r.submitted).to.have.length(2);
    });
  });
});
