/**
 * Generated gRPC messages ↔ the plain data of the Ark server port (`@tender/ark-protocol/server`).
 * Ark info is mapped only after `validateArkInfo` accepted it (so every fee part is present).
 */
import type { FeeSchedule, PpmExpiryEntry } from "@tender/ark-protocol";
import { InvalidServerResponseError, type ArkInfo, type ArkSession, type MailboxMessage, type RoundEvent, type RoundParticipationStatus,
  type VtxoSpendState, type LightningReceiveState, type LightningReceiveStatus,
} from "@tender/ark-protocol/server";
import {
  RoundParticipationStatus as RoundParticipationStatusCode, VtxoSpendState as VtxoSpendStateCode, type ArkInfo as ArkInfoMessage, type PpmExpiryFeeEntry, type RoundEvent as RoundEventMessage,
  type RoundParticipationStatusResponse, LightningReceiveStatus as LightningReceiveStatusCode, type CheckLightningReceiveResponse,
} from "./gen/bark_server.js";
import { MailboxMessage as MailboxMessageCodec } from "./gen/mailbox_server.js";
import { effectiveVtxoLifetime } from "./ark-info.js";
import { InvalidArkInfoError } from "./errors.js";
import type { ServerSession } from "./client.js";
import type { ReceivedMailboxMessage } from "./mailbox-codec.js";

const table = (t: readonly PpmExpiryFeeEntry[]): PpmExpiryEntry[] => t.map((e) => ({ expiryBlocksThreshold: e.expiryBlocksThreshold, ppm: e.ppm }));

/**
 * A fee schedule copied part by part. The port's schedule and the `FeeSchedule` message have the
 * same fields, so this one copy serves both directions: a client reading Ark info (once every
 * part is known present) and a server writing it.
 */
export function copyFeeSchedule(f: FeeSchedule): FeeSchedule {
  return {
    board: { minFeeSat: f.board.minFeeSat, baseFeeSat: f.board.baseFeeSat, ppm: f.board.ppm },
    offboard: { baseFeeSat: f.offboard.baseFeeSat, fixedAdditionalVb: f.offboard.fixedAdditionalVb, ppmExpiryTable: table(f.offboard.ppmExpiryTable) },
    refresh: { baseFeeSat: f.refresh.baseFeeSat, ppmExpiryTable: table(f.refresh.ppmExpiryTable) },
    lightningReceive: { baseFeeSat: f.lightningReceive.baseFeeSat, ppm: f.lightningReceive.ppm },
    lightningSend: { minFeeSat: f.lightningSend.minFeeSat, baseFeeSat: f.lightningSend.baseFeeSat, ppmExpiryTable: table(f.lightningSend.ppmExpiryTable) },
  };
}

/** The fee schedule of validated Ark info. */
function feesOf(info: ArkInfoMessage): FeeSchedule {
  const f = info.fees;
  if (!f?.board || !f.offboard || !f.refresh || !f.lightningReceive || !f.lightningSend) throw new InvalidArkInfoError("missing fees");
  return copyFeeSchedule({ board: f.board, offboard: f.offboard, refresh: f.refresh, lightningReceive: f.lightningReceive, lightningSend: f.lightningSend });
}

/** The port's Ark info of a validated `ArkInfo` message (`vtxo_lifetime` falls back to `vtxo_expiry_delta`). */
export function arkInfoOf(info: ArkInfoMessage): ArkInfo {
  return {
    network: info.network,
    serverPubkey: info.serverPubkey,
    mailboxPubkey: info.mailboxPubkey,
    roundIntervalSecs: info.roundIntervalSecs,
    nbRoundNonces: info.nbRoundNonces,
    vtxoExitDelta: info.vtxoExitDelta,
    vtxoLifetime: effectiveVtxoLifetime(info),
    htlcSendExpiryDelta: info.htlcSendExpiryDelta,
    htlcExpiryDelta: info.htlcExpiryDelta,
    maxVtxoAmount: info.maxVtxoAmount,
    requiredBoardConfirmations: info.requiredBoardConfirmations,
    maxUserInvoiceCltvDelta: info.maxUserInvoiceCltvDelta,
    minBoardAmount: info.minBoardAmount,
    offboardFeerateSatVkb: info.offboardFeerateSatVkb,
    lnReceiveAntiDosRequired: info.lnReceiveAntiDosRequired,
    fees: feesOf(info),
    maxVtxoExitDepth: info.maxVtxoExitDepth,
    maxOffboardInputs: info.maxOffboardInputs,
    tosLink: info.tosLink,
  };
}

/** The port's session of a client session. */
export function arkSessionOf(s: ServerSession): ArkSession {
  return { protocolVersion: s.protocolVersion, psa: s.psa, arkInfo: arkInfoOf(s.arkInfo) };
}

