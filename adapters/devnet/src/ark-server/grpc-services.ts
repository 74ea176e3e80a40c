/**
 * The server's gRPC services on the generated definitions of `@tender/ark-grpc`: message ↔
 * domain conversion only; every rule lives in {@link ArkServer}.
 *
 * | Service | Implemented | Answered UNIMPLEMENTED / UNAVAILABLE |
 * |---|---|---|
 * | `bark_server.ArkService` | Handshake, GetArkInfo, GetOffboardFeeRate, GetVtxo, GetVtxoStatus, RequestBoardCosign, RegisterBoardVtxo, RegisterVtxoTransactions, RegisterVtxos, RequestArkoorCosign, rounds (NextRoundTime, SubscribeRounds, LastRoundEvent, SubmitPayment, ProvideVtxoSignatures, SubmitRoundParticipation, RoundParticipationStatus, RequestLeafVtxoCosign, RequestForfeitNonces, ForfeitVtxos), offboards (PrepareOffboard, FinishOffboard), Lightning send (RequestLightningPayHtlcCosign, InitiateLightningPayment, CheckLightningPayment, RequestLightningPayHtlcRevocation, FetchBolt12Invoice), Lightning receive (StartLightningReceive, CheckLightningReceive, PrepareLightningReceiveClaim, ClaimLightningReceive, CancelLightningReceive) | — |
 * | `mailbox_server.MailboxService` | all four | — |
 * | `grpc.health.v1.Health` | Check (SERVING) | Watch |
 * | admin: `WalletAdminService`, `BanAdminService`, `RoundAdminService` | all | — |
 * | admin: `SweepAdminService`, `LightningAdminService` | — | UNAVAILABLE (no watchman or Lightning node) |
 */
import type { Logger } from "@tender/core";
import {
  copyFeeSchedule,
  ArkServiceService,
  BanAdminServiceService,
  HealthCheckResponse_ServingStatus,
  HealthService,
  LightningAdminServiceService,
  MailboxServiceService,
  RoundAdminServiceService,
  SweepAdminServiceService,
  WalletAdminServiceService,
  type ArkInfo as ArkInfoMessage,
  type ArkoorPackageCosignRequest,
  type BanVtxoRequest,
  type BoardCosignRequest,
  type BoardVtxoRequest,
  type FeeSchedule as FeeScheduleMessage,
  type GetVtxoRequest,
  type GetVtxoStatusRequest,
  type HandshakeRequest,
  type MailboxMessage,
  type MailboxRequest,
  type PostArkoorMessageRequest,
  type PostRecoveryVtxoIdsRequest,
  type RegisterVtxoTransactionsRequest,
  type UnbanVtxoRequest,
  type ForfeitNoncesRequest,
  type ForfeitVtxosRequest,
  type LeafVtxoCosignRequest,
  type RoundEvent as RoundEventMessage,
  type RoundParticipationRequest,
  type RoundParticipationStatusRequest,
  type SubmitPaymentRequest,
  type VtxoSignaturesRequest,
  type PrepareOffboardRequest,
  type FinishOffboardRequest,
  type LightningPayHtlcCosignRequest,
  type InitiateLightningPaymentRequest,
  type CheckLightningPaymentRequest,
  type FetchBolt12InvoiceRequest,
  type StartLightningReceiveRequest,
  type CheckLightningReceiveRequest,
  type CheckLightningReceiveResponse,
  type PrepareLightningReceiveClaimRequest,
  type ClaimLightningReceiveRequest,
  type CancelLightningReceiveRequest,
  LightningReceiveStatus as LightningReceiveStatusMessage,
} from "@tender/ark-grpc";
import type { LightningReceiveStatus } from "@tender/ark-protocol/server";
import type { RoundEvent } from "@tender/ark-protocol/server";
import { encodeOutPoint, parseOutPoint, type FeeSchedule } from "@tender/ark-protocol";
import type { ArkServer } from "./ark-server.js";
import type { MailboxMessageData } from "./mailbox-service.js";
import type { ArkInfo } from "./server-config.js";
import { UnavailableError } from "./server-errors.js";
import { readPver, serverStream, serviceImpl, unary, type CallContext } from "./grpc-calls.js";
import type { UntypedServiceImplementation } from "@grpc/grpc-js";

