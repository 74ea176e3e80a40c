import { expect } from "chai";
import { Database, silentLogger } from "@tender/core";
import { encodeVtxo, fromHex, lightningReceiveAttestation, pubkeyFromSecret, sha256, toHex, verifyAttestation, vtxoId, vtxoIdString, type Vtxo } from "@tender/ark-protocol";
import {
  ArkServerRejectedError, ArkServerUnavailableError, type ClaimLightningReceiveRequest, type PrepareLightningReceiveClaimRequest, type StartLightningReceiveRequest,
} from "@tender/ark-protocol/server";
import { LightningReceiver } from "../src/lightning-receiver.js";
import { AWAIT_INTERVAL_MS, EXPIRED_GRACE_MS, PARKED_CLAIM_RETRY_MS, lightningReceiveAction } from "../src/receive-action.js";
import { RECEIVE_ENTITIES, RECEIVE_MIGRATIONS } from "../src/receive-cancel-row.js";
import type { LightningReceiveState } from "../src/receive-state.js";
import { HTLC_EXPIRY_DELTA, MemoryEngine, cosignClaim, fakeRail, grantedVtxo, invoiceFor, receiveStatus, secret } from "./receive-fakes.js";

const rejected = (serverMessage: string) => new ArkServerRejectedError(
  { method: "/bark_server.ArkService/X", code: 3, status: "INVALID_ARGUMENT", serverMessage, identifiers: [] }, {},
);
const unavailable = () => new ArkServerUnavailableError({ method: "/bark_server.ArkService/X", code: 14, status: "UNAVAILABLE", serverMessage: "connection refused", identifiers: [] });
/** The captaind default receive fee: 100 sat + 2000 ppm, rounded up. */
const receiveFee = (amount: bigint) => 100n + (amount * 2000n + 999_999n) / 1_000_000n;

type ServerState = "created" | "accepted" | "htlcs-ready" | "settled" | "canceled";

