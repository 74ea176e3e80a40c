import type { MailboxMessage, MailboxMessageKind } from "@tender/ark-protocol/server";

/** The message of one kind. */
export type MailboxMessageOf<K extends MailboxMessageKind> = Extract<MailboxMessage, { kind: K }>;

/**
 * Handed to a handler with its message: lets it record that the message is processed in the same
 * commit as what it stored for it, instead of a commit of its own after the handler returned.
 */
export interface MailboxAck {
  /**
   * Records that the message is processed (the mailbox checkpoint moves past it; a kept message
   * is forgotten) through the transaction of the moment: call it inside the `Database.transaction`
   * that stores what the message brought, after those writes, so both commit together or not at
   * all. Outside a transaction it commits on its own at once. A handler that does not call it
   * (nothing to store, say) has the message recorded once it returned.
   */
  settleInTransaction(): Promise<void>;
}

/**
 * Processes one mailbox message of the wallet. Throwing means "not processed": the mailbox
 * consumer stops there without advancing and reads the message again later. A handler may see a
 * message twice (a redelivery, or a crash right after it ran), so it must be idempotent.
 */
export type MailboxHandler<K extends MailboxMessageKind = MailboxMessageKind> = (message: MailboxMessageOf<K>, ack: MailboxAck) => Promise<void>;

/**
 * Extension point of the Ark plugin (`MailboxHandlersService`): one handler per mailbox message
 * kind. The Ark rail handles `arkoor`; rails for rounds or Lightning register theirs. A message
 * whose kind no handler claims is kept by the mailbox consumer and handed to a handler for its
 * kind as soon as one is registered (at the next wallet load or sync).
 */
export class MailboxHandlers {
  private readonly byKind = new Map<string, { plugin: string; handle: MailboxHandler }>();

  /** Makes `plugin` the handler of `kind` messages; a kind has one handler (a second one is refused, naming both plugins). */
  register<K extends MailboxMessageKind>(kind: K, plugin: string, handler: MailboxHandler<K>): void {
    const prior = this.byKind.get(kind);
    if (prior) throw new Error(`mailbox messages of kind ${kind} are handled by both plugin ${prior.plugin} and plugin ${plugin}`);
    // only messages of `kind` are ever looked up under `kind`
    this.byKind.set(kind, { plugin, handle: (m, ack) => handler(m as MailboxMessageOf<K>, ack) });
  }

  /** The handler of `kind`, if some plugin registered one. */
  handlerOf(kind: MailboxMessageKind): MailboxHandler | undefined {
    return this.byKind.get(kind)?.handle;
  }
}
