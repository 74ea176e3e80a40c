/**
 * Interactive participations and the round events: joining on a round's first attempt,
 * resubmitting on a later attempt, signing the proposal, and taking the outputs when the round
 * finishes. Secret nonces live in memory only (here, per participation and attempt): after a
 * restart a `submitted` participation has none and cannot sign; nothing was forfeited, so nothing
 * can be lost, and the server bans unsigned inputs for that round only.
 *
 * A submission that only missed its attempt (too late, the round full, the server out of reach)
 * waits for the next round with its inputs held; a refusal naming inputs fails an explicit
 * refresh as a whole and makes a maintenance one drop them.
 *
 * Rules for events while joined: events of older rounds and attempts are ignored; an `attempt`
 * with a higher number resubmits with fresh keys and nonces; the proposal of the joined attempt
 * is signed, its `finished` taken. When the joined round is over without our `finished` — its
 * `failed`, its `finished` before we signed or of another attempt, any event of a later round —
 * the server is asked about our unlock hash: if the round issued our outputs (we signed and
 * missed the end) they are taken, otherwise the participation fails (inputs back to spendable).
 * A participation joined before a restart holds no secrets: it waits for its round to be over,
 * asks the server the same way, takes issued outputs, and otherwise waits for the next round's
 * first attempt with its inputs still held.
 */
import { encodeVtxo, ProtocolError, toHex } from "@tender/ark-protocol";
import {
  ArkClientClosedError, ArkServerCancelledError, ArkServerConnectionLostError, ArkServerDeadlineError, ArkServerError, ArkServerRejectedError,
  ArkServerUnavailableError, type RoundAttemptEvent, type RoundEvent, type RoundFinishedEvent, type VtxoProposalEvent } from "@tender/ark-protocol/server";
import { faultPoint, type Logger } from "@tender/core";
import type { Participation } from "./participation.js";
import type { ParticipationStore } from "./participation-store.js";
import type { RoundIssuance } from "./round-issuance.js";
import type { RoundOutcomes } from "./round-outcomes.js";
import { inputVtxos, ownedInputs, roundOutputs, serverParams } from "./round-materials.js";
import type { RoundPorts } from "./round-ports.js";
import { errorText } from "./errors.js";

/** Most resubmissions of a maintenance participation after rejections naming its inputs. */
export const MAX_MAINTENANCE_RESUBMITS = 10;

/** What this process holds for the attempt a participation joined. */
interface JoinedAttempt {
  readonly roundSeq: bigint;
  readonly attemptSeq: bigint;
  readonly unlockHash: Uint8Array;
  secrets: unknown;
  proposal?: VtxoProposalEvent;
}

/** Fault points of the interactive part, in order. */
export const INTERACTIVE_FAULT_POINTS = ["round-submit:before", "round-submit:after", "round-sign:after", "round-finished:before", "round-finished:after"] as const;

export class InteractiveRounds {
  private readonly joined = new Map<number, JoinedAttempt>();

  constructor(
    private readonly store: ParticipationStore,
    private readonly ports: RoundPorts,
    private readonly outcomes: RoundOutcomes,
    private readonly issuance: RoundIssuance,
    private readonly logger: Logger,
    /** Re-prices a maintenance participation without the given inputs (updates row, locks and movement); undefined when none is left. */
    private readonly dropInputs: (p: Participation, rejected: readonly string[]) => Promise<Participation | undefined>,
  ) {}

  /** Whether this process holds the secrets of the attempt `p` is recorded in. */
  holdsAttempt(p: Participation): boolean {
    const j = this.joined.get(p.id);
    return j !== undefined && j.roundSeq === p.roundSeq && j.attemptSeq === p.attemptSeq;
  }

  /** Processes one round event for an interactive participation (pending or submitted). Returns it as stored afterwards. */
  async onEvent(p: Participation, event: RoundEvent): Promise<Participation> {
    if (p.status === "pending") return isFirstAttempt(event) ? this.submit(p, event) : p;
    if (p.status !== "submitted") return p;
    const round = p.roundSeq!;
    const attempt = p.attemptSeq!;
    if (event.roundSeq < round) return p;
    const joined = this.holdsAttempt(p) ? this.joined.get(p.id)! : undefined;
    if (!joined) {
      // joined before a restart: nothing to do in our round until it is over
      const over = event.roundSeq > round || event.kind === "failed" || event.kind === "finished";
      if (!over) return p;
      const after = await this.resolve(p, "abandon");
      return after.status === "pending" && isFirstAttempt(event) ? this.submit(after, event) : after;
    }
    if (event.roundSeq > round || event.kind === "failed") return this.resolve(p, "fail");
    if (event.attemptSeq < attempt) return p;
    if (event.kind === "attempt") return event.attemptSeq > attempt ? this.submit(p, event) : p;
    if (event.kind === "vtxo-proposal") return event.attemptSeq === attempt && !joined.proposal ? this.sign(p, joined, event) : p;
    if (event.attemptSeq !== attempt || !joined.proposal) return this.resolve(p, "fail");
    return this.finish(p, joined, event);
  }