/** A service definition with its implementation, ready for `server.addService`. */
export interface ServiceBinding {
  readonly definition: typeof ArkServiceService | Record<string, never> | object;
  readonly impl: UntypedServiceImplementation;
}

/** Domain fee schedule → `FeeSchedule` message (the fields are the same: ark-grpc's one copy serves). */
export function feeScheduleMessage(f: FeeSchedule): FeeScheduleMessage {
  return copyFeeSchedule(f);
}

/** Domain `ArkInfo` → message. */
export function arkInfoMessage(i: ArkInfo): ArkInfoMessage {
  return {
    network: i.network,
    serverPubkey: i.serverPubkey,
    roundIntervalSecs: i.roundIntervalSecs,
    nbRoundNonces: i.nbRoundNonces,
    vtxoExitDelta: i.vtxoExitDelta,
    vtxoExpiryDelta: i.vtxoExpiryDelta,
    htlcSendExpiryDelta: i.htlcSendExpiryDelta,
    htlcExpiryDelta: i.htlcExpiryDelta,
    maxVtxoAmount: i.maxVtxoAmount,
    requiredBoardConfirmations: i.requiredBoardConfirmations,
    maxUserInvoiceCltvDelta: i.maxUserInvoiceCltvDelta,
    minBoardAmount: i.minBoardAmount,
    offboardFeerateSatVkb: i.offboardFeerateSatVkb,
    lnReceiveAntiDosRequired: i.lnReceiveAntiDosRequired,
    mailboxPubkey: i.mailboxPubkey,
    fees: feeScheduleMessage(i.fees),
    maxVtxoExitDepth: i.maxVtxoExitDepth,
    maxOffboardInputs: i.maxOffboardInputs,
    vtxoLifetime: i.vtxoLifetime,
    tosLink: i.tosLink,
  };
}

/** Domain mailbox message → `MailboxMessage`. */
export function mailboxMessage(m: MailboxMessageData): MailboxMessage {
  switch (m.kind) {
    case "arkoor":
      return { checkpoint: m.checkpoint, message: { $case: "arkoor", value: { vtxos: m.vtxos } } };
    case "recovery":
      return { checkpoint: m.checkpoint, message: { $case: "recoveryVtxoIds", value: { vtxoIds: m.vtxoIds } } };
    case "round-participation-completed":
      // payment_hashes carries the unlock hash too, for wallets older than 0.1.2
      return { checkpoint: m.checkpoint, message: { $case: "roundParticipationCompleted", value: { paymentHashes: [m.unlockHash], unlockHash: m.unlockHash } } };
    case "lightning-send-finished":
      return { checkpoint: m.checkpoint, message: { $case: "lightningSendFinished", value: { paymentHash: m.paymentHash, preimage: m.preimage } } };
    case "incoming-lightning-payment":
      return { checkpoint: m.checkpoint, message: { $case: "incomingLightningPayment", value: { paymentHash: m.paymentHash, amountMsat: m.amountMsat } } };
  }
}

/** Domain round event → `RoundEvent` message. */
export function roundEventMessage(e: RoundEvent): RoundEventMessage {
  switch (e.kind) {
    case "attempt":
      return { event: { $case: "attempt", value: { roundSeq: e.roundSeq, attemptSeq: e.attemptSeq, roundAttemptChallenge: e.challenge } } };
    case "vtxo-proposal":
      return { event: { $case: "vtxoProposal", value: { roundSeq: e.roundSeq, attemptSeq: e.attemptSeq, vtxosSpec: e.vtxosSpec, unsignedRoundTx: e.unsignedRoundTx, vtxosAggNonces: [...e.aggNonces] } } };
    case "finished":
      return { event: { $case: "finished", value: { roundSeq: e.roundSeq, attemptSeq: e.attemptSeq, signedRoundTx: e.signedRoundTx, vtxoCosignSignatures: [...e.cosignSignatures] } } };
    case "failed":
      return { event: { $case: "failed", value: { roundSeq: e.roundSeq } } };
  }
}

