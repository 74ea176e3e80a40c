import { expect } from "chai";
import { randomBytes } from "node:crypto";
import { Database, silentLogger } from "@tender/core";
import { boardVtxo, buildBoardExit, encodeVtxo, pubkeyFromSecret, sha256, toHex, vtxoIdString, type Vtxo } from "@tender/ark-protocol";
import { HeldVtxoExits, type HeldExitOutcome } from "@tender/plugin-ark";
import {
  HTLC_EXIT_CHECK_MS, HTLC_EXIT_STEP, HTLC_EXIT_WAIT_STEP, handedOver, receiveExitDue, receiveExitSteps, receiveHandoverDue, sendExitDue, sendExitSteps,
  sendHandoverDue,
} from "../src/htlc-exit-handover.js";
import type { LightningRail } from "../src/lightning-rail.js";
import { LIGHTNING_ENTITIES, LIGHTNING_MIGRATIONS, PaidInvoiceRow } from "../src/paid-invoice-row.js";
import type { LightningReceiveRail } from "../src/receive-rail.js";
import type { LightningReceiveState } from "../src/receive-state.js";
import type { LightningSendState } from "../src/send-state.js";

const key = () => pubkeyFromSecret(new Uint8Array(randomBytes(32)));
const SERVER = key();
const PREIMAGE = new Uint8Array(randomBytes(32));
const HASH = sha256(PREIMAGE);
const EXIT_DELTA = 12;

/** An (unsigned) VTXO carrying `policy`: the hand-over only names and reads it. */
function vtxoWith(policy: Vtxo["policy"], amount = 20_000n): Vtxo {
  const exit = buildBoardExit({ userPubkey: key(), serverPubkey: SERVER, expiryHeight: 1_000, exitDelta: EXIT_DELTA }, { txid: new Uint8Array(randomBytes(32)), vout: 0 }, amount, 0n);
  return { ...boardVtxo(exit, null), policy } as Vtxo;
}
const sendHtlc = (expiry: number) => vtxoWith({ type: "server-htlc-send-v1", userPubkey: key(), paymentHash: HASH, htlcExpiry: expiry });
const recvHtlc = (expiry: number, htlcExpiryDelta = 6) => vtxoWith({ type: "server-htlc-receive-v1", userPubkey: key(), paymentHash: HASH, htlcExpiry: expiry, htlcExpiryDelta });

