/**
 * The round coordinator: runs hArk rounds on the server's schedule (`round_interval`) or when
 * triggered, and drives each attempt through sign-up, proposal, signing and finish.
 *
 * | Situation | Events | Next round |
 * |---|---|---|
 * | success | attempt → vtxo_proposal → finished | after the interval |
 * | nobody joined | attempt → failed | after the interval |
 * | some cosigners did not sign | … → attempt(a+1) (their inputs excluded, funding input pinned) → … | — |
 * | every input excluded, funding impossible ("Insufficient funds"), funding tx refused, input spent meanwhile | … → failed | at once |
 * | storage failure while finishing | … → failed, the coordinator halts | never |
 *
 * A trigger while one is queued is ignored. Settings are read from the configuration when they
 * are used, so changing them at run time takes effect at the next wait or attempt.
 * On shutdown a running attempt is abandoned (`failed`), nothing of it is persisted.
 */
import {
  encodeSignedVtxoTreeSpec,
  encodeTx,
  encodeVtxo,
  encodeVtxoTreeSpec,
  toHex,
  treeLeafVtxo,
  txid,
  txidHex,
  vtxoTreeFundingOutput,
  type Transaction,
  type VtxoTreeSpec,
} from "@tender/ark-protocol";
import type { RoundEvent } from "@tender/ark-protocol/server";
import type { MailboxService } from "../mailbox-service.js";
import type { ServerContext } from "../server-context.js";
import { DoubleSpendError, type NewVtxo, type StoredTx } from "../server-store.js";
import { RoundAttempt } from "./round-attempt.js";
import { RoundEventChannel } from "./round-events.js";
import { buildRoundFunding, InsufficientFundsError, PinnedInputLostError, signRoundFunding, type RoundFunding, type WalletCoin } from "./round-funding.js";
import { provideVtxoSignatures, submitPayment, type SubmitPaymentData } from "./round-payments.js";
import { ParticipationGoneError, type RoundStore, type StoredParticipation } from "./round-store.js";
import { AttemptTreeSigning, attemptTreeSpec } from "./round-tree.js";
import { Wakeable } from "./round-wake.js";
import type { HarkSwap } from "./hark-swap.js";
import type { DelegatedParticipations } from "./delegated-participations.js";

/** Unix seconds of 2025-03-03 15:22:14 UTC: round numbers count seconds from here at start. */
export const ROUND_SEQ_EPOCH_SECS = 1741015334;

/** How a round ended. */
type RoundOutcome = "finished" | "empty" | "abandoned" | "closed" | "fatal";

/** How an attempt ended: the round ends, or a new attempt follows with these inputs excluded. */
type AttemptOutcome = { end: RoundOutcome } | { retry: true };

/** The coordinator of one server. */
export class RoundCoordinator {
  readonly events = new RoundEventChannel();
  private readonly wakeable = new Wakeable();
  private triggered = false;
  private closed = false;
  private halted = false;
  private loop: Promise<void> | undefined;
  private current: RoundAttempt | undefined;
  private roundSeq = BigInt(Math.max(0, Math.floor(Date.now() / 1000) - ROUND_SEQ_EPOCH_SECS));
  private lastStartMs = Date.now();

  constructor(
    private readonly ctx: ServerContext,
    private readonly rounds: RoundStore,
    private readonly swap: HarkSwap,
    private readonly delegated: DelegatedParticipations,
    private readonly mailbox: MailboxService,
  ) {}

  /** Starts the schedule (the first round one interval from now, or at a trigger). */
  start(): void {
    if (this.loop) return;
    this.lastStartMs = Date.now();
    this.loop = this.run().catch((e) => {
      this.halted = true;
      this.ctx.logger.error(`round coordinator stopped: ${e instanceof Error ? e.message : String(e)}`);
    });
  }

  /** Stops the schedule, abandons a running attempt and ends every event subscription. */
  async stop(): Promise<void> {
    this.closed = true;
    this.wakeable.wake();
    await this.loop;
    this.events.close();
  }