const RECEIVE_STATUS: Record<LightningReceiveStatus["state"], LightningReceiveStatusMessage> = {
  created: LightningReceiveStatusMessage.CREATED,
  accepted: LightningReceiveStatusMessage.ACCEPTED,
  "htlcs-ready": LightningReceiveStatusMessage.HTLCS_READY,
  settled: LightningReceiveStatusMessage.SETTLED,
  canceled: LightningReceiveStatusMessage.CANCELED,
};

/** Domain receive status → `CheckLightningReceiveResponse`. */
function receiveStatusMessage(s: LightningReceiveStatus): CheckLightningReceiveResponse {
  return { invoice: s.invoice, amountSat: s.amountSat, status: RECEIVE_STATUS[s.state], htlcVtxos: [...s.htlcVtxoIds] };
}

const empty = {};

/** The parts of an arkoor-shaped cosign request as plain data. */
function cosignParts(req: { parts: ArkoorPackageCosignRequest["parts"] }) {
  return req.parts.map((p) => ({
    inputVtxoId: p.inputVtxoId,
    outputs: p.outputs.map((o) => ({ totalAmount: o.totalAmount, policy: o.policy })),
    isolatedOutputs: p.isolatedOutputs.map((o) => ({ totalAmount: o.totalAmount, policy: o.policy })),
    userPubNonces: p.userPubNonces,
    useCheckpoint: p.useCheckpoint,
    attestation: p.attestation,
  }));
}

