import { expect } from "chai";
import * as grpc from "@grpc/grpc-js";
import { ArkServerInternalError, ArkServerRejectedError, InvalidServerResponseError, type ArkServer, type RoundEvent as DomainRoundEvent } from "@tender/ark-protocol/server";
import {
  ForfeitNoncesResponse, ForfeitVtxosResponse, LeafVtxoCosignResponse, RoundEvent, RoundParticipationResponse, RoundParticipationStatus, RoundParticipationStatusResponse,
  SubmitPaymentResponse, grpcArkServerConnectorWith, type ForfeitNoncesRequest, type ForfeitVtxosRequest, type LeafVtxoCosignRequest, type RoundParticipationRequest,
  type RoundParticipationStatusRequest, type SubmitPaymentRequest, type VtxoSignaturesRequest,
} from "../src/index.js";
import { roundEventOf, roundParticipationStatusOf } from "../src/domain-mapping.js";
import { FAST_BACKOFF, grpcError, until, useFakeServers } from "./fake-server.js";

const connector = grpcArkServerConnectorWith({ backoff: FAST_BACKOFF });
const bytes = (...b: number[]) => new Uint8Array(b);

/** One `RoundEvent` message of every kind, in a round's order. */
const EVENTS: RoundEvent[] = [
  RoundEvent.create({ event: { $case: "attempt", value: { roundSeq: 7n, attemptSeq: 0n, roundAttemptChallenge: bytes(1, 2) } } }),
  RoundEvent.create({ event: { $case: "vtxoProposal", value: { roundSeq: 7n, attemptSeq: 0n, vtxosSpec: bytes(3), unsignedRoundTx: bytes(4), vtxosAggNonces: [bytes(5), bytes(6)] } } }),
  RoundEvent.create({ event: { $case: "finished", value: { roundSeq: 7n, attemptSeq: 0n, signedRoundTx: bytes(7), vtxoCosignSignatures: [bytes(8), bytes(9)] } } }),
  RoundEvent.create({ event: { $case: "failed", value: { roundSeq: 8n } } }),
];

/** The port's events for {@link EVENTS}. */
const MAPPED: DomainRoundEvent[] = [
  { kind: "attempt", roundSeq: 7n, attemptSeq: 0n, challenge: bytes(1, 2) },
  { kind: "vtxo-proposal", roundSeq: 7n, attemptSeq: 0n, vtxosSpec: bytes(3), unsignedRoundTx: bytes(4), aggNonces: [bytes(5), bytes(6)] },
  { kind: "finished", roundSeq: 7n, attemptSeq: 0n, signedRoundTx: bytes(7), cosignSignatures: [bytes(8), bytes(9)] },
  { kind: "failed", roundSeq: 8n },
];

const status = (over: Partial<RoundParticipationStatusResponse>): RoundParticipationStatusResponse => RoundParticipationStatusResponse.create(over);

describe("ark-grpc round mapping: RoundEvent and RoundParticipationStatusResponse → plain data", () => {
  it("maps every round event kind, and an event of no kind known here to undefined", () => {
    expect(EVENTS.map(roundEventOf)).to.deep.equal(MAPPED);
    expect(roundEventOf(RoundEvent.create({}))).to.equal(undefined);
    // an event of a kind our .proto lacks decodes with no event at all
    expect(roundEventOf(RoundEvent.decode(bytes((9 << 3) | 2, 1, 0xaa)))).to.equal(undefined);
  });

  it("maps pending, issued and released participations; the preimage only when the server sent one", () => {
    expect(roundParticipationStatusOf(status({ status: RoundParticipationStatus.ROUND_PART_PENDING, inputVtxoIds: [bytes(1)] }))).to.deep.equal({ status: "pending", inputVtxoIds: [bytes(1)] });
    expect(roundParticipationStatusOf(status({ status: RoundParticipationStatus.ROUND_PART_ISSUED, inputVtxoIds: [bytes(1)], roundFundingTx: bytes(2), outputVtxos: [bytes(3), bytes(4)] }))).to.deep.equal({
      status: "issued", inputVtxoIds: [bytes(1)], roundFundingTx: bytes(2), outputVtxos: [bytes(3), bytes(4)],
    });
    expect(roundParticipationStatusOf(status({ status: RoundParticipationStatus.ROUND_PART_RELEASED, inputVtxoIds: [bytes(1)], roundFundingTx: bytes(2), outputVtxos: [bytes(3)], unlockPreimage: bytes(5) }))).to.deep.equal({
      status: "released", inputVtxoIds: [bytes(1)], roundFundingTx: bytes(2), outputVtxos: [bytes(3)], unlockPreimage: bytes(5),
    });
  });

  it("refuses a status value it does not know, and an issued participation without its funding tx", () => {
    for (const value of [3, 7, RoundParticipationStatus.UNRECOGNIZED]) {
      expect(() => roundParticipationStatusOf(status({ status: value as RoundParticipationStatus, roundFundingTx: bytes(2) }))).to.throw(InvalidServerResponseError, `unknown round participation status ${value}`);
    }
    for (const s of [RoundParticipationStatus.ROUND_PART_ISSUED, RoundParticipationStatus.ROUND_PART_RELEASED]) {
      expect(() => roundParticipationStatusOf(status({ status: s, outputVtxos: [bytes(3)] }))).to.throw(InvalidServerResponseError, "round participation status lacks the round funding tx");
    }
  });
});

