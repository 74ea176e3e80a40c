/**
 * An interactive round participant for server tests: subscribes to round events over gRPC,
 * joins the first attempt 0 it sees (or the running attempt it is started during), resubmits
 * on later attempts, signs its branch (unless told to withhold on an attempt), and resolves
 * with its finished outcome — or rejects with the refusal or the round's failure.
 */
import type { ArkInfo, ArkServer as ArkServerPort, RoundEvent, RoundSubscription, VtxoProposalEvent } from "@tender/ark-protocol/server";
import type { Vtxo } from "@tender/ark-protocol";
import type { DevnetNode } from "../../src/node/devnet-node.js";
import { finishedOutcome, harkSwap, prepareSubmission, refreshOutputs, signProposal, type KitOutput, type RoundOutcome, type Submission } from "./round-kit.js";
import type { WalletKit } from "./wallet-kit.js";

/** Options of a {@link RoundParticipant}. */
export interface ParticipantOptions {
  /** Outputs (default: one refresh output of the inputs' total to a fresh key). */
  outputs?: KitOutput[];
  /** Attempts on which the participant does not send its signatures. */
  withholdOn?: number[];
  /** Sends each signature set once with its first signature altered before the real one; the refusals land in {@link RoundParticipant.refusals}. */
  tamperFirst?: boolean;
}

/** The round failed (or a later round started) before this participant finished. */
export class RoundFailedError extends Error {}

/** One participant. */
export class RoundParticipant {
  readonly outputs: KitOutput[];
  /** Every unlock hash received (one per attempt submitted to). */
  readonly unlockHashes: Uint8Array[] = [];
  /** What the server answered to each altered signature set ({@link ParticipantOptions.tamperFirst}); `undefined` = accepted. */
  readonly refusals: unknown[] = [];
  /** Attempts this participant submitted to. */
  readonly attempts: bigint[] = [];
  readonly outcome: Promise<RoundOutcome>;
  private resolve!: (o: RoundOutcome) => void;
  private reject!: (e: unknown) => void;
  private sub: RoundSubscription | undefined;
  private round: bigint | undefined;
  private submission: Submission | undefined;
  private proposal: VtxoProposalEvent | undefined;
  private settled = false;

  constructor(
    readonly api: ArkServerPort,
    readonly kit: WalletKit,
    readonly node: DevnetNode,
    readonly info: ArkInfo,
    readonly inputs: Vtxo[],
    readonly opts: ParticipantOptions = {},
  ) {
    this.outputs = opts.outputs ?? refreshOutputs(kit, inputs);
    this.outcome = new Promise((res, rej) => {
      this.resolve = res;
      this.reject = rej;
    });
    this.outcome.catch(() => undefined);
  }

  /** The unlock hash of the attempt that finished (the last one submitted). */
  get unlockHash(): Uint8Array {
    return this.unlockHashes.at(-1)!;
  }

  /** Subscribes and plays along. */
  start(): this {
    this.sub = this.api.subscribeRounds({ onEvent: (e) => this.onEvent(e) });
    return this;
  }

  async stop(): Promise<void> {
    await this.sub?.stop();
  }

  /** Outcome, then the hArk swap; returns the finalized VTXOs (validated against the funding tx). */
  async complete(): Promise<{ outcome: RoundOutcome; vtxos: Vtxo[]; preimage: Uint8Array }> {
    const outcome = await this.outcome;
    await this.stop();
    const done = await harkSwap(this.api, this.kit, this.info, { fundingTx: outcome.fundingTx, vtxos: outcome.vtxos, unlockHash: outcome.unlockHash, inputs: this.inputs });
    return { outcome, ...done };
  }

  private fail(e: unknown): void {
    if (this.settled) return;
    this.settled = true;
    this.reject(e);
    void this.sub?.stop();
  }

  private async onEvent(ev: RoundEvent): Promise<void> {
    if (this.settled) return;
    switch (ev.kind) {
      case "attempt": {
        if (this.round === undefined) this.round = ev.roundSeq;
        else if (ev.roundSeq !== this.round) return this.fail(new RoundFailedError(`round ${this.round} ended without finishing`));
        this.submission = prepareSubmission(this.kit, ev.challenge, this.inputs, this.outputs, this.info.nbRoundNonces, this.kit.mailbox);
        this.attempts.push(ev.attemptSeq);
        try {
          this.unlockHashes.push(await this.api.submitPayment(this.submission.request));
        } catch (e) {
          this.fail(e);
        }
        return;
      }
      case "vtxo-proposal": {
        if (ev.roundSeq !== this.round || ev.attemptSeq !== this.attempts.at(-1) || !this.submission) return;
        this.proposal = ev;
        if (this.opts.withholdOn?.includes(Number(ev.attemptSeq))) return;
        try {
          for (const r of signProposal(this.info, this.node.tipHeight(), ev, this.submission, this.unlockHash)) {
            if (this.opts.tamperFirst) {
              const bad = r.signatures.map((sig, i) => (i === 0 ? Uint8Array.from(sig, (x, j) => (j === 31 ? x ^ 1 : x)) : sig));
              await this.api.provideVtxoSignatures({ cosignPubkey: r.cosignPubkey, signatures: bad }).then(
                () => this.refusals.push(undefined),
                (e: unknown) => this.refusals.push(e),
              );
            }
            await this.api.provideVtxoSignatures(r);
          }
        } catch (e) {
          this.fail(e);
        }
        return;
      }
      case "finished": {
        if (ev.roundSeq !== this.round || !this.proposal || ev.attemptSeq !== this.proposal.attemptSeq) return;
        try {
          this.settled = true;
          this.resolve(finishedOutcome(this.proposal, ev, this.submission!, this.unlockHash));
          void this.sub?.stop();
        } catch (e) {
          this.settled = false;
          this.fail(e);
        }
        return;
      }
      case "failed":
        if (ev.roundSeq === this.round) this.fail(new RoundFailedError(`round ${ev.roundSeq} failed`));
        return;
    }
  }
}
