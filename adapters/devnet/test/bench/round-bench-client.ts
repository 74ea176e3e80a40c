/**
 * An in-process round client of the benchmark, on the pure round client of the protocol core
 * (what the rounds plugin runs) over its own gRPC connection: on the next `attempt` it submits
 * its input for one refresh output to a fresh key, on the proposal it checks the tree and signs
 * its branch, on `finished` it checks the round and builds its new VTXO. It records the time it
 * spent computing (not waiting), and when it was done.
 */
import { GrpcArkServer } from "@tender/ark-grpc";
import {
  prepareRoundSubmission,
  pubkeyFromSecret,
  refreshOutputAmount,
  roundOutputVtxos,
  signVtxoProposal,
  type OwnedRoundInput,
  type RoundOutput,
  type RoundServerParams,
  type RoundSubmissionSecrets,
  type Vtxo,
} from "@tender/ark-protocol";
import type { RoundEvent, RoundSubscription, VtxoProposalEvent } from "@tender/ark-protocol/server";
import { randomBytes } from "node:crypto";
import { nowMs } from "./round-timing.js";

/** One client: one input VTXO, one output. */
export class BenchRoundClient {
  /** ms spent computing (submission, branch signatures, finished-round checks). */
  computeMs = 0;
  /** When the client had checked the finished round and built its VTXO (absolute ms). */
  doneAt = 0;
  vtxos: Vtxo[] = [];
  readonly done: Promise<void>;
  private resolve!: () => void;
  private reject!: (e: unknown) => void;
  private sub: RoundSubscription | undefined;
  private readonly output: RoundOutput;
  private attempt: { unlockHash: Uint8Array; secrets: RoundSubmissionSecrets; proposal?: VtxoProposalEvent } | undefined;

  constructor(
    private readonly port: GrpcArkServer,
    private readonly input: OwnedRoundInput,
    private readonly server: RoundServerParams,
    private readonly tipHeight: number,
  ) {
    const key = new Uint8Array(randomBytes(32));
    this.output = { amount: refreshOutputAmount([input.vtxo], server.refreshFees, tipHeight).amount, policy: { type: "pubkey", userPubkey: pubkeyFromSecret(key) } };
    this.done = new Promise((res, rej) => {
      this.resolve = res;
      this.reject = rej;
    });
    this.done.catch(() => undefined);
  }

  /** Subscribes; the client joins the first attempt published after this. */
  start(): this {
    this.sub = this.port.subscribeRounds({ onEvent: (e) => this.onEvent(e) });
    return this;
  }

  async stop(): Promise<void> {
    await this.sub?.stop();
  }

  private timed<T>(fn: () => T): T {
    const t = nowMs();
    try {
      return fn();
    } finally {
      this.computeMs += nowMs() - t;
    }
  }

  private async onEvent(e: RoundEvent): Promise<void> {
    try {
      if (e.kind === "attempt" && !this.attempt) {
        const { request, secrets } = this.timed(() => prepareRoundSubmission({ challenge: e.challenge, inputs: [this.input], outputs: [this.output], nbRoundNonces: this.server.nbRoundNonces }));
        this.attempt = { unlockHash: await this.port.submitPayment(request), secrets };
      } else if (e.kind === "attempt") {
        throw new Error(`a new attempt ${e.roundSeq}.${e.attemptSeq} started: the benchmark round must finish in its first attempt`);
      } else if (e.kind === "vtxo-proposal" && this.attempt) {
        const a = this.attempt;
        a.proposal = e;
        const requests = this.timed(() => signVtxoProposal({ proposal: e, server: this.server, tipHeight: this.tipHeight, outputs: [this.output], unlockHash: a.unlockHash, secrets: a.secrets }));
        for (const r of requests) await this.port.provideVtxoSignatures(r);
      } else if (e.kind === "finished" && this.attempt?.proposal) {
        const a = this.attempt;
        this.vtxos = this.timed(() => roundOutputVtxos({ proposal: a.proposal!, finished: e, outputs: [this.output], unlockHash: a.unlockHash }).vtxos);
        this.doneAt = nowMs();
        this.resolve();
      } else if (e.kind === "failed" && this.attempt) {
        throw new Error(`round ${e.roundSeq} failed`);
      }
    } catch (err) {
      this.reject(err);
    }
  }
}