/** The public services (ArkService, MailboxService, Health). */
export function publicServices(server: ArkServer, logger: Logger, shutdown: AbortSignal): ServiceBinding[] {
  // every public unary call, timed into the server's `rpcTimes`
  const timed = <Req, Res>(name: string, fn: (req: Req, ctx: CallContext) => Promise<Res> | Res) => unary(name, logger, fn, server.rpcTimes);
  const ark = {
    handshake: timed("Handshake", (req: HandshakeRequest) => {
      const hs = server.handshake(req.barkVersion);
      return { minProtocolVersion: BigInt(hs.minProtocolVersion), maxProtocolVersion: BigInt(hs.maxProtocolVersion), psa: hs.psa };
    }),
    getArkInfo: timed("GetArkInfo", async () => arkInfoMessage(await server.arkInfo())),
    getOffboardFeeRate: timed("GetOffboardFeeRate", async () => ({ satVkb: await server.offboardFeeRateSatVkb() })),
    getVtxo: timed("GetVtxo", async (req: GetVtxoRequest) => ({ vtxo: await server.getVtxo(req.vtxoId) })),
    getVtxoStatus: timed("GetVtxoStatus", async (req: GetVtxoStatusRequest) => ({ spendState: await server.getVtxoStatus(req.vtxoId, req.attestation) })),
    requestBoardCosign: timed("RequestBoardCosign", (req: BoardCosignRequest, ctx) => server.requestBoardCosign(req, readPver(ctx.metadata))),
    registerBoardVtxo: timed("RegisterBoardVtxo", async (req: BoardVtxoRequest) => {
      await server.registerBoardVtxo(req.boardVtxo);
      return empty;
    }),
    registerVtxoTransactions: timed("RegisterVtxoTransactions", async (req: RegisterVtxoTransactionsRequest) => {
      await server.registerVtxoTransactions(req.vtxos);
      return empty;
    }),
    registerVtxos: timed("RegisterVtxos", async (req: RegisterVtxoTransactionsRequest) => {
      await server.registerVtxoTransactions(req.vtxos);
      return empty;
    }),
    requestArkoorCosign: timed("RequestArkoorCosign", async (req: ArkoorPackageCosignRequest) => ({
      parts: await server.requestArkoorCosign(cosignParts(req)),
    })),
    requestLightningPayHtlcCosign: timed("RequestLightningPayHtlcCosign", async (req: LightningPayHtlcCosignRequest, ctx) => ({
      parts: await server.lightningSend.requestHtlcCosign(cosignParts(req), readPver(ctx.metadata)),
    })),
    initiateLightningPayment: timed("InitiateLightningPayment", async (req: InitiateLightningPaymentRequest, ctx) => {
      await server.lightningSend.initiate(
        { invoice: req.invoice, htlcVtxoIds: req.htlcVtxoIds, paymentAmountSat: req.paymentAmountSat, ...(req.mailboxId ? { mailboxId: req.mailboxId } : {}) },
        readPver(ctx.metadata),
      );
      return empty;
    }),
    checkLightningPayment: timed("CheckLightningPayment", async (req: CheckLightningPaymentRequest, ctx) => {
      const s = await server.lightningSend.check(req.hash, req.wait, ctx.signal);
      if (s.status === "success") return { paymentStatus: { $case: "success" as const, value: { preimage: s.preimage } } };
      return { paymentStatus: s.status === "failed" ? { $case: "failed" as const, value: {} } : { $case: "pending" as const, value: {} } };
    }),
    requestLightningPayHtlcRevocation: timed("RequestLightningPayHtlcRevocation", async (req: ArkoorPackageCosignRequest, ctx) => ({
      parts: await server.lightningSend.requestRevocation(cosignParts(req), readPver(ctx.metadata)),
    })),
    fetchBolt12Invoice: timed("FetchBolt12Invoice", async (req: FetchBolt12InvoiceRequest) => ({
      invoice: await server.lightningSend.fetchBolt12Invoice(req.offer, req.amountSat),
    })),
    startLightningReceive: timed("StartLightningReceive", async (req: StartLightningReceiveRequest, ctx) => ({
      bolt11: await server.lightningReceive.startReceive(
        { paymentHash: req.paymentHash, amountSat: req.amountSat, minCltvDelta: req.minCltvDelta, ...(req.mailboxId ? { mailboxId: req.mailboxId } : {}), ...(req.description !== undefined ? { description: req.description } : {}) },
        readPver(ctx.metadata),
      ),
    })),
    checkLightningReceive: timed("CheckLightningReceive", async (req: CheckLightningReceiveRequest, ctx) => receiveStatusMessage(await server.lightningReceive.check(req.hash, req.wait, ctx.signal))),
    prepareLightningReceiveClaim: timed("PrepareLightningReceiveClaim", async (req: PrepareLightningReceiveClaimRequest, ctx) => {
      const d = req.lightningReceiveAntiDos;
      const antiDos = d?.$case === "inputVtxo" ? { kind: "vtxo" as const, vtxoId: d.value.vtxoId, attestation: d.value.attestation } : d?.$case === "token" ? { kind: "token" as const, token: d.value } : undefined;
      const res = await server.lightningReceive.prepareClaim({ paymentHash: req.paymentHash, userPubkey: req.userPubkey, htlcRecvExpiry: req.htlcRecvExpiry, ...(antiDos ? { antiDos } : {}) }, readPver(ctx.metadata));
      return { receive: receiveStatusMessage(res.receive), htlcVtxos: [...res.htlcVtxos] };
    }),
    claimLightningReceive: timed("ClaimLightningReceive", async (req: ClaimLightningReceiveRequest, ctx) => ({
      parts: await server.lightningReceive.claim({ paymentHash: req.paymentHash, preimage: req.paymentPreimage, parts: cosignParts({ parts: req.cosignRequest?.parts ?? [] }) }, readPver(ctx.metadata)),
    })),
    cancelLightningReceive: timed("CancelLightningReceive", async (req: CancelLightningReceiveRequest) => {
      await server.lightningReceive.cancel(req.paymentHash);
      return empty;
    }),
    nextRoundTime: timed("NextRoundTime", () => ({ timestamp: BigInt(server.nextRoundTime()) })),
    lastRoundEvent: timed("LastRoundEvent", () => roundEventMessage(server.lastRoundEvent())),
    subscribeRounds: serverStream("SubscribeRounds", logger, shutdown, async function* (_req: unknown, ctx) {
      for await (const e of server.subscribeRounds(ctx.signal)) yield roundEventMessage(e);
    }),
    submitPayment: timed("SubmitPayment", async (req: SubmitPaymentRequest, ctx) => ({
      unlockHash: await server.submitPayment(
        {
          inputs: req.inputVtxos.map((i) => ({ vtxoId: i.vtxoId, attestation: i.attestation })),
          outputs: req.vtxoRequests.map((o) => ({ amount: o.vtxo?.amount ?? 0n, policy: o.vtxo?.policy, cosignPubkey: o.cosignPubkey, pubNonces: o.publicNonces })),
          offboardRequests: req.offboardRequests.length,
          ...(req.unblindedMailboxId ? { mailboxId: req.unblindedMailboxId } : {}),
        },
        readPver(ctx.metadata),
      ),
    })),
    provideVtxoSignatures: timed("ProvideVtxoSignatures", (req: VtxoSignaturesRequest, ctx) => {
      server.provideVtxoSignatures(req.pubkey, req.signatures, readPver(ctx.metadata));
      return empty;
    }),
    submitRoundParticipation: timed("SubmitRoundParticipation", async (req: RoundParticipationRequest, ctx) => ({
      unlockHash: await server.submitRoundParticipation(
        {
          inputs: req.inputVtxos.map((i) => ({ vtxoId: i.vtxoId, attestation: i.attestation })),
          outputs: req.vtxoRequests.map((o) => ({ amount: o.amount, policy: o.policy })),
          ...(req.unblindedMailboxId ? { mailboxId: req.unblindedMailboxId } : {}),
          ...(req.scheduledHeight !== undefined ? { scheduledHeight: req.scheduledHeight } : {}),
        },
        readPver(ctx.metadata),
      ),
    })),
    roundParticipationStatus: timed("RoundParticipationStatus", (req: RoundParticipationStatusRequest) => server.roundParticipationStatus(req.unlockHash)),
    requestLeafVtxoCosign: timed("RequestLeafVtxoCosign", async (req: LeafVtxoCosignRequest, ctx) => {
      const r = await server.requestLeafVtxoCosign(req.vtxoId, req.publicNonce, readPver(ctx.metadata));
      return { publicNonce: r.pubNonce, partialSignature: r.partialSig };
    }),
    requestForfeitNonces: timed("RequestForfeitNonces", async (req: ForfeitNoncesRequest, ctx) => ({
      publicNonces: await server.requestForfeitNonces(req.unlockHash, req.vtxoIds, readPver(ctx.metadata)),
    })),
    forfeitVtxos: timed("ForfeitVtxos", async (req: ForfeitVtxosRequest, ctx) => ({
      unlockPreimage: await server.forfeitVtxos(req.forfeitBundles, readPver(ctx.metadata)),
    })),
    prepareOffboard: timed("PrepareOffboard", (req: PrepareOffboardRequest, ctx) => {
      const o = req.offboard;
      const offboard = o ? { netAmountSat: o.netAmountSat, script: o.offboardSpk, deductFeesFromGrossAmount: o.deductFeesFromGrossAmount, feeRateSatPerKwu: o.feeRateKwu } : undefined;
      return server.prepareOffboard({ offboard, inputVtxoIds: req.inputVtxoIds, attestations: req.attestation }, readPver(ctx.metadata));
    }),
    finishOffboard: timed("FinishOffboard", async (req: FinishOffboardRequest) => ({
      signedOffboardTx: await server.finishOffboard({ offboardTxid: req.offboardTxid, userNonces: req.userNonces, partialSignatures: req.partialSignatures }),
    })),
  };
  const mailbox = {
    postArkoorMessage: timed("PostArkoorMessage", async (req: PostArkoorMessageRequest) => {
      await server.postArkoorMessage(req.blindedId, req.vtxos);
      return empty;
    }),
    readMailbox: timed("ReadMailbox", async (req: MailboxRequest) => {
      const page = await server.readMailbox(req.mailboxId, req.authorization, req.checkpoint);
      return { messages: page.messages.map(mailboxMessage), haveMore: page.haveMore };
    }),
    subscribeMailbox: serverStream("SubscribeMailbox", logger, shutdown, async function* (req: MailboxRequest, ctx) {
      for await (const m of server.subscribeMailbox(req.mailboxId, req.authorization, req.checkpoint, ctx.signal)) yield mailboxMessage(m);
    }),
    postRecoveryVtxoIds: timed("PostRecoveryVtxoIds", async (req: PostRecoveryVtxoIdsRequest) => {
      await server.postRecoveryVtxoIds(req.mailboxId, req.vtxoIds, req.authorization);
      return empty;
    }),
  };
  const health = {
    check: timed("Health/Check", () => ({ status: HealthCheckResponse_ServingStatus.SERVING })),
  };
  return [
    { definition: ArkServiceService, impl: serviceImpl(ArkServiceService, ark, logger, shutdown) },
    { definition: MailboxServiceService, impl: serviceImpl(MailboxServiceService, mailbox, logger, shutdown) },
    { definition: HealthService, impl: serviceImpl(HealthService, health, logger, shutdown) },
  ];
}

