import { expect } from "chai";
import { randomBytes } from "node:crypto";
import { Database, silentLogger, type StepOutcome } from "@tender/core";
import {
  boardVtxo, buildBoardExit, encodeVtxo, pubkeyFromSecret, sha256, toHex, verifyAttestation, vtxoId, vtxoIdString, vtxoStatusAttestation, type Vtxo,
} from "@tender/ark-protocol";
import { ArkServerRejectedError, ArkServerUnavailableError, type ArkServer, type VtxoSpendState } from "@tender/ark-protocol/server";
import { VtxoNotSpendableError } from "@tender/plugin-ark";
import type { LightningRail } from "../src/lightning-rail.js";
import { LIGHTNING_ENTITIES, LIGHTNING_MIGRATIONS, PaidInvoiceRow } from "../src/paid-invoice-row.js";
import { CHECK_INTERVAL_MS, SERVER_RETRY_MS, lightningSendAction } from "../src/send-action.js";
import type { LightningSendState } from "../src/send-state.js";

const secret = () => new Uint8Array(randomBytes(32));
const key = () => pubkeyFromSecret(secret());
const SERVER_PK = key();

/** An unsigned board VTXO of `amount` on a random outpoint (the steps here only store and name it). */
function vtxoOf(amount: bigint): Vtxo {
  const exit = buildBoardExit({ userPubkey: key(), serverPubkey: SERVER_PK, expiryHeight: 1_000, exitDelta: 12 }, { txid: new Uint8Array(randomBytes(32)), vout: 0 }, amount, 0n);
  return boardVtxo(exit, null);
}

const rejected = (serverMessage: string) => new ArkServerRejectedError(
  { method: "/bark_server.ArkService/X", code: 3, status: "INVALID_ARGUMENT", serverMessage, identifiers: [] }, {},
);
const unavailable = () => new ArkServerUnavailableError({ method: "/bark_server.ArkService/X", code: 14, status: "UNAVAILABLE", serverMessage: "connection refused", identifiers: [] });

/** What the fakes saw. */
interface Seen { added: [string, string][]; locked: string[][]; released: string[]; spent: string[][]; movementUpdates: [number, Record<string, unknown>][]; warnings: string[]; keyIndexes: number }

/** The wallet's `vtxo_refresh_expiry_threshold` in the fake rail. */
const THRESHOLD = 12;

