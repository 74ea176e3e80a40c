/**
 * The wallet's mailbox on the Ark server as plain data: every message carries the server's
 * checkpoint (strictly increasing), and a `kind` naming what it holds. A message whose kind this
 * daemon does not know (sent by a newer server) keeps its bytes as received, so nothing is lost.
 */

/** Arkoor VTXOs delivered to the wallet (full VTXO encodings). */
export interface ArkoorMailboxMessage {
  readonly kind: "arkoor";
  readonly checkpoint: bigint;
  readonly vtxos: readonly Uint8Array[];
}

/** A delegated round participation of the wallet is now part of a round. */
export interface RoundParticipationCompletedMessage {
  readonly kind: "round-participation-completed";
  readonly checkpoint: bigint;
  readonly unlockHash: Uint8Array;
}

/** A payer's HTLCs are held for one of the wallet's Lightning receives. */
export interface IncomingLightningPaymentMessage {
  readonly kind: "incoming-lightning-payment";
  readonly checkpoint: bigint;
  readonly paymentHash: Uint8Array;
  readonly amountMsat: bigint;
}

/** VTXO ids backed up in a recovery mailbox (36-byte outpoints). */
export interface RecoveryVtxoIdsMessage {
  readonly kind: "recovery-vtxo-ids";
  readonly checkpoint: bigint;
  readonly vtxoIds: readonly Uint8Array[];
}

/** An outgoing Lightning payment reached a final state (the preimage only on success). */
export interface LightningSendFinishedMessage {
  readonly kind: "lightning-send-finished";
  readonly checkpoint: bigint;
  readonly paymentHash: Uint8Array;
  readonly preimage: Uint8Array | undefined;
}

/** A message of a kind this daemon does not know: its bytes exactly as the server sent them. */
export interface UnknownMailboxMessage {
  readonly kind: "unknown";
  readonly checkpoint: bigint;
  readonly bytes: Uint8Array;
}

/** One message of the wallet's mailbox. */
export type MailboxMessage =
  | ArkoorMailboxMessage
  | RoundParticipationCompletedMessage
  | IncomingLightningPaymentMessage
  | RecoveryVtxoIdsMessage
  | LightningSendFinishedMessage
  | UnknownMailboxMessage;

/** The kinds of {@link MailboxMessage}. */
export type MailboxMessageKind = MailboxMessage["kind"];

/** Which mailbox to read, proved by an authorization of its key. */
export interface MailboxReadRequest {
  /** The unblinded mailbox id (33-byte public key). */
  readonly mailboxId: Uint8Array;
  /** An encoded mailbox authorization of that key. */
  readonly authorization: Uint8Array;
  /** The last checkpoint already processed (0 = from the beginning). */
  readonly checkpoint: bigint;
}

/** One page of a mailbox, in ascending checkpoint order. */
export interface MailboxPage {
  readonly messages: readonly MailboxMessage[];
  /** The page is full, so more messages may follow. */
  readonly haveMore: boolean;
}

/** A live subscription to a mailbox that resumes after drops. */
export interface MailboxSubscriptionRequest {
  readonly mailboxId: Uint8Array;
  /** The last checkpoint already processed (0 = from the beginning). */
  readonly checkpoint: bigint;
  /** A fresh authorization for every (re)subscription (bark's are valid for 10 s). */
  readonly authorization: () => Uint8Array | Promise<Uint8Array>;
  /**
   * Processes one message. Resolving `false` or throwing means "not processed": the subscription
   * does not move past it and delivers it again after resubscribing.
   */
  readonly onMessage: (message: MailboxMessage) => Promise<boolean | void>;
}

/** How a subscription ended: stopped by its owner, or given up after reconnecting without progress. */
export type SubscriptionEnd = { readonly reason: "stopped" } | { readonly reason: "gave-up"; readonly lastError: unknown };

/** A running mailbox subscription. */
export interface MailboxSubscription {
  /** Resolves when the subscription ended. */
  readonly done: Promise<SubscriptionEnd>;
  /** Stops the subscription and waits until it has ended. */
  stop(): Promise<SubscriptionEnd>;
}

/** A backup of VTXO ids in the wallet's recovery mailbox. */
export interface RecoveryIdsPost {
  /** The recovery mailbox id (33-byte public key). */
  readonly mailboxId: Uint8Array;
  /** 1 to 20 VTXO ids, 36-byte outpoints. */
  readonly vtxoIds: readonly Uint8Array[];
  /** An authorization of the recovery mailbox key (the server checks it when present). */
  readonly authorization?: Uint8Array;
}