/** The admin services (loopback only, unauthenticated, as captaind's admin port). */
export function adminServices(server: ArkServer, logger: Logger, shutdown: AbortSignal): ServiceBinding[] {
  const unavailable = (what: string) => () => {
    throw new UnavailableError(what);
  };
  const wallet = {
    walletStatus: unary("WalletStatus", logger, async () => ({ rounds: await server.walletStatus() })),
  };
  const ban = {
    banVtxo: unary("BanVtxo", logger, async (req: BanVtxoRequest) => {
      await server.banVtxo(req.vtxoId, req.banBlocks);
      return empty;
    }),
    unbanVtxo: unary("UnbanVtxo", logger, async (req: UnbanVtxoRequest) => {
      await server.unbanVtxo(req.vtxoId);
      return empty;
    }),
    listBannedVtxos: unary("ListBannedVtxos", logger, async () => ({
      bannedVtxos: (await server.listBannedVtxos()).map((b) => ({ vtxoId: encodeOutPoint(parseOutPoint(b.id)), bannedUntilHeight: b.until })),
    })),
  };
  return [
    { definition: WalletAdminServiceService, impl: serviceImpl(WalletAdminServiceService, wallet, logger, shutdown) },
    { definition: BanAdminServiceService, impl: serviceImpl(BanAdminServiceService, ban, logger, shutdown) },
    {
      definition: RoundAdminServiceService,
      impl: serviceImpl(
        RoundAdminServiceService,
        {
          triggerRound: unary("TriggerRound", logger, () => {
            server.triggerRound();
            return empty;
          }),
        },
        logger,
        shutdown,
      ),
    },
    { definition: SweepAdminServiceService, impl: serviceImpl(SweepAdminServiceService, { triggerSweep: unary("TriggerSweep", logger, unavailable("watchman not enabled")) }, logger, shutdown) },
    {
      definition: LightningAdminServiceService,
      impl: serviceImpl(
        LightningAdminServiceService,
        {
          startLightningNode: unary("StartLightningNode", logger, unavailable("no Lightning node configured")),
          stopLightningNode: unary("StopLightningNode", logger, unavailable("no Lightning node configured")),
        },
        logger,
        shutdown,
      ),
    },
  ];
}
