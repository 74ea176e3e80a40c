/**
 * A round participation as the rounds rail works with it (the stored row, typed). Amounts are
 * bigint sats, bytes hex.
 */

/** Where a participation stands. */
export type ParticipationStatus =
  /** Interactive: waiting for the next round's first attempt. Delegated: handed to the server (or about to be, without an unlock hash), waiting for its round. */
  | "pending"
  /** Interactive: joined round `roundSeq`, attempt `attemptSeq`; the unlock hash is known. */
  | "submitted"
  /** The round happened: funding tx and hash-locked outputs stored; waiting for confirmations, then the swap. */
  | "finished"
  /** The forfeits are (about to be) sent: from here the participation never fails, the swap is retried until it completes. */
  | "forfeiting"
  | "done"
  | "failed"
  | "canceled";

/** Statuses after which nothing changes. */
export const FINAL_STATUSES: readonly ParticipationStatus[] = ["done", "failed", "canceled"];

export type ParticipationKind = "interactive" | "delegated";
export type ParticipationOrigin = "explicit" | "maintenance";

/** A requested output: a `pubkey` VTXO on a wallet key derived (and persisted) for it. */
export interface RequestedOutput {
  readonly amountSat: bigint;
  /** Index of the wallet's VTXO key `m/350'/0'/i`. */
  readonly keyIndex: number;
  /** Its public key, hex. */
  readonly pubkey: string;
}

export interface Participation {
  readonly id: number;
  readonly kind: ParticipationKind;
  readonly origin: ParticipationOrigin;
  readonly status: ParticipationStatus;
  readonly inputs: readonly string[];
  readonly outputs: readonly RequestedOutput[];
  readonly feeSat: bigint;
  readonly scheduledHeight: number | null;
  readonly roundSeq: bigint | null;
  readonly attemptSeq: bigint | null;
  readonly unlockHash: string | null;
  readonly fundingTxid: string | null;
  readonly fundingTx: string | null;
  /** Hex of each output VTXO as the round made it (in output order). */
  readonly outputVtxos: readonly string[] | null;
  readonly unlockPreimage: string | null;
  readonly inputsLocked: boolean;
  readonly movementId: number | null;
  readonly error: string | null;
}

/** The fields a transition may change. */
export type ParticipationChanges = Partial<Omit<Participation, "id" | "kind" | "origin">>;

/** The lock owner naming participation `id` in the shared VTXO locks (`locked_by` of its inputs). */
export function lockOwner(id: number): string {
  return `round.${id}`;
}

/** Whether `p` still holds sats the balance shows as pending in a round: outputs not yet issued while the inputs are held. */
export function isPendingInRound(p: Participation): boolean {
  return p.inputsLocked && !FINAL_STATUSES.includes(p.status);
}

/** Sum of the requested outputs. */
export function outputSum(p: Pick<Participation, "outputs">): bigint {
  return p.outputs.reduce((t, o) => t + o.amountSat, 0n);
}
