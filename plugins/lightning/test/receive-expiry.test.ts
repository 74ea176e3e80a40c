import { expect } from "chai";
import { Database, silentLogger } from "@tender/core";
import { arkId, encodeArkAddress, encodeVtxo, pubkeyFromSecret, toHex, vtxoIdString, type Vtxo } from "@tender/ark-protocol";
import { ArkServerRejectedError, type PrepareLightningReceiveClaimRequest, type StartLightningReceiveRequest } from "@tender/ark-protocol/server";
import { decodeBolt11 } from "@tender/plugin-wallet";
import { EXPIRY_SECS_REFUSED, LightningReceiver, parseExpirySecs } from "../src/lightning-receiver.js";
import { AWAIT_INTERVAL_MS, EXPIRED_GRACE_MS, MAX_EXPIRY_SECS, lightningReceiveAction } from "../src/receive-action.js";
import { RECEIVE_ENTITIES, RECEIVE_MIGRATIONS } from "../src/receive-cancel-row.js";
import type { LightningReceiveState } from "../src/receive-state.js";
import { HTLC_EXPIRY_DELTA, MemoryEngine, SERVER, fakeRail, grantedVtxo, invoiceFor, receiveStatus, secret } from "./receive-fakes.js";

type ServerState = "created" | "accepted" | "htlcs-ready" | "settled" | "canceled";
/** The captaind default receive fee: 100 sat + 2000 ppm, rounded up. */
const receiveFee = (amount: bigint) => 100n + (amount * 2000n + 999_999n) / 1_000_000n;
/** An Ark address of another wallet on the fake server, with mailbox delivery. */
const otherAddress = () => encodeArkAddress({
  testnet: true, arkId: arkId(SERVER.pk), policy: { type: "pubkey", userPubkey: pubkeyFromSecret(secret()) },
  deliveries: [{ type: "server-mailbox", blindedId: pubkeyFromSecret(secret()) }],
});
const rejected = (serverMessage: string) => new ArkServerRejectedError(
  { method: "/bark_server.ArkService/CancelLightningReceive", code: 5, status: "NOT_FOUND", serverMessage, identifiers: [] }, {},
);
const refusal = async (p: Promise<unknown>) => {
  try {
    await p;
  } catch (e) {
    return e as Error & { status: number };
  }
  throw new Error("expected a refusal");
};

