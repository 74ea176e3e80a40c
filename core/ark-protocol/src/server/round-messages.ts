/**
 * Rounds (hArk) as the wallet sees them, in plain data: the events of `SubscribeRounds`, the
 * interactive payment submission and its tree signatures, delegated participations with their
 * status, and the post-round swap (leaf co-signature, forfeit nonces, forfeits for the unlock
 * preimage). Amounts are bigint sats; ids are 36-byte outpoints; keys 33-byte compressed.
 */
import type { SubscriptionEnd } from "./mailbox-messages.js";

/** A new attempt of round `roundSeq` opened its sign-up window. */
export interface RoundAttemptEvent {
  readonly kind: "attempt";
  readonly roundSeq: bigint;
  readonly attemptSeq: bigint;
  /** 32 random bytes the input attestations sign over. */
  readonly challenge: Uint8Array;
}

/** The attempt's tree and unsigned funding transaction, for the cosigners to sign. */
export interface VtxoProposalEvent {
  readonly kind: "vtxo-proposal";
  readonly roundSeq: bigint;
  readonly attemptSeq: bigint;
  /** The VTXO tree spec encoding. */
  readonly vtxosSpec: Uint8Array;
  /** The unsigned round funding transaction (tree output at vout 0), consensus-serialized. */
  readonly unsignedRoundTx: Uint8Array;
  /** One aggregated nonce per internal tree node, leaves → root. */
  readonly aggNonces: readonly Uint8Array[];
}

/** The round finished: the signed funding transaction and the tree's final signatures. */
export interface RoundFinishedEvent {
  readonly kind: "finished";
  readonly roundSeq: bigint;
  readonly attemptSeq: bigint;
  readonly signedRoundTx: Uint8Array;
  /** One final signature per internal node, leaves → root. */
  readonly cosignSignatures: readonly Uint8Array[];
}

/** The round failed (nobody joined, everyone was excluded, or a server error). */
export interface RoundFailedEvent {
  readonly kind: "failed";
  readonly roundSeq: bigint;
}

/** One event of the round stream. */
export type RoundEvent = RoundAttemptEvent | VtxoProposalEvent | RoundFinishedEvent | RoundFailedEvent;

/** What a round subscription is opened with. */
export interface RoundSubscriptionRequest {
  /**
   * Processes one event. Resolving `false` or throwing means "not processed": the event is
   * delivered again after resubscribing. A new stream starts with the server's last event; the
   * subscription skips it when it is the last one processed.
   */
  readonly onEvent: (event: RoundEvent) => Promise<boolean | void>;
}

/** A running round subscription (resubscribes after drops until stopped). */
export interface RoundSubscription {
  readonly done: Promise<SubscriptionEnd>;
  stop(): Promise<SubscriptionEnd>;
}

/** An input of a round participation with its attestation (round-attempt or delegated kind). */
export interface RoundInput {
  readonly vtxoId: Uint8Array;
  readonly attestation: Uint8Array;
}

/** A requested round output. */
export interface RoundOutputRequest {
  readonly amount: bigint;
  /** The VTXO policy encoding. */
  readonly policy: Uint8Array;
}

/** A requested output of an interactive participation, with its cosigning material. */
export interface SignedRoundOutputRequest extends RoundOutputRequest {
  /** Fresh per output and attempt. */
  readonly cosignPubkey: Uint8Array;
  /** Exactly `nb_round_nonces` MuSig2 public nonces. */
  readonly pubNonces: readonly Uint8Array[];
}

/** `SubmitPayment`: joining the current attempt interactively. */
export interface SubmitPaymentRequest {
  readonly inputs: readonly RoundInput[];
  readonly outputs: readonly SignedRoundOutputRequest[];
  /** The wallet's (unblinded) mailbox id. */
  readonly mailboxId?: Uint8Array;
}

/** `ProvideVtxoSignatures`: one output's branch partial signatures, leaf's parent → root. */
export interface VtxoSignaturesRequest {
  readonly cosignPubkey: Uint8Array;
  readonly signatures: readonly Uint8Array[];
}

/** `SubmitRoundParticipation`: a delegated (non-interactive) participation. */
export interface RoundParticipationRequest {
  readonly inputs: readonly RoundInput[];
  readonly outputs: readonly RoundOutputRequest[];
  readonly mailboxId?: Uint8Array;
  /** Not included in a round before the tip reaches this height. */
  readonly scheduledHeight?: number;
}

/** `RoundParticipationStatus` of a delegated participation (unknown ones throw `NOT_FOUND`). */
export type RoundParticipationStatus =
  | { readonly status: "pending"; readonly inputVtxoIds: readonly Uint8Array[] }
  | {
      /** `released` once every input was forfeited (the preimage is then included). */
      readonly status: "issued" | "released";
      readonly inputVtxoIds: readonly Uint8Array[];
      readonly roundFundingTx: Uint8Array;
      /** The participant's output VTXOs in request order, lacking the leaf signature and preimage. */
      readonly outputVtxos: readonly Uint8Array[];
      readonly unlockPreimage?: Uint8Array;
    };

/** `RequestLeafVtxoCosign`: the server's half of a round leaf's hash-lock spend. */
export interface LeafVtxoCosignRequest {
  readonly vtxoId: Uint8Array;
  readonly pubNonce: Uint8Array;
}

export interface LeafVtxoCosignResponse {
  readonly pubNonce: Uint8Array;
  readonly partialSig: Uint8Array;
}