  /** Starts a round now, or right after the running one; ignored while a trigger is queued. */
  trigger(): void {
    if (this.triggered || this.closed) return;
    this.triggered = true;
    this.wakeable.wake();
  }

  /** Whether a storage failure stopped the coordinator. */
  get isHalted(): boolean {
    return this.halted;
  }

  /** Unix seconds of the next scheduled round start. */
  nextRoundTimeSecs(): number {
    return Math.floor((this.lastStartMs + this.ctx.config.roundIntervalSecs * 1000) / 1000);
  }

  /** The last event broadcast, if any. */
  lastEvent(): RoundEvent | undefined {
    return this.events.lastEvent;
  }

  /** `SubmitPayment` on the running attempt. */
  submitPayment(req: SubmitPaymentData, pver: number): Promise<Uint8Array> {
    return submitPayment(this.ctx, () => this.current, req, pver, () => {
      if (this.current?.isFull) this.wakeable.wake();
    });
  }

  /** `ProvideVtxoSignatures` on the running attempt. */
  provideVtxoSignatures(pubkey: Uint8Array | undefined, signatures: readonly Uint8Array[], pver: number): void {
    provideVtxoSignatures(this.current, pubkey, signatures, pver, () => {
      if (this.current?.signingState?.waiting.size === 0) this.wakeable.wake();
    });
  }

  private async run(): Promise<void> {
    while (!this.closed) {
      while (!this.closed && !this.triggered) {
        const left = this.lastStartMs + this.ctx.config.roundIntervalSecs * 1000 - Date.now();
        if (left <= 0) break;
        await this.wakeable.sleep(Math.min(left, 1000));
      }
      if (this.closed) break;
      this.triggered = false;
      this.lastStartMs = Date.now();
      const outcome = await this.runRound();
      if (outcome === "abandoned") this.triggered = true;
      if (outcome === "fatal") {
        this.halted = true;
        this.ctx.logger.error("round coordinator halted after a storage failure");
        break;
      }
    }
  }

  private async runRound(): Promise<RoundOutcome> {
    const roundSeq = ++this.roundSeq;
    this.swap.expireNonces(Date.now() - this.ctx.config.roundForfeitNoncesTimeoutMs);
    await this.rebroadcastFundingTxs();
    const excluded = new Set<string>();
    const pinned: { coin?: WalletCoin } = {};
    for (let attemptSeq = 0; ; attemptSeq++) {
      const cfg = this.ctx.config;
      const attempt = new RoundAttempt(roundSeq, attemptSeq, 4 ** cfg.nbRoundNonces, cfg.nbRoundNonces, excluded, this.ctx.locks);
      this.current = attempt;
      let outcome: AttemptOutcome;
      try {
        this.events.publish({ kind: "attempt", roundSeq, attemptSeq: BigInt(attemptSeq), challenge: attempt.challenge });
        outcome = await this.runAttempt(attempt, excluded, pinned);
      } catch (e) {
        this.ctx.logger.error(`round ${roundSeq}.${attemptSeq} failed: ${e instanceof Error ? e.message : String(e)}`);
        outcome = { end: "empty" };
      } finally {
        attempt.releaseAll();
        attempt.phase = "done";
        this.current = undefined;
      }
      if ("retry" in outcome) continue;
      if (outcome.end !== "finished") this.events.publish({ kind: "failed", roundSeq });
      return outcome.end;
    }
  }

  /** Waits while `busy()` holds, at most `ms`, or until shutdown. */
  private async waitWhile(ms: number, busy: () => boolean): Promise<void> {
    const deadline = Date.now() + ms;
    while (!this.closed && busy() && Date.now() < deadline) await this.wakeable.sleep(deadline - Date.now());
  }