describe("Lightning HTLC hand-over to unilateral exits: when, and what is recorded", () => {
  describe("the rules", () => {
    it("a send exits once a refused revocation comes past htlc_expiry − vtxo_refresh_expiry_threshold; 'not eligible yet' counts only past the HTLC expiry", () => {
      const refused = new Error("RequestLightningPayHtlcRevocation refused");
      const inFlight = new Error("bad user input: This lightning payment is not eligible for revocation yet");
      expect(sendExitDue(470, 500, 30, refused)).to.equal(false);
      expect(sendExitDue(471, 500, 30, refused)).to.equal(true);
      expect(sendExitDue(499, 500, 30, inFlight), "the server may hold a payment in flight until the HTLC expiry").to.equal(false);
      expect(sendExitDue(500, 500, 30, inFlight)).to.equal(false);
      expect(sendExitDue(501, 500, 30, inFlight), "refused past the expiry: stuck").to.equal(true);
    });

    it("a receive exits once tip + Δ + htlc_expiry_delta + vtxo_exit_margin reaches the earliest HTLC expiry", () => {
      const htlcs = [recvHtlc(600), recvHtlc(580)];
      // 580 − 12 − 6 − 12 = 550
      expect(receiveExitDue(549, htlcs, 12)).to.equal(false);
      expect(receiveExitDue(550, htlcs, 12)).to.equal(true);
      expect(receiveExitDue(10_000, [sendHtlc(500)], 12), "only HTLC-recv VTXOs count").to.equal(false);
    });
  });

  interface Seen { exitHeld: { vtxoIds: readonly string[]; holder: string; preimage?: string }[]; updates: [number, Record<string, unknown>][] }
  let seen: Seen;
  let outcomes: Map<string, HeldExitOutcome>;
  let tip: number;
  let db: Database;
  /** What the fake server's CheckLightningPayment answers (throws when a function). */
  let paymentStatus: { status: string; preimage?: Uint8Array } | (() => never);

  function rail(withHandler = true): LightningReceiveRail {
    const heldExits = new HeldVtxoExits();
    if (withHandler) {
      heldExits.register("exits", {
        exitHeld: async (req) => {
          seen.exitHeld.push({ vtxoIds: req.vtxoIds, holder: req.holder, ...(req.preimage ? { preimage: toHex(req.preimage) } : {}) });
          for (const id of req.vtxoIds) if (!outcomes.has(id)) outcomes.set(id, "in-progress");
        },
        outcome: async (id) => outcomes.get(id) ?? "none",
      });
    }
    const server = {
      checkLightningPayment: async () => (typeof paymentStatus === "function" ? paymentStatus() : paymentStatus),
    } as unknown as LightningRail["server"];
    const partial: Partial<LightningReceiveRail> = {
      heldExits, logger: silentLogger, tipHeight: async () => tip, db, server,
      settings: { vtxo_refresh_expiry_threshold: 30, vtxo_exit_margin: 12 } as LightningRail["settings"],
      movements: { update: async (id: number, c: Record<string, unknown>) => { seen.updates.push([id, c]); return {}; } } as unknown as LightningRail["movements"],
    };
    return partial as LightningReceiveRail;
  }

  beforeEach(async () => {
    seen = { exitHeld: [], updates: [] };
    outcomes = new Map();
    tip = 100;
    paymentStatus = { status: "pending" };
    db = new Database({ entities: LIGHTNING_ENTITIES, migrations: LIGHTNING_MIGRATIONS }, silentLogger);
    await db.open({ dialect: "sqlite", path: ":memory:" });
  });
  afterEach(() => db.close());

  const sendState = (htlcs: Vtxo[]): LightningSendState => ({
    invoice: "lnbcrt1fake", paymentHash: toHex(HASH), amountSat: "19900", feeSat: "100", inputIds: [], htlcKeyIndex: 0, changeAmounts: [],
    htlcExpiry: 500, phase: "revocation-stuck", movementId: 7, htlcs: htlcs.map((v) => toHex(encodeVtxo(v))), change: [], revocationKeyIndex: 1, revoked: null, preimage: null,
  });

  it("without an exits rail nothing is handed over: the send and the receive keep asking the server", async () => {
    tip = 10_000;
    expect(await sendHandoverDue(rail(false), sendState([sendHtlc(500)]), new Error("refused"))).to.equal(false);
    expect(await sendHandoverDue(rail(true), sendState([sendHtlc(500)]), new Error("refused"))).to.equal(true);
    const recv = { htlcs: [toHex(encodeVtxo(recvHtlc(600)))] } as LightningReceiveState;
    expect(await receiveHandoverDue(rail(false), recv)).to.equal(false);
    expect(await receiveHandoverDue(rail(true), recv)).to.equal(true);
  });

  it("send: the HTLCs are handed over held by the action and listed as exited; the movement stays pending while the exit runs; claimed → failed with effective 0, done as revoked", async () => {
    const htlcs = [sendHtlc(500), sendHtlc(500)];
    const ids = htlcs.map(vtxoIdString);
    const steps = sendExitSteps(async () => rail());
    const handed = await steps[HTLC_EXIT_STEP]!(sendState(htlcs), { id: "lightning.send:x" });
    expect(handed).to.deep.include({ next: HTLC_EXIT_WAIT_STEP });
    const s = (handed as { state: LightningSendState }).state;
    expect(s.phase).to.equal("revocation-stuck");
    expect(handedOver(s)).to.equal(true);
    expect(seen.exitHeld).to.deep.equal([{ vtxoIds: ids, holder: "lightning.send:x" }]);
    expect(seen.updates).to.deep.equal([[7, { exitedVtxos: ids }]]);

    expect(await steps[HTLC_EXIT_WAIT_STEP]!(s, { id: "lightning.send:x" })).to.deep.equal({ waitMs: HTLC_EXIT_CHECK_MS, state: s });
    outcomes.set(ids[0]!, "claimed");
    expect(await steps[HTLC_EXIT_WAIT_STEP]!(s, { id: "lightning.send:x" }), "one of two claimed: still waiting").to.deep.include({ waitMs: HTLC_EXIT_CHECK_MS });
    expect(seen.updates).to.have.length(1);
    outcomes.set(ids[1]!, "claimed");
    const done = await steps[HTLC_EXIT_WAIT_STEP]!(s, { id: "lightning.send:x" });
    expect(done).to.deep.include({ done: true });
    expect((done as { state: LightningSendState }).state.phase).to.equal("revoked");
    expect(seen.updates[1]).to.deep.equal([7, { status: "failed", effectiveBalanceSat: 0, offchainFeeSat: 0 }]);
  });

  it("send: an HTLC output the server spent on chain (its preimage clause) records the payment successful with the preimage the server tells (the invoice recorded paid); a canceled exit goes back to asking for the revocation", async () => {
    const htlcs = [sendHtlc(500)];
    const id = vtxoIdString(htlcs[0]!);
    const steps = sendExitSteps(async () => rail());
    const s = sendState(htlcs);
    outcomes.set(id, "canceled");
    expect(await steps[HTLC_EXIT_WAIT_STEP]!(s, { id: "a" })).to.deep.include({ next: "revoke" });
    outcomes.set(id, "spent-elsewhere");
    // a server that does not answer: paid all the same, without the preimage
    paymentStatus = () => { throw new Error("unavailable"); };
    const paid = await steps[HTLC_EXIT_WAIT_STEP]!(s, { id: "a" });
    expect((paid as { state: LightningSendState }).state).to.deep.include({ phase: "paid", preimage: null });
    expect(seen.updates).to.deep.equal([[7, { status: "successful" }]]);
    expect(await db.em().find(PaidInvoiceRow, {})).to.deep.equal([]);
    // the server tells the preimage of the payment: recorded as the proof of payment
    paymentStatus = { status: "success", preimage: PREIMAGE };
    const proven = await steps[HTLC_EXIT_WAIT_STEP]!(s, { id: "a" });
    expect((proven as { state: LightningSendState }).state).to.deep.include({ phase: "paid", preimage: toHex(PREIMAGE) });
    expect(seen.updates.at(-1)).to.deep.equal([7, { status: "successful", metadata: { payment_preimage: toHex(PREIMAGE) } }]);
    expect((await db.em().find(PaidInvoiceRow, {})).map((r) => [r.paymentHash, r.preimage, r.invoice])).to.deep.equal([[toHex(HASH), toHex(PREIMAGE), s.invoice]]);
    // a preimage of another hash is not taken
    paymentStatus = { status: "success", preimage: new Uint8Array(32).fill(9) };
    expect(((await steps[HTLC_EXIT_WAIT_STEP]!(s, { id: "a" })) as { state: LightningSendState }).state.preimage).to.equal(null);
  });

  const recvState = (htlcs: Vtxo[]): LightningReceiveState => ({
    preimage: toHex(PREIMAGE), paymentHash: toHex(HASH), amountSat: "40000", description: null, token: null, keyIndex: 3, minCltvDelta: 50, claimAddress: null,
    createdAtMs: 1, phase: "preimage-revealed", invoice: "lnbcrt1fake", invoiceExpiresAtMs: null, requestedHtlcExpiry: 150,
    htlcs: htlcs.map((v) => toHex(encodeVtxo(v))), movementId: 9, claimAttempts: 2, claimed: null, settledAtMs: null,
  });

  it("receive: the preimage goes with the HTLC-recv VTXOs; claimed on chain → movement successful with the preimage, settled; taken by the server → the receive fails (no longer preimage-revealed), movement failed with effective 0", async () => {
    const htlcs = [recvHtlc(600)];
    const id = vtxoIdString(htlcs[0]!);
    const steps = receiveExitSteps(async () => rail());
    const handed = await steps[HTLC_EXIT_STEP]!(recvState(htlcs), { id: "lightning.receive:y" });
    expect(handed).to.deep.include({ next: HTLC_EXIT_WAIT_STEP });
    expect(seen.exitHeld).to.deep.equal([{ vtxoIds: [id], holder: "lightning.receive:y", preimage: toHex(PREIMAGE) }]);
    const s = (handed as { state: LightningReceiveState }).state;
    expect(s.phase, "the receive is not settled before the claim confirmed").to.equal("preimage-revealed");
    outcomes.set(id, "claimed");
    const done = await steps[HTLC_EXIT_WAIT_STEP]!(s, { id: "lightning.receive:y" });
    expect((done as { state: LightningReceiveState }).state.phase).to.equal("settled");
    expect(seen.updates.at(-1)).to.deep.equal([9, { status: "successful", metadata: { payment_preimage: toHex(PREIMAGE) } }]);

    outcomes.set(id, "spent-elsewhere");
    const lost = await steps[HTLC_EXIT_WAIT_STEP]!(s, { id: "lightning.receive:y" });
    expect(lost).to.deep.include({ failed: "the server took the HTLC VTXOs on chain before the wallet's claim" });
    expect(seen.updates.at(-1)).to.deep.equal([9, { status: "failed", effectiveBalanceSat: 0, offchainFeeSat: 0 }]);
  });

  it("a hand-over the exits rail refuses is retried later, recording nothing", async () => {
    const r = rail(false);
    r.heldExits!.register("exits", { exitHeld: async () => { throw new Error("VTXO is not held"); }, outcome: async () => "none" });
    const out = await sendExitSteps(async () => r)[HTLC_EXIT_STEP]!(sendState([sendHtlc(500)]), { id: "a" });
    expect(out).to.deep.include({ waitMs: HTLC_EXIT_CHECK_MS });
    expect(seen.updates).to.deep.equal([]);
  });
});