/** The port's mailbox message of a received one; a kind unknown to this client keeps its bytes as received. */
export function mailboxMessageOf(m: ReceivedMailboxMessage): MailboxMessage {
  const { checkpoint } = m;
  const body = m.message;
  switch (body?.$case) {
    case "arkoor":
      return { kind: "arkoor", checkpoint, vtxos: body.value.vtxos };
    case "roundParticipationCompleted":
      return { kind: "round-participation-completed", checkpoint, unlockHash: body.value.unlockHash };
    case "incomingLightningPayment":
      return { kind: "incoming-lightning-payment", checkpoint, paymentHash: body.value.paymentHash, amountMsat: body.value.amountMsat };
    case "recoveryVtxoIds":
      return { kind: "recovery-vtxo-ids", checkpoint, vtxoIds: body.value.vtxoIds };
    case "lightningSendFinished":
      return { kind: "lightning-send-finished", checkpoint, paymentHash: body.value.paymentHash, preimage: body.value.preimage };
    case undefined:
      return { kind: "unknown", checkpoint, bytes: m.unknownKindBytes ?? MailboxMessageCodec.encode(m).finish() };
  }
}

/** The port's round event of a `RoundEvent` message; `undefined` for an empty (unknown) event. */
export function roundEventOf(ev: RoundEventMessage): RoundEvent | undefined {
  const e = ev.event;
  switch (e?.$case) {
    case "attempt":
      return { kind: "attempt", roundSeq: e.value.roundSeq, attemptSeq: e.value.attemptSeq, challenge: e.value.roundAttemptChallenge };
    case "vtxoProposal":
      return {
        kind: "vtxo-proposal", roundSeq: e.value.roundSeq, attemptSeq: e.value.attemptSeq, vtxosSpec: e.value.vtxosSpec,
        unsignedRoundTx: e.value.unsignedRoundTx, aggNonces: e.value.vtxosAggNonces,
      };
    case "finished":
      return { kind: "finished", roundSeq: e.value.roundSeq, attemptSeq: e.value.attemptSeq, signedRoundTx: e.value.signedRoundTx, cosignSignatures: e.value.vtxoCosignSignatures };
    case "failed":
      return { kind: "failed", roundSeq: e.value.roundSeq };
    default:
      return undefined;
  }
}

/** The port's participation status of a `RoundParticipationStatusResponse`. */
export function roundParticipationStatusOf(res: RoundParticipationStatusResponse): RoundParticipationStatus {
  if (res.status === RoundParticipationStatusCode.ROUND_PART_PENDING) return { status: "pending", inputVtxoIds: res.inputVtxoIds };
  if (res.status !== RoundParticipationStatusCode.ROUND_PART_ISSUED && res.status !== RoundParticipationStatusCode.ROUND_PART_RELEASED) {
    throw new InvalidServerResponseError(`unknown round participation status ${String(res.status)}`);
  }
  if (!res.roundFundingTx) throw new InvalidServerResponseError("round participation status lacks the round funding tx");
  return {
    status: res.status === RoundParticipationStatusCode.ROUND_PART_ISSUED ? "issued" : "released",
    inputVtxoIds: res.inputVtxoIds,
    roundFundingTx: res.roundFundingTx,
    outputVtxos: res.outputVtxos,
    ...(res.unlockPreimage ? { unlockPreimage: res.unlockPreimage } : {}),
  };
}

const SPEND_STATES: Readonly<Record<number, VtxoSpendState>> = {
  [VtxoSpendStateCode.VTXO_SPEND_STATE_SPENDABLE]: "spendable",
  [VtxoSpendStateCode.VTXO_SPEND_STATE_SPENT]: "spent",
  [VtxoSpendStateCode.VTXO_SPEND_STATE_UNCLAIMED]: "unclaimed",
  [VtxoSpendStateCode.VTXO_SPEND_STATE_UNREGISTERED]: "unregistered",
  [VtxoSpendStateCode.VTXO_SPEND_STATE_HTLC_RECV_UNCLAIMED]: "htlc-recv-unclaimed",
};

/** The port's spend state of a `VtxoSpendState` code; the zero value and codes our `.proto` lacks are `unspecified`. */
export function vtxoSpendStateOf(code: number): VtxoSpendState {
  return SPEND_STATES[code] ?? "unspecified";
}

const RECEIVE_STATES: Readonly<Record<number, LightningReceiveState>> = {
  [LightningReceiveStatusCode.CREATED]: "created",
  [LightningReceiveStatusCode.ACCEPTED]: "accepted",
  [LightningReceiveStatusCode.HTLCS_READY]: "htlcs-ready",
  [LightningReceiveStatusCode.SETTLED]: "settled",
  [LightningReceiveStatusCode.CANCELED]: "canceled",
};

/** The port's receive status of a `CheckLightningReceiveResponse`; an unknown status value is refused. */
export function lightningReceiveStatusOf(res: CheckLightningReceiveResponse): LightningReceiveStatus {
  const state = RECEIVE_STATES[res.status];
  if (!state) throw new InvalidServerResponseError(`unknown lightning receive status ${String(res.status)}`);
  return { invoice: res.invoice, amountSat: res.amountSat, state, htlcVtxoIds: res.htlcVtxos };
}
