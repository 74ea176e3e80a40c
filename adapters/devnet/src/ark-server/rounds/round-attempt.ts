/**
 * One attempt of a round: its challenge and fresh cosign key, the interactive participants and
 * delegated participations signed up, the VTXO flux locks it holds on their inputs, and — once
 * the proposal is out — the tree signing state and the cosigners still to sign.
 *
 * | Phase | Accepts |
 * |---|---|
 * | `signup` | `SubmitPayment` (until the window ends or the round is full) |
 * | `closing` | nothing (delegated participations are added, the tree and funding tx built) |
 * | `signing` | `ProvideVtxoSignatures` |
 * | `finishing` / `done` | nothing |
 */
import { randomBytes } from "node:crypto";
import { pubkeyFromSecret, toHex, type Vtxo, type VtxoLeafSpec } from "@tender/ark-protocol";
import type { VtxoFluxLocks } from "../async-lock.js";
import type { RoundOutputSpec, StoredParticipation } from "./round-store.js";
import type { AttemptTreeSigning } from "./round-tree.js";
import type { RoundFunding } from "./round-funding.js";

/** An output of an interactive participant with its cosigning material. */
export interface SignedOutput extends RoundOutputSpec {
  readonly cosignPubkey: Uint8Array;
  readonly nonces: readonly Uint8Array[];
}

/** An interactive participant of the attempt. */
export interface InteractiveParticipant {
  readonly unlockPreimage: Uint8Array;
  readonly unlockHash: Uint8Array;
  readonly inputs: readonly string[];
  readonly inputVtxos: readonly Vtxo[];
  readonly outputs: readonly SignedOutput[];
  readonly mailboxId: string | null;
}

/** A delegated participation included in the attempt. */
export interface IncludedDelegated {
  readonly participation: StoredParticipation;
  readonly unlockHash: Uint8Array;
}

/** Where the attempt stands. */
export type AttemptPhase = "signup" | "closing" | "signing" | "finishing" | "done";

/** The proposal-time state. */
export interface AttemptSigningState {
  readonly signing: AttemptTreeSigning;
  readonly funding: RoundFunding;
  readonly partials: Map<string, readonly Uint8Array[]>;
  /** Cosign keys (hex) that have not signed yet. */
  readonly waiting: Set<string>;
}

/** One round attempt. */
export class RoundAttempt {
  readonly challenge = new Uint8Array(randomBytes(32));
  readonly cosignSecret = new Uint8Array(randomBytes(32));
  readonly cosignPubkey = pubkeyFromSecret(this.cosignSecret);
  phase: AttemptPhase = "signup";
  readonly participants: InteractiveParticipant[] = [];
  readonly delegated: IncludedDelegated[] = [];
  signingState: AttemptSigningState | undefined;
  private readonly lockedIds = new Set<string>();
  private readonly cosignKeys = new Set<string>();

  constructor(
    readonly roundSeq: bigint,
    readonly attemptSeq: number,
    /** Outputs the tree can hold: 4^nb_round_nonces. */
    readonly capacity: number,
    readonly nbRoundNonces: number,
    /** Inputs excluded from this round (their cosigners failed to sign an earlier attempt). */
    readonly excluded: ReadonlySet<string>,
    private readonly locks: VtxoFluxLocks,
  ) {}

  /** Outputs signed up so far (interactive and delegated). */
  get outputCount(): number {
    return this.participants.reduce((n, p) => n + p.outputs.length, 0) + this.delegated.reduce((n, d) => n + d.participation.outputs.length, 0);
  }

  get isFull(): boolean {
    return this.outputCount >= this.capacity;
  }

  hasCosignKey(hex: string): boolean {
    return this.cosignKeys.has(hex);
  }

  /** Whether the attempt already holds `id`. */
  holds(id: string): boolean {
    return this.lockedIds.has(id);
  }

  /** Locks ids for this attempt (all or nothing; throws `VtxoLockedError`). */
  lock(ids: readonly string[]): void {
    this.locks.acquire(ids);
    for (const id of ids) this.lockedIds.add(id);
  }

  /** Releases ids locked by {@link lock} that were not used. */
  unlock(ids: readonly string[]): void {
    const mine = ids.filter((id) => this.lockedIds.delete(id));
    this.locks.release(mine);
  }

  /** Releases every lock of the attempt. */
  releaseAll(): void {
    this.locks.release([...this.lockedIds]);
    this.lockedIds.clear();
  }

  addParticipant(p: InteractiveParticipant): void {
    this.participants.push(p);
    for (const o of p.outputs) this.cosignKeys.add(toHex(o.cosignPubkey));
  }

  addDelegated(d: IncludedDelegated): void {
    this.delegated.push(d);
  }

  /** All inputs of the attempt, interactive first. */
  inputIds(): string[] {
    return [...this.participants.flatMap((p) => p.inputs), ...this.delegated.flatMap((d) => d.participation.inputs)];
  }

  /** The leaves: interactive outputs in sign-up order, then delegated outputs (no cosign key). */
  leaves(): VtxoLeafSpec[] {
    return [
      ...this.participants.flatMap((p) => p.outputs.map((o) => ({ policy: o.policy, amount: o.amount, cosignPubkey: o.cosignPubkey, unlockHash: p.unlockHash }))),
      ...this.delegated.flatMap((d) => d.participation.outputs.map((o) => ({ policy: o.policy, amount: o.amount, cosignPubkey: null, unlockHash: d.unlockHash }))),
    ];
  }

  /** Public nonces by cosign key (hex). */
  leafNonces(): Map<string, readonly Uint8Array[]> {
    return new Map(this.participants.flatMap((p) => p.outputs.map((o) => [toHex(o.cosignPubkey), o.nonces] as const)));
  }

  /** The inputs of participants that have a cosign key in `keys`. */
  inputsOfCosigners(keys: ReadonlySet<string>): string[] {
    return this.participants.filter((p) => p.outputs.some((o) => keys.has(toHex(o.cosignPubkey)))).flatMap((p) => p.inputs);
  }
}
