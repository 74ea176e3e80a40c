import { AsyncLock, type Database, type Logger } from "@tender/core";
import type { ArkServer, MailboxMessage, MailboxSubscription } from "@tender/ark-protocol/server";
import type { ArkKeys } from "../keys/ark-keys.js";
import { readMailboxCheckpoint, writeMailboxCheckpoint } from "../connection/server-pins.js";
import { mailboxAuthorization, SUBSCRIBE_AUTH_SECS, SYNC_AUTH_SECS } from "./mailbox-authorization.js";

/** Pages a sync reads at most (bark reads at most 10 pages per sync; the subscription delivers the rest). */
export const MAX_SYNC_PAGES = 10;

/** Processes one message; resolves `false` (or throws) when it must be read again later. */
export type MailboxProcessor = (message: MailboxMessage) => Promise<boolean>;

/**
 * The loaded wallet's unified mailbox (the wallet service `ArkMailboxService`): `sync()` reads it
 * (`ReadMailbox`, at most 10 pages) and the background subscription streams it; both hand messages
 * one by one, under one lock, to the processor, and store each message's checkpoint after it was
 * processed. A message that could not be processed stops the consumer without advancing, so it is
 * read again before anything later. Disposing of it stops the subscription (waiting for a message
 * being processed).
 */
export class MailboxSync {
  private readonly lock = new AsyncLock();
  private subscription: MailboxSubscription | undefined;

  constructor(
    private readonly server: ArkServer,
    private readonly keys: ArkKeys,
    private readonly db: Database,
    private readonly logger: Logger,
    private readonly processor: MailboxProcessor,
  ) {}

  /** The stored checkpoint. */
  checkpoint(): Promise<bigint> {
    return readMailboxCheckpoint(this.db);
  }

  /** Processes one message and stores its checkpoint; false when it must be read again. */
  private async process(msg: MailboxMessage): Promise<boolean> {
    if (msg.checkpoint <= (await readMailboxCheckpoint(this.db))) return true;
    try {
      if (!(await this.processor(msg))) return false;
    } catch (e) {
      this.logger.warn(`mailbox: ${msg.kind} message at checkpoint ${msg.checkpoint} not processed: ${e instanceof Error ? e.message : String(e)}`);
      return false;
    }
    await writeMailboxCheckpoint(this.db, msg.checkpoint);
    return true;
  }

  /** `POST /wallet/sync/mailbox`: reads and processes new messages; returns the checkpoint reached. */
  sync(): Promise<bigint> {
    return this.lock.run(async () => {
      const mailboxId = this.keys.mailboxKey().publicKey;
      for (let page = 0; page < MAX_SYNC_PAGES; page++) {
        const checkpoint = await readMailboxCheckpoint(this.db);
        const res = await this.server.readMailbox({ mailboxId, authorization: mailboxAuthorization(this.keys, SYNC_AUTH_SECS), checkpoint });
        for (const msg of res.messages) {
          if (!(await this.process(msg))) return readMailboxCheckpoint(this.db);
        }
        if (!res.haveMore || res.messages.length === 0) break;
      }
      return readMailboxCheckpoint(this.db);
    });
  }

  /** Starts the background subscription from the stored checkpoint (no-op when running). */
  async subscribe(): Promise<void> {
    if (this.subscription) return;
    const checkpoint = await readMailboxCheckpoint(this.db);
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