  private async runAttempt(attempt: RoundAttempt, excluded: Set<string>, pinned: { coin?: WalletCoin }): Promise<AttemptOutcome> {
    const label = `round ${attempt.roundSeq}.${attempt.attemptSeq}`;
    await this.waitWhile(this.ctx.config.roundSubmitTimeMs, () => !attempt.isFull);
    if (this.closed) return { end: "closed" };
    attempt.phase = "closing";
    await this.delegated.includeIn(attempt);
    if (this.closed) return { end: "closed" };
    if (attempt.inputIds().length === 0 || attempt.leaves().length === 0) {
      this.ctx.logger.debug(`${label}: nobody joined`);
      return { end: attempt.attemptSeq === 0 ? "empty" : "abandoned" };
    }

    const cfg = this.ctx.config;
    const spec = attemptTreeSpec({ leaves: attempt.leaves(), expiryHeight: (await this.ctx.chain.tipHeight()) + cfg.vtxoLifetime, serverPubkey: this.ctx.keys.serverPubkey, exitDelta: cfg.vtxoExitDelta, cosignPubkey: attempt.cosignPubkey });
    let funding: RoundFunding;
    try {
      funding = await buildRoundFunding(this.ctx, this.rounds, vtxoTreeFundingOutput(spec), pinned.coin);
    } catch (e) {
      if (e instanceof InsufficientFundsError || e instanceof PinnedInputLostError) {
        this.ctx.logger.warn(`${label}: cannot fund the round: ${e.message}`);
        return { end: "abandoned" };
      }
      throw e;
    }
    pinned.coin = funding.coins[0];
    const signing = new AttemptTreeSigning(spec, { txid: txid(funding.tx), vout: 0 }, attempt.leafNonces(), attempt.cosignSecret);
    const waiting = new Set(attempt.participants.flatMap((p) => p.outputs.map((o) => toHex(o.cosignPubkey))));
    attempt.signingState = { signing, funding, partials: new Map(), waiting };
    attempt.phase = "signing";
    this.events.publish({
      kind: "vtxo-proposal",
      roundSeq: attempt.roundSeq,
      attemptSeq: BigInt(attempt.attemptSeq),
      vtxosSpec: encodeVtxoTreeSpec(spec),
      unsignedRoundTx: encodeTx(funding.tx),
      aggNonces: signing.aggNonces,
    });
    await this.waitWhile(cfg.roundSignTimeMs, () => waiting.size > 0);
    if (this.closed) return { end: "closed" };
    if (waiting.size > 0) {
      const offenders = attempt.inputsOfCosigners(waiting);
      for (const id of offenders) excluded.add(id);
      const remaining = attempt.inputIds().filter((id) => !excluded.has(id));
      this.ctx.logger.info(`${label}: ${waiting.size} cosigner(s) did not sign; excluding ${offenders.join(", ")}`);
      return remaining.length === 0 ? { end: "abandoned" } : { retry: true };
    }
    attempt.phase = "finishing";
    return { end: await this.finish(attempt, spec, signing, funding) };
  }