describe("Lightning send action: the step transitions over fakes", () => {
  const preimage = new Uint8Array(randomBytes(32));
  const paymentHash = toHex(sha256(preimage));
  /** The HTLC key H and the revocation key R the fake key store knows. */
  const h = secret();
  const r = secret();
  const htlc: Vtxo = { ...vtxoOf(10_100n), policy: { type: "server-htlc-send", userPubkey: pubkeyFromSecret(h), paymentHash: sha256(preimage), htlcExpiry: 500 } };
  let db: Database;
  let seen: Seen;
  let server: Partial<Record<keyof ArkServer, unknown>>;
  let tip: number;
  let lockError: Error | undefined;
  let movementOutputs: string[];
  let heldExits: unknown;

  const state = (over: Partial<LightningSendState> = {}): LightningSendState => ({
    invoice: "lnbcrt1fake", paymentHash, amountSat: "10000", feeSat: "100", inputIds: ["aa".repeat(32) + ":0"], htlcKeyIndex: 0, changeAmounts: [],
    htlcExpiry: 500, phase: "payment-initiated", movementId: 7, htlcs: [toHex(encodeVtxo(htlc))], change: [], revocationKeyIndex: null,
    revoked: null, preimage: null, ...over,
  });

  beforeEach(async () => {
    db = new Database({ entities: LIGHTNING_ENTITIES, migrations: LIGHTNING_MIGRATIONS }, silentLogger);
    await db.open({ dialect: "sqlite", path: ":memory:" });
    seen = { added: [], locked: [], released: [], spent: [], movementUpdates: [], warnings: [], keyIndexes: 0 };
    server = {};
    tip = 100;
    lockError = undefined;
    movementOutputs = ["cc".repeat(32) + ":1"];
    heldExits = undefined;
  });
  afterEach(() => db.close());

  function action() {
    const rail = {
      server, db, network: "regtest", settings: { vtxo_refresh_expiry_threshold: THRESHOLD }, heldExits,
      logger: { ...silentLogger, warn: (m: string) => seen.warnings.push(m) },
      tipHeight: async () => tip,
      keys: {
        nextVtxoKey: async () => ({ index: 40 + seen.keyIndexes++ }),
        recoveryMailboxKey: () => ({ publicKey: pubkeyFromSecret(r), secretKey: r }),
        mailboxKey: () => ({ publicKey: pubkeyFromSecret(r), secretKey: r }),
        // index 0 is the HTLC key H of state(), any other the revocation key R
        deriveVtxoKey: (i: number) => (i === 0 ? { publicKey: pubkeyFromSecret(h), secretKey: h } : { publicKey: pubkeyFromSecret(r), secretKey: r }),
        keyByPubkey: async (pk: Uint8Array) => [h, r].map((sk) => ({ publicKey: pubkeyFromSecret(sk), secretKey: sk })).find((k) => toHex(k.publicKey) === toHex(pk)),
      },
      locks: {
        lock: async (ids: string[]) => { if (lockError) throw lockError; seen.locked.push(ids); },
        release: async (id: string) => { seen.released.push(id); },
      },
      vtxos: {
        markSpent: async (ids: string[]) => { seen.spent.push(ids); },
        add: async (v: Vtxo, st: string) => { seen.added.push([vtxoIdString(v), st]); },
      },
      movements: {
        get: async () => ({ output_vtxos: movementOutputs }),
        update: async (id: number, change: Record<string, unknown>) => {
          seen.movementUpdates.push([id, change]);
          if (change.outputVtxos) movementOutputs = change.outputVtxos as string[];
        },
      },
    } as unknown as LightningRail;
    return lightningSendAction(async () => rail);
  }
  const run = (step: string, s: LightningSendState): Promise<StepOutcome<LightningSendState>> => Promise.resolve(action().steps[step]!(s, { id: "send-1" }));

  /**
   * The server's spend state of the HTLC VTXO as `getVtxoStatus` answers it; the attestation must be
   * signed by the HTLC's owner key H over its id, as both servers check. Counts the questions.
   */
  function htlcSpendState(answer: VtxoSpendState | (() => never)): { asked: number } {
    const count = { asked: 0 };
    server.getVtxoStatus = async (id: Uint8Array, attestation: Uint8Array) => {
      count.asked++;
      expect(toHex(id)).to.equal(toHex(vtxoId(htlc)));
      expect(verifyAttestation(attestation, vtxoStatusAttestation(id), pubkeyFromSecret(h)), "attested by the HTLC key").to.equal(true);
      return typeof answer === "function" ? answer() : answer;
    };
    return count;
  }

  /** Runs the action's steps from `first` until one waits or the action ends; returns the steps run and the last outcome. */
  async function runUntilWait(first: string, s: LightningSendState): Promise<{ steps: string[]; last: StepOutcome<LightningSendState> }> {
    const steps: string[] = [];
    let step = first;
    let current = s;
    for (let i = 0; i < 20; i++) {
      steps.push(step);
      const out = await run(step, current);
      if (!("next" in out)) return { steps, last: out };
      step = out.next;
      current = out.state;
    }
    throw new Error(`no wait after ${steps.join(" → ")}`);
  }

  describe("check", () => {
    it("a success whose preimage hashes to the payment hash, with this send's HTLC spent on the server, goes to settle with the preimage", async () => {
      server.checkLightningPayment = async () => ({ status: "success", preimage });
      const status = htlcSpendState("spent");
      expect(await run("check", state())).to.deep.equal({ next: "settle", state: state({ preimage: toHex(preimage) }) });
      expect(status.asked).to.equal(1);
    });

    it("a success for the hash while this send's HTLC is still spendable is another payer's: revoke, marked paid by another, no preimage kept", async () => {
      server.checkLightningPayment = async () => ({ status: "success", preimage });
      htlcSpendState("spendable");
      const out = await run("check", state());
      expect(out).to.deep.include({ next: "revoke" });
      const next = (out as { state: LightningSendState }).state;
      expect(next).to.deep.include({ phase: "revocable-htlcs", preimage: null });
      expect(next.paidByAnother).to.match(/another payer/);
    });

    it("a success whose HTLC spend state is unanswered or neither spent nor spendable keeps checking", async () => {
      server.checkLightningPayment = async () => ({ status: "success", preimage });
      const unanswered = htlcSpendState(() => { throw unavailable(); });
      expect(await run("check", state())).to.deep.equal({ waitMs: CHECK_INTERVAL_MS, state: state() });
      expect(unanswered.asked).to.equal(1);
      for (const answer of ["unregistered", "unspecified"] as const) {
        htlcSpendState(answer);
        expect(await run("check", state()), answer).to.deep.equal({ waitMs: CHECK_INTERVAL_MS, state: state() });
      }
      expect(seen.warnings.some((w) => w.includes("spend state of the HTLC VTXOs"))).to.equal(true);
    });

    it("a success with a preimage of another hash is not believed: the send keeps waiting", async () => {
      server.checkLightningPayment = async () => ({ status: "success", preimage: new Uint8Array(32) });
      expect(await run("check", state())).to.deep.equal({ waitMs: CHECK_INTERVAL_MS, state: state() });
    });

    it("a failed payment and a payment the server does not know both go to revoke", async () => {
      server.checkLightningPayment = async () => ({ status: "failed" });
      expect(await run("check", state())).to.deep.equal({ next: "revoke", state: state({ phase: "revocable-htlcs" }) });
      server.checkLightningPayment = async () => { throw rejected("payment attempt not found"); };
      expect(await run("check", state())).to.deep.equal({ next: "revoke", state: state({ phase: "revocable-htlcs" }) });
    });

    it("pending or unanswered waits up to the refresh threshold before the HTLC expiry and revokes once the tip is past it", async () => {
      server.checkLightningPayment = async () => ({ status: "pending" });
      expect(await run("check", state())).to.deep.equal({ waitMs: CHECK_INTERVAL_MS, state: state() });
      server.checkLightningPayment = async () => { throw unavailable(); };
      tip = 500 - THRESHOLD;
      expect(await run("check", state())).to.deep.equal({ waitMs: CHECK_INTERVAL_MS, state: state() });
      tip = 500 - THRESHOLD + 1;
      expect(await run("check", state())).to.deep.equal({ next: "revoke", state: state({ phase: "revocable-htlcs" }) });
      server.checkLightningPayment = async () => ({ status: "pending" });
      expect(await run("check", state())).to.deep.equal({ next: "revoke", state: state({ phase: "revocable-htlcs" }) });
    });
  });

  describe("revoke", () => {
    it("first derives the revocation key and saves its index, once", async () => {
      const first = await run("revoke", state({ phase: "revocable-htlcs" }));
      expect(first).to.deep.equal({ next: "revoke", state: state({ phase: "revocable-htlcs", revocationKeyIndex: 40 }) });
      expect(seen.keyIndexes).to.equal(1);
    });

    it("a refusal quoting the preimage settles the send as paid when its HTLC is spent on the server; a wrong preimage in the text does not", async () => {
      const s = state({ phase: "revocable-htlcs", revocationKeyIndex: 40 });
      htlcSpendState("spent");
      server.requestLightningPayHtlcRevocation = async () => { throw rejected(`invoice has already been paid, preimage: ${toHex(preimage)}`); };
      const refused = await runRevoke(s);
      expect(refused).to.deep.equal({ next: "settle", state: { ...s, preimage: toHex(preimage) } });
      server.requestLightningPayHtlcRevocation = async () => { throw rejected(`invoice has already been paid, preimage: ${"00".repeat(32)}`); };
      const wrong = await runRevoke(s);
      expect(wrong).to.deep.include({ waitMs: SERVER_RETRY_MS });
      expect((wrong as { state: LightningSendState }).state.phase).to.equal("revocation-stuck");
    });

    it("after a refused initiate, a refusal quoting the preimage is this send's payment only if its own HTLC is spent: still spendable or unknown → retried, never paid; spent → paid", async () => {
      const s = state({ phase: "revocable-htlcs", revocationKeyIndex: 40, initiateRefused: "payment already in progress for this invoice" });
      server.requestLightningPayHtlcRevocation = async () => { throw rejected(`invoice has already been paid, preimage: ${toHex(preimage)}`); };
      // another payer settled the invoice: our HTLC is still ours
      htlcSpendState("spendable");
      const refused = await runRevoke(s);
      expect(refused).to.deep.include({ waitMs: SERVER_RETRY_MS });
      expect((refused as { state: LightningSendState }).state).to.deep.include({ phase: "revocation-stuck", preimage: null });
      htlcSpendState(() => { throw unavailable(); });
      expect(await runRevoke(s)).to.deep.include({ waitMs: SERVER_RETRY_MS });
      expect(seen.spent, "no HTLC counted as spent").to.deep.equal([]);
      // our own attempt, sent before a crash and refused on its replay, went through: the server spent our HTLC
      htlcSpendState("spent");
      expect(await runRevoke(s)).to.deep.equal({ next: "settle", state: { ...s, preimage: toHex(preimage) } });
      // the same after an earlier reading that another payer had paid
      expect(await runRevoke({ ...s, initiateRefused: undefined, paidByAnother: "paid by another payer" })).to.deep.include({ next: "settle" });
    });

    it("a refusal quoting the preimage while the HTLC is still spendable (another payer settled the invoice) is not this send's payment: stuck, marked paid by another", async () => {
      const s = state({ phase: "revocable-htlcs", revocationKeyIndex: 40 });
      htlcSpendState("spendable");
      server.requestLightningPayHtlcRevocation = async () => { throw rejected(`invoice has already been paid, preimage: ${toHex(preimage)}`); };
      const refused = await runRevoke(s);
      expect(refused).to.deep.include({ waitMs: SERVER_RETRY_MS });
      const next = (refused as { state: LightningSendState }).state;
      expect(next).to.deep.include({ phase: "revocation-stuck", preimage: null });
      expect(next.paidByAnother).to.match(/another payer/);
      // unanswered spend state: not paid either, asked again later
      htlcSpendState(() => { throw unavailable(); });
      const unknown = await runRevoke(s);
      expect(unknown).to.deep.include({ waitMs: SERVER_RETRY_MS });
      expect((unknown as { state: LightningSendState }).state).to.deep.include({ phase: "revocation-stuck", preimage: null });
    });

    it("\"not eligible for revocation yet\" asks again after a check interval, still revocable-htlcs; other refusals and silence retry as revocation-stuck", async () => {
      const s = state({ phase: "revocable-htlcs", revocationKeyIndex: 40 });
      server.requestLightningPayHtlcRevocation = async () => { throw rejected("This lightning payment is not eligible for revocation yet"); };
      const early = await runRevoke(s);
      expect(early).to.deep.include({ waitMs: CHECK_INTERVAL_MS });
      const { lastError, ...rest } = (early as { state: LightningSendState }).state;
      expect(rest).to.deep.equal(s);
      expect(lastError).to.match(/not eligible for revocation yet$/);
      let asked = 0;
      server.requestLightningPayHtlcRevocation = async () => { asked++; throw unavailable(); };
      const silent = await runRevoke(s);
      expect(asked, "the revocation was really asked for").to.equal(1);
      expect(silent).to.deep.include({ waitMs: SERVER_RETRY_MS });
      expect((silent as { state: LightningSendState }).state).to.deep.include({ phase: "revocation-stuck", revocationKeyIndex: 40 });
      expect(seen.warnings.some((w) => w.includes("revocation failed, retrying"))).to.equal(true);
    });
  });

  describe("settle", () => {
    it("records the preimage for good, spends the HTLCs, marks the movement successful; run again it changes nothing more", async () => {
      const s = state({ preimage: toHex(preimage) });
      expect(await run("settle", s)).to.deep.equal({ done: true, state: { ...s, phase: "paid", lastError: undefined } });
      expect(await run("settle", s)).to.deep.include({ done: true });
      const rows = await db.em().find(PaidInvoiceRow, {});
      expect(rows.map((r) => [r.paymentHash, r.preimage, r.invoice])).to.deep.equal([[paymentHash, toHex(preimage), "lnbcrt1fake"]]);
      expect(seen.spent).to.deep.equal([[vtxoIdString(htlc)], [vtxoIdString(htlc)]]);
      expect(seen.movementUpdates[0]).to.deep.equal([7, { status: "successful", metadata: { payment_preimage: toHex(preimage) } }]);
    });
  });

  describe("store-revoked", () => {
    it("registers the revocation output, then (a local step) stores it spendable, spends the HTLCs, fails the movement listing each output once even when run again after a crash", async () => {
      const back = vtxoOf(10_100n);
      const s = state({ phase: "revocable-htlcs", revocationKeyIndex: 40, revoked: [toHex(encodeVtxo(back))] });
      const registered: string[][] = [];
      server.registerVtxoTransactions = async (vtxos: Uint8Array[]) => { registered.push(vtxos.map(toHex)); };
      server.postRecoveryVtxoIds = async () => undefined;
      expect(await run("storeRevoked", s)).to.deep.equal({ next: "recordRevoked", state: s });
      expect(await run("recordRevoked", s)).to.deep.equal({ done: true, state: { ...s, phase: "revoked" } });
      expect(await run("storeRevoked", s)).to.deep.include({ next: "recordRevoked" });
      expect(await run("recordRevoked", s)).to.deep.include({ done: true });
      expect(registered).to.deep.equal([[toHex(encodeVtxo(back))], [toHex(encodeVtxo(back))]]);
      expect(seen.added).to.deep.equal([[vtxoIdString(back), "spendable"], [vtxoIdString(back), "spendable"]]);
      expect(seen.spent).to.deep.equal([[vtxoIdString(htlc)], [vtxoIdString(htlc)]]);
      expect(movementOutputs).to.deep.equal(["cc".repeat(32) + ":1", vtxoIdString(back)]);
      expect(seen.movementUpdates[1]![1]).to.deep.include({ status: "failed", effectiveBalanceSat: 0, offchainFeeSat: 0 });
      // the engine commits the local step with the end of the send: never the money back while still pending
      expect(action().localSteps).to.deep.equal(["recordRevoked"]);
    });

    it("an unanswered registration of the revocation output waits and stores nothing", async () => {
      const s = state({ phase: "revocable-htlcs", revocationKeyIndex: 40, revoked: [toHex(encodeVtxo(vtxoOf(10_100n)))] });
      server.registerVtxoTransactions = async () => { throw unavailable(); };
      expect(await run("storeRevoked", s)).to.deep.include({ waitMs: SERVER_RETRY_MS });
      expect([seen.added, seen.spent, seen.movementUpdates]).to.deep.equal([[], [], []]);
    });
  });

  describe("before anything is cosigned", () => {
    it("the lock step locks the inputs and goes on to the movement; inputs no longer spendable fail the send there", async () => {
      const s = state({ phase: "start" });
      expect(await run("lock", s)).to.deep.equal({ next: "movement", state: s });
      expect(seen.locked).to.deep.equal([s.inputIds]);
      lockError = new VtxoNotSpendableError("aa".repeat(32) + ":0", "spent");
      expect(await run("lock", state({ phase: "start" }))).to.deep.include({ failed: lockError.message });
    });

    it("a refused or unanswered input registration fails the send (nothing is cosigned yet); a registered one goes on to cosign", async () => {
      const input = vtxoOf(20_000n);
      const s = state({ phase: "start", inputIds: [vtxoIdString(input)], htlcs: null, change: null });
      const a = railWithInputs([input]);
      const registered: Uint8Array[][] = [];
      server.registerVtxoTransactions = async () => { throw rejected("bad user input: unknown VTXO"); };
      expect(await a.steps.registerInputs!(s, { id: "send-1" })).to.deep.equal({ failed: rejected("bad user input: unknown VTXO").message, state: s });
      server.registerVtxoTransactions = async () => { throw unavailable(); };
      expect(await a.steps.registerInputs!(s, { id: "send-1" })).to.deep.equal({ failed: unavailable().message, state: s });
      server.registerVtxoTransactions = async (vtxos: Uint8Array[]) => { registered.push(vtxos); };
      expect(await a.steps.registerInputs!(s, { id: "send-1" })).to.deep.equal({ next: "cosign", state: s });
      expect(registered.map((l) => l.map(toHex))).to.deep.equal([[toHex(encodeVtxo(input))]]);
    });

    it("a failed send releases its inputs and fails its movement without a fee; a finished one touches neither", async () => {
      const a = action();
      await a.onEnd!("send-1", "failed", state({ phase: "start" }));
      expect(seen.released).to.deep.equal(["send-1"]);
      expect(seen.movementUpdates).to.deep.equal([[7, { status: "failed", effectiveBalanceSat: 0, offchainFeeSat: 0 }]]);
      await a.onEnd!("send-2", "done", state({ phase: "paid" }));
      expect(seen.released).to.deep.equal(["send-1"]);
    });
  });

  describe("initiate", () => {
    it("goes on to check when the server does not answer (the check decides), and logs why", async () => {
      let asked = 0;
      server.initiateLightningPayment = async () => { asked++; throw unavailable(); };
      expect(await run("initiate", state({ phase: "htlc-received" }))).to.deep.equal({ next: "check", state: state({ phase: "payment-initiated" }) });
      expect(seen.warnings.some((w) => w.includes("initiating the payment"))).to.equal(true);
      expect(asked, "the payment was really asked for").to.equal(1);
    });

    it("a refusal (another payer's attempt in flight) goes straight to revoke and keeps the server's text: the hash's status is not this send's", async () => {
      server.initiateLightningPayment = async () => { throw rejected("payment already in progress for this invoice"); };
      let checked = 0;
      server.checkLightningPayment = async () => { checked++; return { status: "success", preimage }; };
      const out = await run("initiate", state({ phase: "htlc-received" }));
      expect(out).to.deep.include({ next: "revoke" });
      const next = (out as { state: LightningSendState }).state;
      expect(next.phase).to.equal("revocable-htlcs");
      expect(next.initiateRefused).to.match(/payment already in progress for this invoice$/);
      expect(checked, "the server's status of the hash was not asked").to.equal(0);
    });
  });

  describe("an initiate that got no answer, followed to its end", () => {
    beforeEach(() => {
      server.initiateLightningPayment = async () => { throw unavailable(); };
      server.checkLightningPayment = async () => ({ status: "success", preimage });
    });

    it("the hash paid by another wallet while this send's HTLC is unspent: never recorded paid, its revocation asked for", async () => {
      htlcSpendState("spendable");
      let revocations = 0;
      // as both servers answer a revocation once the hash is settled, whoever paid it
      server.requestLightningPayHtlcRevocation = async () => { revocations++; throw rejected(`invoice has already been paid, preimage: ${toHex(preimage)}`); };
      const { steps, last } = await runUntilWait("initiate", state({ phase: "htlc-received" }));
      expect(steps).to.deep.equal(["initiate", "check", "revoke", "revoke"]);
      expect(revocations, "the revocation was asked for").to.equal(1);
      expect(last).to.deep.include({ waitMs: SERVER_RETRY_MS });
      expect((last as { state: LightningSendState }).state).to.deep.include({ phase: "revocation-stuck", preimage: null });
      expect(await db.em().find(PaidInvoiceRow, {}), "no paid invoice recorded").to.deep.equal([]);
      expect(seen.spent, "the HTLC is not counted as spent").to.deep.equal([]);
      expect(seen.movementUpdates.filter(([, c]) => c.status === "successful")).to.deep.equal([]);
    });

    it("near the HTLC expiry the refused revocation hands the still-unspent HTLC over to the exits, never settling", async () => {
      htlcSpendState("spendable");
      server.requestLightningPayHtlcRevocation = async () => { throw rejected(`invoice has already been paid, preimage: ${toHex(preimage)}`); };
      tip = 500 - THRESHOLD + 1;
      const s = state({ phase: "revocable-htlcs", revocationKeyIndex: 40 });
      heldExits = { handler: {} }; // an exits rail is loaded (the hand-over step itself is not run here)
      const out = await run("revoke", s);
      expect(out).to.deep.include({ next: "exitHtlcs" });
      expect((out as { state: LightningSendState }).state).to.deep.include({ phase: "revocation-stuck", preimage: null });
    });

    it("the hash paid with this send's HTLC (spent on the server): recorded paid with the preimage", async () => {
      const status = htlcSpendState("spent");
      const { steps, last } = await runUntilWait("initiate", state({ phase: "htlc-received" }));
      expect(steps).to.deep.equal(["initiate", "check", "settle"]);
      expect(last).to.deep.include({ done: true });
      expect((last as { state: LightningSendState }).state).to.deep.include({ phase: "paid", preimage: toHex(preimage) });
      expect(status.asked).to.equal(1);
      const rows = await db.em().find(PaidInvoiceRow, {});
      expect(rows.map((row) => row.preimage)).to.deep.equal([toHex(preimage)]);
      expect(seen.spent).to.deep.equal([[vtxoIdString(htlc)]]);
    });
  });

  /** The revoke step, asking the (fake) server to cosign the revocation of the HTLC to key R. */
  function runRevoke(s: LightningSendState) {
    return run("revoke", s);
  }

  /** The action over a rail whose VTXO store holds `inputs`. */
  function railWithInputs(inputs: Vtxo[]) {
    const byId = new Map(inputs.map((v) => [vtxoIdString(v), { vtxo: v }]));
    const rail = {
      server, db, logger: silentLogger, tipHeight: async () => tip,
      vtxos: { get: async (id: string) => byId.get(id) },
    } as unknown as LightningRail;
    return lightningSendAction(async () => rail);
  }
});
