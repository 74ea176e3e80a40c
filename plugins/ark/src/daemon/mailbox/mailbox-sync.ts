import { AsyncLock, type Database, type Logger } from "@tender/core";
import type { ArkServer, MailboxMessage, MailboxSubscription } from "@tender/ark-protocol/server";
import type { ArkKeys } from "../keys/ark-keys.js";
import type { KeptMailboxMessages } from "./kept-messages.js";
import type { MailboxAck, MailboxHandlers } from "./mailbox-handlers.js";
import { MailboxCheckpointStore } from "./mailbox-checkpoint.js";
import { mailboxAuthorization, SUBSCRIBE_AUTH_SECS, SYNC_AUTH_SECS } from "./mailbox-authorization.js";

/** Pages a sync reads at most (bark reads at most 10 pages per sync; the subscription delivers the rest). */
export const MAX_SYNC_PAGES = 10;

/**
 * The loaded wallet's unified mailbox (the wallet service `ArkMailboxService`): `sync()` reads it
 * (`ReadMailbox`, at most 10 pages) and the background subscription streams it; both take
 * messages one by one, under one lock, and store each message's checkpoint once it is safe:
 *
 * - a message whose kind has a handler (see {@link MailboxHandlers}) is handed to it; the
 *   checkpoint moves past it in the handler's own commit when the handler settles it there
 *   ({@link MailboxAck}), otherwise once the handler returned; when the handler throws, the
 *   consumer stops there without advancing, so the message is read again before anything later;
 * - a message no handler claims is kept in the wallet database (and logged), in the same
 *   transaction that moves the checkpoint past it; kept messages are handed to the handler of
 *   their kind as soon as one is registered (at wallet load and at every sync), and forgotten
 *   once it processed them.
 *
 * The consumer is the only writer of the checkpoint besides work run {@link exclusive}ly, so it
 * keeps the value it last committed instead of reading it for every message.
 *
 * Disposing of it stops the subscription (waiting for a message being processed).
 */
export class MailboxSync {
  private readonly lock = new AsyncLock();
  private subscription: MailboxSubscription | undefined;
  private readonly checkpoints: MailboxCheckpointStore;
  /** The checkpoint last read or committed; `undefined` until read (and after exclusive work). */
  private known: bigint | undefined;

  constructor(
    private readonly server: ArkServer,
    private readonly keys: ArkKeys,
    private readonly db: Database,
    private readonly logger: Logger,
    private readonly handlers: MailboxHandlers,
    private readonly kept: KeptMailboxMessages,
  ) {
    this.checkpoints = new MailboxCheckpointStore(db);
  }

  /** The stored checkpoint. */
  async checkpoint(): Promise<bigint> {
    if (this.known !== undefined) return this.known;
    const stored = await this.checkpoints.read();
    // a commit that landed while reading has the higher value: keep it
    if (this.known === undefined || stored > this.known) this.known = stored;
    return this.known;
  }

  /** Moves the stored checkpoint to `checkpoint` through the transaction of the moment; the kept value follows once that commits. */
  private async advance(checkpoint: bigint): Promise<void> {
    await this.checkpoints.advance(checkpoint);
    this.db.afterCommit(() => {
      if (this.known === undefined || checkpoint > this.known) this.known = checkpoint;
    });
  }

  /** Processes (or keeps) one message and stores its checkpoint; false when it must be read again. */
  private async process(msg: MailboxMessage): Promise<boolean> {
    if (msg.checkpoint <= (await this.checkpoint())) return true;
    const handler = this.handlers.handlerOf(msg.kind);
    if (!handler) {
      await this.db.transaction(async () => {
        await this.kept.keep(msg);
        await this.advance(msg.checkpoint);
      });
      this.logger.warn(`mailbox: no plugin handles ${msg.kind} messages; the one at checkpoint ${msg.checkpoint} is kept until one does`);
      return true;
    }
    const ack = this.ackWith(() => this.advance(msg.checkpoint));
    try {
      await handler(msg, ack);
    } catch (e) {
      this.logger.warn(`mailbox: ${msg.kind} message at checkpoint ${msg.checkpoint} not processed: ${errorText(e)}`);
      return false;
    }
    if (!ack.settled) await this.advance(msg.checkpoint);
    return true;
  }