  /** Signs, persists atomically, then broadcasts the funding tx and the `finished` event. */
  private async finish(attempt: RoundAttempt, spec: VtxoTreeSpec, signing: AttemptTreeSigning, funding: RoundFunding): Promise<RoundOutcome> {
    const label = `round ${attempt.roundSeq}.${attempt.attemptSeq}`;
    const state = attempt.signingState!;
    const sigs = signing.finalSignatures(state.partials);
    const signedFunding = signRoundFunding(this.ctx, funding);
    const raw = encodeTx(signedFunding);
    const accept = (await this.ctx.chain.testMempoolAccept([raw]))[0];
    if (!accept?.allowed) {
      this.ctx.logger.warn(`${label}: funding tx refused by the node: ${accept?.rejectDetails ?? accept?.rejectReason ?? "unknown reason"}`);
      return "abandoned";
    }
    const roundId = txidHex(signedFunding);
    const tree = signing.tree;
    const treeTxs: StoredTx[] = tree.txs.map((tx, idx) => {
      const node = tree.internal.findIndex((n) => n.nodeIdx === idx);
      const signedTx: Transaction = node < 0 ? tx : { ...tx, inputs: [{ ...tx.inputs[0]!, witness: [sigs[node]!] }] };
      return { txid: txidHex(tx), raw: encodeTx(signedTx), signed: node >= 0, isFunding: false };
    });
    let leaf = 0;
    const outputs: NewVtxo[] = [];
    const claim = (unlockHash: Uint8Array, count: number): string[] =>
      Array.from({ length: count }, () => {
        const v = treeLeafVtxo(tree, leaf++, sigs, null, { type: "hash", hash: unlockHash });
        const id = `${txidHex(tree.txs[leaf - 1]!)}:0`;
        outputs.push({ id, bytes: encodeVtxo(v), state: "unclaimed", userPubkey: toHex(v.policy.userPubkey), policyType: v.policy.type });
        return id;
      });
    const interactive: StoredParticipation[] = attempt.participants.map((p) => ({
      unlockHash: toHex(p.unlockHash),
      unlockPreimage: p.unlockPreimage,
      kind: "interactive",
      inputs: p.inputs,
      outputs: p.outputs.map((o) => ({ amount: o.amount, policy: o.policy })),
      mailboxId: p.mailboxId,
      scheduledHeight: null,
      roundId,
      outputVtxoIds: claim(p.unlockHash, p.outputs.length),
      forfeitedAt: null,
    }));
    const delegated = attempt.delegated.map((d) => ({ unlockHash: d.participation.unlockHash, outputVtxoIds: claim(d.unlockHash, d.participation.outputs.length) }));
    try {
      await this.rounds.finishRound({
        round: { roundId, roundSeq: attempt.roundSeq, attemptSeq: attempt.attemptSeq, signedTree: encodeSignedVtxoTreeSpec({ spec, rootOutpoint: { txid: txid(funding.tx), vout: 0 }, signatures: sigs }), expiryHeight: spec.expiryHeight },
        fundingTx: { txid: roundId, raw, signed: true, isFunding: true },
        treeTxs,
        inputs: attempt.inputIds(),
        outputs,
        interactive,
        delegated,
      });
    } catch (e) {
      if (e instanceof DoubleSpendError || e instanceof ParticipationGoneError) {
        this.ctx.logger.warn(`${label}: ${e.message}; round abandoned`);
        return "abandoned";
      }
      this.ctx.logger.error(`${label}: storing the round failed: ${e instanceof Error ? e.message : String(e)}`);
      return "fatal";
    }
    attempt.releaseAll();
    for (const d of attempt.delegated) {
      if (!d.participation.mailboxId) continue;
      try {
        await this.mailbox.postRoundParticipationCompleted(d.participation.mailboxId, d.unlockHash);
      } catch (e) {
        this.ctx.logger.warn(`${label}: mailbox notification for ${d.participation.unlockHash} failed: ${e instanceof Error ? e.message : String(e)}`);
      }
    }
    await this.broadcast(raw, roundId);
    this.ctx.logger.info(`${label} finished: ${outputs.length} output(s), funding tx ${roundId}`);
    this.events.publish({ kind: "finished", roundSeq: attempt.roundSeq, attemptSeq: BigInt(attempt.attemptSeq), signedRoundTx: raw, cosignSignatures: sigs });
    return "finished";
  }

  private async broadcast(raw: Uint8Array, txidText: string): Promise<void> {
    try {
      await this.ctx.chain.submitTransaction(raw);
    } catch (e) {
      this.ctx.logger.warn(`round funding tx ${txidText} not accepted by the node (re-broadcast at the next round): ${e instanceof Error ? e.message : String(e)}`);
    }
  }

  /** Hands stored round funding txs the node does not know (any more) to it again. */
  private async rebroadcastFundingTxs(): Promise<void> {
    for (const id of await this.rounds.recentRoundIds()) {
      if (await this.ctx.chain.getTxStatus(id)) continue;
      const tx = await this.ctx.store.getTx(id);
      if (tx) await this.broadcast(tx.raw, id);
    }
  }
}