describe("Lightning receive over fakes of the Ark server", () => {
  let db: Database;
  let server: Record<string, unknown>;
  let tip: number;
  let anchors: Map<string, string>;
  let keySecrets: Uint8Array[];
  let calls: string[];
  let granted: Map<string, Vtxo[]>;
  let serverState: ServerState;
  /** What the fake server grants, given the request (the test may twist it). */
  let grant: (r: PrepareLightningReceiveClaimRequest, amount: bigint) => { expiry: number; hash: Uint8Array; userPubkey: Uint8Array; amount: bigint };

  beforeEach(async () => {
    db = new Database({ entities: RECEIVE_ENTITIES, migrations: RECEIVE_MIGRATIONS }, silentLogger);
    await db.open({ dialect: "sqlite", path: ":memory:" });
    tip = 100;
    anchors = new Map();
    keySecrets = [secret(), secret(), secret(), secret()];
    calls = [];
    granted = new Map();
    serverState = "created";
    grant = (r, amount) => ({ expiry: r.htlcRecvExpiry, hash: r.paymentHash, userPubkey: r.userPubkey, amount: amount - receiveFee(amount) });
    const amounts = new Map<string, bigint>();
    server = {
      startLightningReceive: async (r: StartLightningReceiveRequest) => {
        calls.push("start");
        amounts.set(toHex(r.paymentHash), r.amountSat);
        return invoiceFor(r.paymentHash, r.amountSat);
      },
      checkLightningReceive: async () => { calls.push("check"); return receiveStatus(serverState); },
      cancelLightningReceive: async () => { calls.push("cancel"); serverState = "canceled"; },
      prepareLightningReceiveClaim: async (r: PrepareLightningReceiveClaimRequest) => {
        calls.push("prepare");
        const hash = toHex(r.paymentHash);
        const amount = amounts.get(hash)!;
        if (!granted.has(hash)) {
          const g = grant(r, amount);
          const made = grantedVtxo({ type: "server-htlc-receive-v1", userPubkey: g.userPubkey, paymentHash: g.hash, htlcExpiry: g.expiry, htlcExpiryDelta: HTLC_EXPIRY_DELTA }, g.amount);
          anchors.set(toHex(Uint8Array.from(made.vtxo.anchorPoint.txid).reverse()), made.anchorHex);
          granted.set(hash, [made.vtxo]);
        }
        serverState = "htlcs-ready";
        return { receive: { ...receiveStatus("htlcs-ready"), amountSat: amount }, htlcVtxos: granted.get(hash)!.map((v) => encodeVtxo(v)) };
      },
      claimLightningReceive: async (r: ClaimLightningReceiveRequest) => {
        calls.push("claim");
        if (toHex(sha256(r.preimage)) !== toHex(r.paymentHash)) throw rejected("preimage doesn't match payment hash");
        serverState = "settled";
        return cosignClaim(granted.get(toHex(r.paymentHash))!, r.parts);
      },
      registerVtxoTransactions: async () => { calls.push("register"); },
    };
  });
  afterEach(() => db.close());

  function setup() {
    const f = fakeRail(db, server, { tip: () => tip, anchors, keySecrets });
    const engine = new MemoryEngine(lightningReceiveAction(async () => f.rail));
    const receiver = new LightningReceiver(async () => f.rail, engine.asEngine());
    return { ...f, engine, receiver };
  }
  const row = (engine: MemoryEngine) => [...engine.rows.values()][0]! as { step: string; state: LightningReceiveState; error?: string };
  const hashOf = (engine: MemoryEngine) => row(engine).state.paymentHash;

  it("saves the preimage with the receive before the server is asked for the invoice, and hands out the server's invoice", async () => {
    const { engine, receiver } = setup();
    let savedAtCall: LightningReceiveState | undefined;
    const start = server.startLightningReceive as (r: StartLightningReceiveRequest) => Promise<string>;
    server.startLightningReceive = async (r: StartLightningReceiveRequest) => {
      savedAtCall = [...engine.savedBeforeFirstStep.values()][0] as LightningReceiveState;
      expect(savedAtCall.paymentHash).to.equal(toHex(r.paymentHash));
      return start(r);
    };
    const invoice = await receiver.createInvoice({ amountSat: 50_000n, description: "coffee" });
    expect(savedAtCall, "a receive was saved before the server call").to.not.equal(undefined);
    expect(toHex(sha256(fromHex(savedAtCall!.preimage)))).to.equal(savedAtCall!.paymentHash);
    expect(savedAtCall!.invoice).to.equal(null);
    const list = await receiver.list();
    expect(list).to.have.length(1);
    expect(list[0]).to.include({ invoice, state: "awaiting-payment", payment_preimage: savedAtCall!.preimage, amount_sat: 50_000 });
    expect(list[0]!.htlc_vtxo_ids).to.deep.equal([]);
    expect(calls).to.deep.equal(["start", "check"]);
  });

  it("a refused invoice request is barkd's 500 'Failed to create invoice: …' and leaves no receive listed", async () => {
    server.startLightningReceive = async () => { throw rejected("Requested amount exceeds lightning receive limit of 1000"); };
    const { receiver } = setup();
    let err: unknown;
    await receiver.createInvoice({ amountSat: 5_000n }).catch((e: unknown) => { err = e; });
    expect((err as { status: number }).status).to.equal(500);
    expect((err as Error).message).to.match(/^Failed to create invoice: .*Requested amount exceeds lightning receive limit of 1000/);
    expect(await receiver.list()).to.deep.equal([]);
  });

  it("refuses an amount whose receive fee eats it before asking the server", async () => {
    const { receiver } = setup();
    let err: unknown;
    await receiver.createInvoice({ amountSat: 100n }).catch((e: unknown) => { err = e; });
    expect((err as Error).message).to.equal("Failed to create invoice: Fee (101 sat) exceeds amount (100 sat)");
    expect(calls).to.deep.equal([]);
  });

  it("pays out: accepted → HTLCs granted, checked and held (claimable) → claim reveals the preimage → claimed VTXO spendable, movement successful", async () => {
    const { engine, receiver, log, store, movements } = setup();
    await receiver.createInvoice({ amountSat: 50_000n });
    const hash = hashOf(engine);
    // first claim attempt unanswered: the receive stays with its HTLCs held
    const claim = server.claimLightningReceive as (r: ClaimLightningReceiveRequest) => Promise<unknown>;
    server.claimLightningReceive = async () => { calls.push("claim"); throw unavailable(); };
    serverState = "accepted";
    await receiver.onIncoming(hash);
    const held = row(engine);
    expect(held.state.phase).to.equal("preimage-revealed");
    const htlcAmount = 50_000n - receiveFee(50_000n);
    expect(await receiver.claimableSat()).to.equal(htlcAmount);
    const htlcId = vtxoIdString(granted.get(hash)![0]!);
    expect(log.added).to.deep.include([htlcId, "locked", `lightning-receive:${hash}`]);
    expect((await receiver.status(hash)).htlc_vtxo_ids).to.deep.equal([htlcId]);
    expect(log.created[0]).to.deep.include({ intendedBalanceSat: 50_000, effectiveBalanceSat: Number(htlcAmount), offchainFeeSat: Number(receiveFee(50_000n)) });
    expect(movements[0]).to.include({ status: "pending" });

    server.claimLightningReceive = claim;
    await receiver.onIncoming(hash);
    const info = await receiver.status(hash);
    expect(info.state).to.equal("settled");
    expect(info.settled_at).to.be.a("string");
    expect(info.finished_at).to.equal(info.settled_at);
    expect(info.htlc_vtxo_ids).to.deep.equal([]);
    const claimed = [...store.values()].filter((v) => v.state === "spendable");
    expect(claimed).to.have.length(1);
    expect(claimed[0]!.amountSat).to.equal(htlcAmount);
    expect(claimed[0]!.vtxo.policy).to.deep.include({ type: "pubkey" });
    expect(store.get(htlcId)!.state).to.equal("spent");
    expect(movements[0]).to.deep.include({ status: "successful" });
    expect(movements[0]!.metadata).to.deep.include({ payment_hash: hash, payment_preimage: row(engine).state.preimage, htlc_vtxos: [htlcId] });
    expect(await receiver.claimableSat()).to.equal(0n);
    expect(await receiver.list()).to.deep.equal([]);
  });

  it("refuses granted HTLCs that leave no time to claim them on chain, without revealing the preimage", async () => {
    // the chain moved on while the server granted the expiry asked for: too late to claim on chain now
    grant = (r, amount) => {
      tip += 10;
      return { expiry: r.htlcRecvExpiry, hash: r.paymentHash, userPubkey: r.userPubkey, amount: amount - receiveFee(amount) };
    };
    const { engine, receiver, log } = setup();
    await receiver.createInvoice({ amountSat: 20_000n });
    serverState = "accepted";
    await receiver.onIncoming(hashOf(engine));
    expect(row(engine).step).to.equal("failed");
    expect(row(engine).error).to.match(/leave no time to claim it unilaterally/);
    expect(calls).to.not.include("claim");
    expect(calls, "the hold invoice is cancelled so the payer is refunded").to.include("cancel");
    expect(log.added).to.deep.equal([]);
  });

  it("refuses granted HTLCs for another payment hash or short of the amount", async () => {
    grant = (r, amount) => ({ expiry: r.htlcRecvExpiry, hash: sha256(secret()), userPubkey: r.userPubkey, amount: amount - receiveFee(amount) });
    let s = setup();
    await s.receiver.createInvoice({ amountSat: 20_000n });
    serverState = "accepted";
    await s.receiver.onIncoming(hashOf(s.engine));
    expect(row(s.engine).error).to.match(/another payment hash/);

    grant = (r, amount) => ({ expiry: r.htlcRecvExpiry, hash: r.paymentHash, userPubkey: r.userPubkey, amount: amount - receiveFee(amount) - 1n });
    granted.clear();
    serverState = "created";
    s = setup();
    await s.receiver.createInvoice({ amountSat: 20_000n });
    serverState = "accepted";
    await s.receiver.onIncoming(hashOf(s.engine));
    expect(row(s.engine).error).to.match(/short of the invoice amount/);
    expect(calls).to.not.include("claim");
  });

  it("a grant the server refuses (no anti-DoS proof) ends the receive and cancels its hold invoice, the preimage never revealed", async () => {
    server.prepareLightningReceiveClaim = async () => { calls.push("prepare"); throw rejected("either a receive token or a challenge proof must be provided"); };
    const { engine, receiver, log } = setup();
    await receiver.createInvoice({ amountSat: 20_000n });
    serverState = "accepted";
    await receiver.onIncoming(hashOf(engine));
    expect(row(engine).step).to.equal("failed");
    expect(row(engine).error).to.match(/either a receive token or a challenge proof must be provided/);
    expect(calls).to.deep.equal(["start", "check", "check", "prepare", "cancel"]);
    expect(log.added).to.deep.equal([]);
  });

  it("proves ownership with a spendable VTXO's key over the payment hash, or sends the token given at creation", async () => {
    const seen: PrepareLightningReceiveClaimRequest[] = [];
    const prepare = server.prepareLightningReceiveClaim as (r: PrepareLightningReceiveClaimRequest) => Promise<unknown>;
    server.prepareLightningReceiveClaim = async (r: PrepareLightningReceiveClaimRequest) => { seen.push(r); return prepare(r); };
    const s1 = setup();
    const owned = grantedVtxo({ type: "pubkey", userPubkey: pubkeyFromSecret(keySecrets[2]!) }, 5_000n, 5_000).vtxo;
    await s1.rail.vtxos.add(owned, "spendable");
    await s1.receiver.createInvoice({ amountSat: 20_000n });
    serverState = "accepted";
    await s1.receiver.onIncoming(hashOf(s1.engine));
    const proof = seen[0]!.antiDos!;
    expect(proof.kind).to.equal("vtxo");
    if (proof.kind !== "vtxo") return;
    expect(toHex(proof.vtxoId)).to.equal(toHex(vtxoId(owned)));
    const msg = lightningReceiveAttestation(seen[0]!.paymentHash, proof.vtxoId);
    expect(verifyAttestation(proof.attestation, msg, pubkeyFromSecret(keySecrets[2]!))).to.equal(true);

    granted.clear();
    serverState = "created";
    const s2 = setup();
    await s2.receiver.createInvoice({ amountSat: 20_000n, token: "board-token-1" });
    serverState = "accepted";
    await s2.receiver.onIncoming(hashOf(s2.engine));
    expect(seen[1]!.antiDos).to.deep.equal({ kind: "token", token: "board-token-1" });
  });

  it("waits while unpaid, polling every 4 s, and drops the receive a minute after its invoice expired (cancelled on the server)", async () => {
    const { engine, receiver } = setup();
    await receiver.createInvoice({ amountSat: 10_000n });
    const hash = hashOf(engine);
    expect(row(engine).step).to.equal("await");
    const step = lightningReceiveAction(async () => setup().rail).steps.await!;
    const s = row(engine).state;
    expect(await step(s, { id: "x" })).to.deep.equal({ waitMs: AWAIT_INTERVAL_MS, state: s });
    const expired = { ...s, invoiceExpiresAtMs: Date.now() - EXPIRED_GRACE_MS - 1_000 };
    const out = await step(expired, { id: "x" });
    expect(out).to.deep.include({ failed: "invoice expired unpaid" });
    expect(calls.filter((c) => c === "cancel")).to.have.length(1);
    expect(hash).to.have.length(64);
  });

  it("cancels while awaiting payment: the server cancels the hold invoice and the receive is gone (status is barkd's 500)", async () => {
    const { engine, receiver } = setup();
    await receiver.createInvoice({ amountSat: 10_000n });
    const hash = hashOf(engine);
    await receiver.cancel(hash);
    expect(calls).to.include("cancel");
    expect(row(engine).step).to.equal("failed");
    expect(await receiver.list()).to.deep.equal([]);
    let err: unknown;
    await receiver.status(hash).catch((e: unknown) => { err = e; });
    expect((err as Error).message).to.equal("Failed to get lightning receive status: no pending lightning receive found for this payment hash");
    expect((err as { status: number }).status).to.equal(500);
  });

  it("refuses to cancel once HTLCs were granted or the preimage revealed", async () => {
    const { engine, receiver } = setup();
    server.claimLightningReceive = async () => { throw unavailable(); };
    await receiver.createInvoice({ amountSat: 10_000n });
    serverState = "accepted";
    await receiver.onIncoming(hashOf(engine));
    let err: unknown;
    await receiver.cancel(hashOf(engine)).catch((e: unknown) => { err = e; });
    expect((err as Error).message).to.match(/cannot cancel: preimage has already been revealed/);
    expect(calls).to.not.include("cancel");
  });

  it("abandons HTLCs that come too close to expiry before the claim: marked spent, movement canceled, preimage kept secret", async () => {
    const { engine, receiver, store, movements } = setup();
    await receiver.createInvoice({ amountSat: 10_000n });
    // stop right after the HTLCs are stored
    serverState = "accepted";
    const claimStep = engine["def"].steps.claim!;
    engine["def"].steps.claim = async (s, ctx) => (s.phase === "htlcs-ready" ? { waitMs: 1, state: s } : claimStep(s, ctx));
    await receiver.onIncoming(hashOf(engine));
    expect(row(engine).state.phase).to.equal("htlcs-ready");
    engine["def"].steps.claim = claimStep;
    tip = row(engine).state.requestedHtlcExpiry! - 5; // within vtxo_refresh_expiry_threshold (12) of the expiry
    await engine.drive(`lightning-receive:${hashOf(engine)}`);
    expect(row(engine).step).to.equal("failed");
    expect(calls).to.not.include("claim");
    expect([...store.values()].every((v) => v.state === "spent")).to.equal(true);
    expect(movements[0]!.status).to.equal("canceled");
    expect(calls).to.include("cancel");
  });

  it("retries a failed claim with growing pauses and parks it after lightning_receive_claim_retries, never giving up", async () => {
    const { engine, receiver } = setup();
    server.claimLightningReceive = async () => { calls.push("claim"); throw rejected("cosign inputs do not match htlcs"); };
    await receiver.createInvoice({ amountSat: 10_000n });
    serverState = "accepted";
    const id = `lightning-receive:${hashOf(engine)}`;
    await receiver.onIncoming(hashOf(engine));
    const waits: number[] = [];
    const claimStep = engine["def"].steps.claim!;
    for (let i = 0; i < 4; i++) {
      const out = await claimStep(row(engine).state, { id });
      expect(out).to.have.property("waitMs");
      waits.push((out as { waitMs: number }).waitMs);
      row(engine).state = (out as { state: LightningReceiveState }).state;
    }
    // attempt 1 failed inside onIncoming (1 s); then 2² s; the 3rd reaches the limit of 3 and parks
    expect(waits).to.deep.equal([4_000, PARKED_CLAIM_RETRY_MS, PARKED_CLAIM_RETRY_MS, PARKED_CLAIM_RETRY_MS]);
    expect(row(engine).state.phase).to.equal("preimage-revealed");
    expect(row(engine).step).to.equal("claim");
  });

  it("storing the claimed VTXO again after a crash stores it once and settles once", async () => {
    const { engine, receiver, store, log } = setup();
    await receiver.createInvoice({ amountSat: 10_000n });
    serverState = "accepted";
    const storeStep = engine["def"].steps.storeClaimed!;
    let saved: LightningReceiveState | undefined;
    engine["def"].steps.storeClaimed = async (s, ctx) => { saved = s; return storeStep(s, ctx); };
    await receiver.onIncoming(hashOf(engine));
    expect(row(engine).step).to.equal("done");
    await storeStep(saved!, { id: `lightning-receive:${hashOf(engine)}` });
    expect([...store.values()].filter((v) => v.state === "spendable")).to.have.length(1);
    expect(log.added.filter(([, st]) => st === "spendable")).to.have.length(1);
  });
});