  /** An ack running `settle` in the handler's transaction; `settled` once that committed. */
  private ackWith(settle: () => Promise<void>): MailboxAck & { readonly settled: boolean } {
    let settled = false;
    return {
      settleInTransaction: async () => {
        await settle();
        this.db.afterCommit(() => {
          settled = true;
        });
      },
      get settled() {
        return settled;
      },
    };
  }

  /**
   * Runs `work` while no message is processed: a sync or a subscription message waits until it is
   * done, and then reads the checkpoint `work` may have moved (a recovery from the seed moves it
   * past the deliveries it already accounted for).
   */
  exclusive<T>(work: () => Promise<T>): Promise<T> {
    return this.lock.run(async () => {
      try {
        return await work();
      } finally {
        this.known = undefined;
      }
    });
  }

  /** Hands kept messages to the handlers of their kinds now (at wallet load; `sync()` does it first). */
  handOverKept(): Promise<void> {
    return this.lock.run(() => this.handOverKeptNow());
  }

  private async handOverKeptNow(): Promise<void> {
    // a kind whose handler failed waits for the next attempt, so its messages stay in order
    const failed = new Set<string>();
    for (const { message } of await this.kept.list()) {
      const handler = this.handlers.handlerOf(message.kind);
      if (!handler || failed.has(message.kind)) continue;
      const ack = this.ackWith(() => this.kept.remove(message.checkpoint));
      try {
        await handler(message, ack);
      } catch (e) {
        failed.add(message.kind);
        this.logger.warn(`mailbox: kept ${message.kind} message at checkpoint ${message.checkpoint} not processed yet: ${errorText(e)}`);
        continue;
      }
      if (!ack.settled) await this.kept.remove(message.checkpoint);
      this.logger.info(`mailbox: kept ${message.kind} message at checkpoint ${message.checkpoint} handed to its handler`);
    }
  }

  /** `POST /wallet/sync/mailbox`: hands kept messages over, reads and processes new ones; returns the checkpoint reached. */
  sync(): Promise<bigint> {
    return this.lock.run(async () => {
      await this.handOverKeptNow();
      const mailboxId = this.keys.mailboxKey().publicKey;
      for (let page = 0; page < MAX_SYNC_PAGES; page++) {
        const checkpoint = await this.checkpoint();
        const res = await this.server.readMailbox({ mailboxId, authorization: mailboxAuthorization(this.keys, SYNC_AUTH_SECS), checkpoint });
        for (const msg of res.messages) {
          if (!(await this.process(msg))) return this.checkpoint();
        }
        if (!res.haveMore || res.messages.length === 0) break;
      }
      return this.checkpoint();
    });
  }

  /** Starts the background subscription from the stored checkpoint (no-op when running). */
  async subscribe(): Promise<void> {
    if (this.subscription) return;
    const checkpoint = await this.checkpoint();
    const sub = this.server.subscribeMailbox({
      mailboxId: this.keys.mailboxKey().publicKey,
      checkpoint,
      authorization: () => mailboxAuthorization(this.keys, SUBSCRIBE_AUTH_SECS),
      onMessage: (msg) => this.lock.run(() => this.process(msg)),
    });
    this.subscription = sub;
    void sub.done.then(() => {
      if (this.subscription === sub) this.subscription = undefined;
    });
  }

  /** Whether the subscription runs. */
  get subscribed(): boolean {
    return this.subscription !== undefined;
  }

  /** Stops the subscription. */
  async unsubscribe(): Promise<void> {
    const sub = this.subscription;
    this.subscription = undefined;
    if (sub) await sub.stop();
  }
}

function errorText(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}