  /**
   * The round `p` joined is over without this process seeing its outputs: takes them when the
   * server says the round issued them; otherwise fails `p` (`fail`) or sends it back to wait for
   * the next round with its inputs held (`abandon`). A server that cannot be asked leaves `p` as it
   * is (the error goes to the caller; the next event or sync asks again).
   */
  private async resolve(p: Participation, otherwise: "fail" | "abandon"): Promise<Participation> {
    const answer = await this.issuance.ask(p);
    if (answer.kind === "issued") {
      this.joined.delete(p.id);
      const taken = await this.issuance.take(p, answer.status);
      if (taken.kind === "finished") {
        this.logger.info(`round participation ${p.id}: round ${p.roundSeq} issued our outputs; taking them`);
        return taken.participation;
      }
      // our own inputs, held by us since the refresh began: neither busy nor gone unless something is badly wrong
      throw new Error(`round participation ${p.id}: the round issued our outputs but the inputs cannot be held: ${taken.kind === "gone" ? taken.reason : "held by another action"}`);
    }
    this.joined.delete(p.id);
    if (otherwise === "fail") return this.outcomes.fail(p, `round ${p.roundSeq} ended without our participation`);
    this.logger.info(`round participation ${p.id}: the attempt of round ${p.roundSeq} joined before a restart is abandoned; waiting for the next round`);
    return this.store.update(p.id, { status: "pending", roundSeq: null, attemptSeq: null, unlockHash: null });
  }

  /**
   * A sync of a participation this process joined before a restart: if the server says the
   * round issued its outputs they are taken (returned `finished`), otherwise it is left as it is
   * (the round may still run; its events decide).
   */
  async recover(p: Participation): Promise<Participation> {
    if (p.status !== "submitted" || this.holdsAttempt(p) || p.unlockHash === null) return p;
    const answer = await this.issuance.ask(p);
    if (answer.kind !== "issued") return p;
    return this.resolve(p, "abandon");
  }

  /** Submits `p`'s payment to `attempt`; a maintenance participation drops the inputs the server rejects and resubmits. */
  private async submit(p: Participation, attempt: RoundAttemptEvent): Promise<Participation> {
    faultPoint("round-submit:before");
    this.joined.delete(p.id);
    const { server, keys, vtxos, protocol } = this.ports;
    for (let tries = 0; ; tries++) {
      let unlockHash: Uint8Array;
      let secrets: unknown;
      try {
        const info = await server.info();
        const { request, secrets: s } = protocol.prepareRoundSubmission({
          challenge: attempt.challenge, inputs: await ownedInputs(vtxos, keys, p), outputs: roundOutputs(p.outputs),
          nbRoundNonces: info.nbRoundNonces, mailboxId: await keys.mailboxId(),
        });
        secrets = s;
        await server.registerVtxos(await inputVtxos(vtxos, p));
        unlockHash = await server.submitPayment(request);
      } catch (e) {
        if (missedAttempt(e)) {
          // late for this attempt, or the server out of reach: nothing of ours is in it; the inputs stay held for the next round
          this.logger.warn(`round participation ${p.id}: could not join round ${attempt.roundSeq}, waiting for the next round: ${errorText(e)}`);
          return this.store.update(p.id, { status: "pending", roundSeq: null, attemptSeq: null, unlockHash: null });
        }
        const rejected = e instanceof ArkServerRejectedError ? e.rejectedVtxoIds.filter((id) => p.inputs.includes(id)) : [];
        if (p.origin === "maintenance" && rejected.length > 0 && tries < MAX_MAINTENANCE_RESUBMITS) {
          this.logger.warn(`maintenance refresh: the server rejected ${rejected.length} input(s) (${rejected.join(", ")}); resubmitting without them`);
          const rest = await this.dropInputs(p, rejected);
          if (!rest) return this.outcomes.fail((await this.store.get(p.id))!, `no VTXOs to refresh after excluding: ${rejected.join(", ")}`);
          p = rest;
          continue;
        }
        return this.outcomes.fail(p, `Ark server refused our payment submission: ${errorText(e)}`);
      }
      this.joined.set(p.id, { roundSeq: attempt.roundSeq, attemptSeq: attempt.attemptSeq, unlockHash, secrets });
      const submitted = await this.store.update(p.id, { status: "submitted", roundSeq: attempt.roundSeq, attemptSeq: attempt.attemptSeq, unlockHash: toHex(unlockHash) });
      faultPoint("round-submit:after");
      return submitted;
    }
  }

