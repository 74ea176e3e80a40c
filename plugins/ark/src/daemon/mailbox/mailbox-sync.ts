import type { MailboxMessage, MailboxSubscription } from "@tender/ark-protocol/server";
import type { Database } from "@tender/core";
import type { ArkWallet } from "../ark-wallet.js";
import { readMailboxCheckpoint, writeMailboxCheckpoint } from "../connection/server-pins.js";
import { receiveArkoorVtxos } from "./arkoor-receiver.js";
import { mailboxAuthorization, SUBSCRIBE_AUTH_SECS, SYNC_AUTH_SECS } from "./mailbox-authorization.js";

/** Pages a sync reads at most (bark reads at most 10 pages per sync; the subscription delivers the rest). */
export const MAX_SYNC_PAGES = 10;

/**
 * The wallet's unified mailbox: `sync()` reads it (`ReadMailbox`, ≤ 10 pages) and the background
 * subscription streams it; both process messages one by one under one lock and store each
 * message's checkpoint after it was processed. A failed arkoor message stops the consumer without
 * advancing, so it is read again before anything later.
 */
export class MailboxSync {
  private tail: Promise<unknown> = Promise.resolve();
  private subscription: MailboxSubscription | undefined;

  constructor(private readonly w: ArkWallet, private readonly db: Database) {}

  private locked<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.tail.then(fn, fn);
    this.tail = run.catch(() => undefined);
    return run;
  }

  /** The stored checkpoint. */
  checkpoint(): Promise<bigint> {
    return readMailboxCheckpoint(this.db);
  }

  /** Processes one message and stores its checkpoint; false when it must be read again. */
  private async process(msg: MailboxMessage): Promise<boolean> {
    if (msg.checkpoint <= (await readMailboxCheckpoint(this.db))) return true;
    if (msg.kind === "arkoor") {
      try {
        await receiveArkoorVtxos(this.w, msg.vtxos);
      } catch (e) {
        this.w.logger.warn(`mailbox: arkoor message at checkpoint ${msg.checkpoint} not processed: ${e instanceof Error ? e.message : String(e)}`);
        return false;
      }
    }
    // other kinds belong to subsystems not in this plugin yet (rounds, lightning); they advance
    await writeMailboxCheckpoint(this.db, msg.checkpoint);
    return true;
  }

  /** `POST /wallet/sync/mailbox`: reads and processes new messages; returns the checkpoint reached. */
  sync(): Promise<bigint> {
    return this.locked(async () => {
      const mailboxId = this.w.keys.mailboxKey().publicKey;
      for (let page = 0; page < MAX_SYNC_PAGES; page++) {
        const checkpoint = await readMailboxCheckpoint(this.db);
        const res = await this.w.connection.server.readMailbox({ mailboxId, authorization: mailboxAuthorization(this.w.keys, SYNC_AUTH_SECS), checkpoint });
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
    const sub = this.w.connection.server.subscribeMailbox({
      mailboxId: this.w.keys.mailboxKey().publicKey,
      checkpoint,
      authorization: () => mailboxAuthorization(this.w.keys, SUBSCRIBE_AUTH_SECS),
      onMessage: (msg) => this.locked(() => this.process(msg)),
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