describe("ark-grpc as the Ark server port: round RPCs", () => {
  const fx = useFakeServers();
  const open = (url: string): ArkServer => fx.track(connector.open({ url, network: "regtest" }));

  it("subscribeRounds delivers every event kind as plain data, skips events of unknown kind, and ends on stop", async () => {
    const server = await fx.start({
      ark: {
        subscribeRounds: (call) => {
          call.write(EVENTS[0]!);
          call.write(RoundEvent.create({}));
          for (const e of EVENTS.slice(1)) call.write(e);
        },
      },
    });
    const seen: DomainRoundEvent[] = [];
    const sub = open(server.url).subscribeRounds({ onEvent: async (e) => void seen.push(e) });
    await until(() => seen.length === 4);
    expect(seen).to.deep.equal(MAPPED);
    expect(server.callsTo("SubscribeRounds")).to.have.length(1);
    expect(await sub.stop()).to.deep.equal({ reason: "stopped" });
  });

  it("lastRoundEvent maps the event; NOT_FOUND (no round yet) is undefined; other errors are thrown", async () => {
    let answer: () => [Partial<grpc.StatusObject> | null, RoundEvent | null] = () => [null, EVENTS[2]!];
    const server = await fx.start({ ark: { lastRoundEvent: (_c, cb) => { const [e, r] = answer(); cb(e, r); } } });
    const ark = open(server.url);
    expect(await ark.lastRoundEvent()).to.deep.equal(MAPPED[2]);
    answer = () => [grpcError(grpc.status.NOT_FOUND, "not found: no round event yet"), null];
    expect(await ark.lastRoundEvent()).to.equal(undefined);
    answer = () => [null, RoundEvent.create({})];
    expect(await ark.lastRoundEvent()).to.equal(undefined);
    answer = () => [grpcError(grpc.status.INTERNAL, "internal error: db"), null];
    expect(await ark.lastRoundEvent().catch((e: unknown) => e)).to.be.instanceOf(ArkServerInternalError);
  });

  it("submitPayment and provideVtxoSignatures send the interactive participation field by field", async () => {
    const seen: { payment: SubmitPaymentRequest[]; sigs: VtxoSignaturesRequest[] } = { payment: [], sigs: [] };
    const server = await fx.start({
      ark: {
        submitPayment: (c, cb) => {
          seen.payment.push(c.request);
          cb(null, SubmitPaymentResponse.create({ unlockHash: bytes(0xee) }));
        },
        provideVtxoSignatures: (c, cb) => {
          seen.sigs.push(c.request);
          cb(null, {});
        },
      },
    });
    const ark = open(server.url);
    const request = {
      inputs: [{ vtxoId: bytes(1), attestation: bytes(2) }, { vtxoId: bytes(3), attestation: bytes(4) }],
      outputs: [{ amount: 30_000n, policy: bytes(5), cosignPubkey: bytes(6), pubNonces: [bytes(7), bytes(8)] }],
    };
    expect(await ark.submitPayment({ ...request, mailboxId: bytes(9) })).to.deep.equal(bytes(0xee));
    expect(await ark.submitPayment(request)).to.deep.equal(bytes(0xee));
    const [withMailbox, without] = seen.payment;
    expect(withMailbox!.inputVtxos).to.deep.equal([{ vtxoId: bytes(1), attestation: bytes(2) }, { vtxoId: bytes(3), attestation: bytes(4) }]);
    expect(withMailbox!.vtxoRequests).to.deep.equal([{ vtxo: { amount: 30_000n, policy: bytes(5) }, cosignPubkey: bytes(6), publicNonces: [bytes(7), bytes(8)] }]);
    expect(withMailbox!.offboardRequests).to.deep.equal([]);
    expect(withMailbox!.unblindedMailboxId).to.deep.equal(bytes(9));
    expect(without!.unblindedMailboxId).to.equal(undefined);

    await ark.provideVtxoSignatures({ cosignPubkey: bytes(6), signatures: [bytes(10), bytes(11)] });
    expect(seen.sigs).to.deep.equal([{ pubkey: bytes(6), signatures: [bytes(10), bytes(11)] }]);
  });

  it("submitRoundParticipation sends a delegated participation, optional fields only when given", async () => {
    const seen: RoundParticipationRequest[] = [];
    const server = await fx.start({
      ark: {
        submitRoundParticipation: (c, cb) => {
          seen.push(c.request);
          cb(null, RoundParticipationResponse.create({ unlockHash: bytes(0xab) }));
        },
      },
    });
    const ark = open(server.url);
    const base = { inputs: [{ vtxoId: bytes(1), attestation: bytes(2) }], outputs: [{ amount: 5_000n, policy: bytes(3) }, { amount: 6_000n, policy: bytes(4) }] };
    expect(await ark.submitRoundParticipation({ ...base, mailboxId: bytes(5), scheduledHeight: 250 })).to.deep.equal(bytes(0xab));
    expect(await ark.submitRoundParticipation(base)).to.deep.equal(bytes(0xab));
    expect(seen[0]!.inputVtxos).to.deep.equal([{ vtxoId: bytes(1), attestation: bytes(2) }]);
    expect(seen[0]!.vtxoRequests).to.deep.equal([{ amount: 5_000n, policy: bytes(3) }, { amount: 6_000n, policy: bytes(4) }]);
    expect([seen[0]!.unblindedMailboxId, seen[0]!.scheduledHeight]).to.deep.equal([bytes(5), 250]);
    expect([seen[1]!.unblindedMailboxId, seen[1]!.scheduledHeight]).to.deep.equal([undefined, undefined]);
  });

  it("roundParticipationStatus asks by unlock hash and maps the answer; an unknown status value from the server is InvalidServerResponseError", async () => {
    const asked: RoundParticipationStatusRequest[] = [];
    let answer = status({ status: RoundParticipationStatus.ROUND_PART_RELEASED, inputVtxoIds: [bytes(1)], roundFundingTx: bytes(2), outputVtxos: [bytes(3)], unlockPreimage: bytes(4) });
    const server = await fx.start({
      ark: {
        roundParticipationStatus: (c, cb) => {
          asked.push(c.request);
          cb(null, answer);
        },
      },
    });
    const ark = open(server.url);
    expect(await ark.roundParticipationStatus(bytes(0xab))).to.deep.equal({ status: "released", inputVtxoIds: [bytes(1)], roundFundingTx: bytes(2), outputVtxos: [bytes(3)], unlockPreimage: bytes(4) });
    expect(asked).to.deep.equal([{ unlockHash: bytes(0xab) }]);
    answer = status({ status: 5 as RoundParticipationStatus, inputVtxoIds: [bytes(1)], roundFundingTx: bytes(2) });
    const err = await ark.roundParticipationStatus(bytes(0xab)).catch((e: unknown) => e);
    expect(err).to.be.instanceOf(InvalidServerResponseError);
    expect((err as Error).message).to.equal("unknown round participation status 5");
  });

  it("requestLeafVtxoCosign, requestForfeitNonces and forfeitVtxos send their fields and map the answers", async () => {
    const seen: { leaf?: LeafVtxoCosignRequest; nonces?: ForfeitNoncesRequest; forfeit?: ForfeitVtxosRequest } = {};
    const server = await fx.start({
      ark: {
        requestLeafVtxoCosign: (c, cb) => {
          seen.leaf = c.request;
          cb(null, LeafVtxoCosignResponse.create({ publicNonce: bytes(20), partialSignature: bytes(21) }));
        },
        requestForfeitNonces: (c, cb) => {
          seen.nonces = c.request;
          cb(null, ForfeitNoncesResponse.create({ publicNonces: [bytes(22), bytes(23)] }));
        },
        forfeitVtxos: (c, cb) => {
          seen.forfeit = c.request;
          cb(null, ForfeitVtxosResponse.create({ unlockPreimage: bytes(24) }));
        },
      },
    });
    const ark = open(server.url);
    expect(await ark.requestLeafVtxoCosign({ vtxoId: bytes(1), pubNonce: bytes(2) })).to.deep.equal({ pubNonce: bytes(20), partialSig: bytes(21) });
    expect(await ark.requestForfeitNonces(bytes(3), [bytes(4), bytes(5)])).to.deep.equal([bytes(22), bytes(23)]);
    expect(await ark.forfeitVtxos([bytes(6), bytes(7)])).to.deep.equal(bytes(24));
    expect(seen).to.deep.equal({
      leaf: { vtxoId: bytes(1), publicNonce: bytes(2) },
      nonces: { unlockHash: bytes(3), vtxoIds: [bytes(4), bytes(5)] },
      forfeit: { forfeitBundles: [bytes(6), bytes(7)] },
    });
  });

  it("a refused round call throws the port's rejection with the server's text", async () => {
    const server = await fx.start({
      ark: { submitRoundParticipation: (_c, cb) => cb(grpcError(grpc.status.INVALID_ARGUMENT, "bad user input: input vtxo(s) not spendable", "ab:0")) },
    });
    const err = await open(server.url).submitRoundParticipation({ inputs: [{ vtxoId: bytes(1), attestation: bytes(2) }], outputs: [] }).catch((e: unknown) => e);
    expect(err).to.be.instanceOf(ArkServerRejectedError);
    expect((err as Error).message).to.contain("bad user input: input vtxo(s) not spendable");
  });
});