  /**
   * Checks the proposal and hands the server our branch signatures (the secret nonces are used
   * up). Once one is sent the round may carry us, so a failure to send them leaves the outcome to
   * the round's end (its `finished`, or the server's word on our unlock hash).
   */
  private async sign(p: Participation, joined: JoinedAttempt, proposal: VtxoProposalEvent): Promise<Participation> {
    const { server, chain, protocol } = this.ports;
    let requests;
    try {
      const info = await server.info();
      requests = protocol.signVtxoProposal({
        proposal, server: serverParams(info), tipHeight: await chain.tipHeight(), outputs: roundOutputs(p.outputs), unlockHash: joined.unlockHash,
        secrets: joined.secrets,
      });
    } catch (e) {
      this.joined.delete(p.id);
      return this.outcomes.fail(p, e instanceof ProtocolError ? errorText(e) : `error signing the round proposal: ${errorText(e)}`);
    }
    joined.secrets = undefined;
    joined.proposal = proposal;
    try {
      for (const r of requests) await server.provideVtxoSignatures(r);
    } catch (e) {
      this.logger.warn(`round participation ${p.id}: error sending vtxo signatures (the round's end decides): ${errorText(e)}`);
    }
    faultPoint("round-sign:after");
    return p;
  }

  /** The round finished: builds our hash-locked outputs and stores them with the funding tx (then broadcasts it, best effort). */
  private async finish(p: Participation, joined: JoinedAttempt, finished: RoundFinishedEvent): Promise<Participation> {
    faultPoint("round-finished:before");
    this.joined.delete(p.id);
    let built;
    try {
      built = this.ports.protocol.roundOutputVtxos({ proposal: joined.proposal!, finished, outputs: roundOutputs(p.outputs), unlockHash: joined.unlockHash });
    } catch (e) {
      return this.outcomes.fail(p, `failed to construct new VTXOs for round: ${errorText(e)}`);
    }
    const hex = toHex(built.fundingTx);
    const done = await this.ports.transaction(async () => {
      const q = await this.store.update(p.id, {
        status: "finished", fundingTxid: built.fundingTxid, fundingTx: hex, outputVtxos: built.vtxos.map((v) => toHex(encodeVtxo(v))),
      });
      if (p.movementId !== null) await this.ports.movements.noteFunding(p.movementId, built.fundingTxid);
      return q;
    });
    faultPoint("round-finished:after");
    await this.ports.chain.broadcast(hex).catch((e: unknown) => this.logger.debug(`broadcast of round funding tx ${built.fundingTxid}: ${errorText(e)}`));
    return done;
  }
}

/** Whether `event` opens a round (the only attempt a participation joins fresh). */
function isFirstAttempt(event: RoundEvent): event is RoundAttemptEvent {
  return event.kind === "attempt" && event.attemptSeq === 0n;
}

/** The server's refusals of a submission that came too late for its attempt or found it full, or banned our inputs for this round only. */
const MISSED_ATTEMPT_TEXTS = ["no round is running", "Message arrived late or round was full", "not enough outputs left in this round", "has been banned for this round"];

/**
 * Whether a failed submission only missed this attempt (the next round may take it): the server
 * out of reach or the call cut (transport), or a refusal about the attempt's timing or room, not
 * about the participation.
 */
function missedAttempt(e: unknown): boolean {
  if (e instanceof ArkServerConnectionLostError || e instanceof ArkClientClosedError) return true;
  if (e instanceof ArkServerDeadlineError || e instanceof ArkServerUnavailableError || e instanceof ArkServerCancelledError) return true;
  return e instanceof ArkServerError && MISSED_ATTEMPT_TEXTS.some((t) => e.serverMessage.includes(t));
}
