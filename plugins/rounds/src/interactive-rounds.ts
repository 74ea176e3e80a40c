/**
 * Interactive participations and the round events: joining on a round's first attempt,
 * resubmitting on a later attempt, signing the proposal, and taking the outputs when the round
 * finishes. Secret nonces live in memory only (here, per participation and attempt): after a
 * restart a `submitted` participation has none, so its attempt is abandoned and it waits for the
 * next round's first attempt with its inputs still held — nothing was forfeited, so nothing can be
 * lost, and the server bans the unsigned inputs for that round only.
 *
 * Rules for events: a `failed` of the joined round, or any event of a later round, fails the
 * participation (inputs back to spendable); events of older attempts are ignored; an `attempt`
 * with a higher number resubmits with fresh keys and nonces; `finished` before we signed fails.
 */
import { encodeVtxo, ProtocolError, toHex } from "@tender/ark-protocol";
import { ArkServerRejectedError, type RoundAttemptEvent, type RoundEvent, type RoundFinishedEvent, type VtxoProposalEvent } from "@tender/ark-protocol/server";
import { faultPoint, type Logger } from "@tender/core";
import type { Participation } from "./participation.js";
import type { ParticipationStore } from "./participation-store.js";
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
    if (p.status === "submitted" && !this.holdsAttempt(p)) {
      // joined before a restart: the attempt is abandoned, the participation waits for the next round
      this.logger.info(`round participation ${p.id}: the attempt of round ${p.roundSeq} joined before a restart is abandoned; waiting for the next round`);
      p = await this.store.update(p.id, { status: "pending", roundSeq: null, attemptSeq: null, unlockHash: null });
    }
    if (p.status === "pending") {
      return event.kind === "attempt" && event.attemptSeq === 0n ? this.submit(p, event) : p;
    }
    if (p.status !== "submitted") return p;
    const round = p.roundSeq!;
    const attempt = p.attemptSeq!;
    if (event.kind === "failed") {
      return event.roundSeq === round ? this.outcomes.fail(p, `round ${round} failed by server`) : p;
    }
    if (event.roundSeq > round) return this.outcomes.fail(p, `round ${event.roundSeq} started while we were on ${round}`);
    if (event.roundSeq < round || event.attemptSeq < attempt) return p;
    if (event.kind === "attempt") return event.attemptSeq > attempt ? this.submit(p, event) : p;
    if (event.attemptSeq !== attempt) return p;
    const joined = this.joined.get(p.id)!;
    if (event.kind === "vtxo-proposal") return joined.proposal ? p : this.sign(p, joined, event);
    if (!joined.proposal) return this.outcomes.fail(p, "unexpectedly received a finished round while we were in state AwaitingUnsignedVtxoTree");
    return this.finish(p, joined, event);
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

  /** Checks the proposal and hands the server our branch signatures (the secret nonces are used up). */
  private async sign(p: Participation, joined: JoinedAttempt, proposal: VtxoProposalEvent): Promise<Participation> {
    const { server, chain, protocol } = this.ports;
    try {
      const info = await server.info();
      const requests = protocol.signVtxoProposal({
        proposal, server: serverParams(info), tipHeight: await chain.tipHeight(), outputs: roundOutputs(p.outputs), unlockHash: joined.unlockHash,
        secrets: joined.secrets,
      });
      joined.secrets = undefined;
      for (const r of requests) await server.provideVtxoSignatures(r);
    } catch (e) {
      this.joined.delete(p.id);
      return this.outcomes.fail(p, e instanceof ProtocolError ? errorText(e) : `error sending vtxo signatures: ${errorText(e)}`);
    }
    joined.proposal = proposal;
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