describe("Lightning receive: the caller's invoice expiry (expiry_secs), barkd's refusal texts and records (over fakes)", () => {
  let db: Database;
  let server: Record<string, unknown>;
  let calls: string[];
  let serverState: ServerState;
  /** The expiry the fake server writes into its invoices. */
  let serverExpirySecs: number;
  const anchors = new Map<string, string>();
  const granted = new Map<string, Vtxo[]>();

  beforeEach(async () => {
    db = new Database({ entities: RECEIVE_ENTITIES, migrations: RECEIVE_MIGRATIONS }, silentLogger);
    await db.open({ dialect: "sqlite", path: ":memory:" });
    calls = [];
    serverState = "created";
    serverExpirySecs = 3_600;
    granted.clear();
    const amounts = new Map<string, bigint>();
    server = {
      startLightningReceive: async (r: StartLightningReceiveRequest) => {
        calls.push("start");
        amounts.set(toHex(r.paymentHash), r.amountSat);
        return invoiceFor(r.paymentHash, r.amountSat, { expirySecs: serverExpirySecs });
      },
      checkLightningReceive: async () => { calls.push("check"); return receiveStatus(serverState); },
      cancelLightningReceive: async () => { calls.push("cancel"); serverState = "canceled"; },
      prepareLightningReceiveClaim: async (r: PrepareLightningReceiveClaimRequest) => {
        calls.push("prepare");
        const hash = toHex(r.paymentHash);
        const amount = amounts.get(hash)!;
        const made = grantedVtxo({ type: "server-htlc-receive-v1", userPubkey: r.userPubkey, paymentHash: r.paymentHash, htlcExpiry: r.htlcRecvExpiry, htlcExpiryDelta: HTLC_EXPIRY_DELTA }, amount - receiveFee(amount));
        anchors.set(toHex(Uint8Array.from(made.vtxo.anchorPoint.txid).reverse()), made.anchorHex);
        granted.set(hash, [made.vtxo]);
        serverState = "htlcs-ready";
        return { receive: { ...receiveStatus("htlcs-ready"), amountSat: amount }, htlcVtxos: [encodeVtxo(made.vtxo)] };
      },
    };
  });
  afterEach(() => db.close());

  function setup() {
    const keySecrets = [secret(), secret(), secret()];
    const f = fakeRail(db, server, { tip: () => 100, anchors, keySecrets });
    const engine = new MemoryEngine(lightningReceiveAction(async () => f.rail));
    const receiver = new LightningReceiver(async () => f.rail, engine.asEngine());
    return { ...f, engine, receiver, keySecrets };
  }
  const row = (engine: MemoryEngine) => [...engine.rows.values()][0]! as { step: string; state: LightningReceiveState; error?: string };

  it("expiry_secs: absent or null is the server's; an integer from 1 to 2³²−1 is taken; anything else is a 400 with a clear text", () => {
    expect(parseExpirySecs(undefined)).to.equal(null);
    expect(parseExpirySecs(null)).to.equal(null);
    expect(parseExpirySecs(1)).to.equal(1);
    expect(parseExpirySecs(MAX_EXPIRY_SECS)).to.equal(MAX_EXPIRY_SECS);
    expect(parseExpirySecs(BigInt(MAX_EXPIRY_SECS))).to.equal(MAX_EXPIRY_SECS);
    for (const bad of [0, -1, 1.5, MAX_EXPIRY_SECS + 1, 2n ** 64n, "60", true, [60], { s: 60 }]) {
      let err: (Error & { status?: number }) | undefined;
      try {
        parseExpirySecs(bad);
      } catch (e) {
        err = e as Error & { status?: number };
      }
      expect(err?.status, String(bad)).to.equal(400);
      expect(err!.message.startsWith(EXPIRY_SECS_REFUSED), err!.message).to.equal(true);
    }
  });

  it("a refused expiry_secs asks nothing of the server", async () => {
    const { receiver, engine } = setup();
    const err = await refusal(receiver.createInvoice({ amountSat: 10_000n, expirySecs: 0 }));
    expect([err.status, err.message]).to.deep.equal([400, `${EXPIRY_SECS_REFUSED} (got 0)`]);
    expect(calls).to.deep.equal([]);
    expect(engine.rows.size).to.equal(0);
  });

  it("an expiry_secs above the server's invoice expiry is a 400 once the server's invoice shows it: the hold invoice cancelled, nothing listed, no key used", async () => {
    const { receiver, engine, log } = setup();
    const err = await refusal(receiver.createInvoice({ amountSat: 10_000n, expirySecs: 3_601 }));
    expect(err.status).to.equal(400);
    expect(err.message).to.equal("bad request: expiry_secs is above the Ark server's invoice expiry: 3601 > 3600 seconds");
    expect(calls).to.deep.equal(["start", "cancel"]);
    expect(row(engine).step).to.equal("failed");
    expect(row(engine).state.keyIndex).to.equal(null);
    expect(await receiver.list()).to.deep.equal([]);
    expect(log.created).to.deep.equal([]);
  });

  it("an expiry_secs up to the server's: the receive expires that long after the invoice's timestamp, stays listed a minute past it, then is dropped and its hold invoice cancelled", async () => {
    const { receiver, engine } = setup();
    const invoice = await receiver.createInvoice({ amountSat: 10_000n, expirySecs: 120 });
    const decoded = decodeBolt11(invoice);
    expect(Number(decoded.expirySeconds), "the invoice keeps the server's expiry").to.equal(3_600);
    const s = row(engine).state;
    expect(s.expirySecs).to.equal(120);
    expect(s.invoiceExpiresAtMs).to.equal((decoded.timestamp + 120) * 1000);
    const step = lightningReceiveAction(async () => setup().rail).steps.await!;
    const within = { ...s, invoiceExpiresAtMs: Date.now() - EXPIRED_GRACE_MS + 5_000 };
    expect(await step(within, { id: "x" }), "still within the minute after the expiry").to.deep.equal({ waitMs: AWAIT_INTERVAL_MS, state: within });
    expect(calls).to.not.include("cancel");
    const past = { ...s, invoiceExpiresAtMs: Date.now() - EXPIRED_GRACE_MS - 1_000 };
    expect(await step(past, { id: "x" })).to.deep.include({ failed: "invoice expired unpaid" });
    expect(calls.filter((c) => c === "cancel")).to.have.length(1);

    serverState = "created";
    const same = setup();
    await same.receiver.createInvoice({ amountSat: 10_000n, expirySecs: 3_600 });
    expect([...same.engine.rows.values()][0]!.step, "the server's own expiry is allowed").to.equal("await");
  });

  it("past the chosen expiry, a cancel the server did not take is asked again until it does (the server's invoice is still payable); past the server's own expiry, or for a receive it no longer knows, the receive is dropped", async () => {
    const { receiver, engine } = setup();
    await receiver.createInvoice({ amountSat: 10_000n, expirySecs: 120 });
    const s = row(engine).state;
    const step = lightningReceiveAction(async () => setup().rail).steps.await!;
    const past = { ...s, invoiceExpiresAtMs: Date.now() - EXPIRED_GRACE_MS - 1_000 };
    server.cancelLightningReceive = async () => { calls.push("cancel"); throw new Error("connection reset"); };
    const again = await step(past, { id: "x" });
    expect(again).to.deep.include({ waitMs: AWAIT_INTERVAL_MS });
    expect((again as { state: LightningReceiveState }).state.lastError).to.match(/connection reset/);
    expect(calls.filter((c) => c === "cancel")).to.have.length(1);
    // the server's own expiry (its BOLT11 expiry) passed too: nothing can pay it any more
    const decoded = decodeBolt11(s.invoice!);
    const realNow = Date.now;
    Date.now = () => (decoded.timestamp + 3_600) * 1000 + EXPIRED_GRACE_MS + 1_000;
    try {
      expect(await step(past, { id: "x" })).to.deep.include({ failed: "invoice expired unpaid" });
    } finally {
      Date.now = realNow;
    }
    server.cancelLightningReceive = async () => { calls.push("cancel"); throw rejected("receive not found"); };
    expect(await step(past, { id: "x" })).to.deep.include({ failed: "invoice expired unpaid" });
  });

  it("a payment the server holds before the chosen expiry is received as any other", async () => {
    const { receiver, engine } = setup();
    await receiver.createInvoice({ amountSat: 10_000n, expirySecs: 60 });
    serverState = "accepted";
    const claim = engine["def"].steps.claim!;
    // stop before the claim: the HTLCs are held, the phase is htlcs-ready
    engine["def"].steps.claim = async (st, ctx) => (st.phase === "htlcs-ready" ? { waitMs: 1, state: st } : claim(st, ctx));
    await receiver.onIncoming(row(engine).state.paymentHash);
    expect(row(engine).state.phase).to.equal("htlcs-ready");
    expect(calls).to.include("prepare");
  });

  it("cancel once the HTLCs are granted is refused with barkd's text; nothing changes", async () => {
    const { receiver, engine, log } = setup();
    await receiver.createInvoice({ amountSat: 10_000n });
    serverState = "accepted";
    const claim = engine["def"].steps.claim!;
    engine["def"].steps.claim = async (st, ctx) => (st.phase === "htlcs-ready" ? { waitMs: 1, state: st } : claim(st, ctx));
    const hash = row(engine).state.paymentHash;
    await receiver.onIncoming(hash);
    const before = structuredClone(row(engine));
    const err = await refusal(receiver.cancel(hash));
    expect([err.status, err.message]).to.deep.equal([
      500, "Failed to cancel lightning receive: cannot cancel: HTLCs already granted; the receive will complete or be abandoned near expiry",
    ]);
    expect(row(engine)).to.deep.equal(before);
    expect(calls).to.not.include("cancel");
    expect(log.updates).to.deep.equal([]);
  });

  it("records the movement as barkd when the HTLCs are held: preimage and HTLC ids in the metadata, effective = amount − fee, also for a receive-for-address", async () => {
    for (const address of [undefined, otherAddress()]) {
      const { receiver, engine, log } = setup();
      await receiver.createInvoice({ amountSat: 20_000n, address });
      serverState = "accepted";
      const claim = engine["def"].steps.claim!;
      engine["def"].steps.claim = async (st, ctx) => (st.phase === "htlcs-ready" ? { waitMs: 1, state: st } : claim(st, ctx));
      await receiver.onIncoming(row(engine).state.paymentHash);
      const s = row(engine).state;
      expect(s.claimAddress).to.equal(address ?? null);
      expect(log.created[0]).to.deep.include({ intendedBalanceSat: 20_000, effectiveBalanceSat: 20_000 - Number(receiveFee(20_000n)), offchainFeeSat: Number(receiveFee(20_000n)) });
      expect(log.created[0]!.metadata).to.deep.equal({ payment_hash: s.paymentHash, htlc_vtxos: granted.get(s.paymentHash)!.map(vtxoIdString), payment_preimage: s.preimage });
      engine.rows.clear();
      serverState = "created";
    }
  });

  it("claimable_lightning_receive_sat counts held HTLCs as barkd: a receive-for-address's too, until its claimed VTXO is being delivered", async () => {
    for (const address of [undefined, otherAddress()]) {
      const { receiver, engine } = setup();
      await receiver.createInvoice({ amountSat: 20_000n, address });
      expect(await receiver.claimableSat(), "nothing before the payment").to.equal(0n);
      serverState = "accepted";
      const claim = engine["def"].steps.claim!;
      engine["def"].steps.claim = async (st, ctx) => (st.phase === "htlcs-ready" ? { waitMs: 1, state: st } : claim(st, ctx));
      await receiver.onIncoming(row(engine).state.paymentHash);
      expect(row(engine).state.phase).to.equal("htlcs-ready");
      expect(await receiver.claimableSat()).to.equal(20_000n - receiveFee(20_000n));
      row(engine).state.phase = "preimage-revealed";
      expect(await receiver.claimableSat()).to.equal(20_000n - receiveFee(20_000n));
      row(engine).state.phase = "delivering";
      expect(await receiver.claimableSat(), "being delivered").to.equal(0n);
      engine.rows.clear();
      serverState = "created";
    }
  });

  it("a refused receive-for-address invoice is barkd's 500 'Failed to create invoice for address: …'", async () => {
    server.startLightningReceive = async () => { throw new Error("the server is out of liquidity"); };
    const { receiver } = setup();
    const err = await refusal(receiver.createInvoice({ amountSat: 10_000n, address: otherAddress() }));
    expect([err.status, err.message]).to.deep.equal([500, "Failed to create invoice for address: the server is out of liquidity"]);
  });
});
