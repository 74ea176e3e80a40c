import { AsyncResource } from "node:async_hooks";
import { AsyncLock, Database, LeanSql, type Logger, type WalletNotification } from "@tender/core";
import { EventRecord } from "../persistence/records.js";
import { loggedEvent, loggedEventOfRow, type LoggedEventRow, type LoggedEvent } from "./logged-event.js";

/** Rows given cursors per sequencing transaction. */
const SEQUENCE_BATCH = 500;

/** Work done in the sequencing transaction for the events it made visible (webhook deliveries). */
export type SequencedHook = (events: LoggedEvent[]) => Promise<void>;

/**
 * The durable event log of the loaded wallet.
 *
 * Writing: {@link journal} inserts a row through `Database.em()`, so inside the transaction that
 * persists a change the row commits or rolls back with it. Cursors follow the order in which
 * events became visible, so a reader that saw cursor N never later finds an event below N:
 * - on SQLite one transaction commits at a time (one connection, one writer), so the row gets the
 *   next cursor right there, and the sequenced hooks (webhook deliveries) run in that same
 *   transaction: no transaction of its own per change;
 * - on PostgreSQL, where concurrent transactions commit in any order, the row is written without a
 *   cursor and a single sequencer ({@link sequence}) gives committed rows the next cursors in one
 *   transaction; only then are they visible.
 * Subscribers hear of visible events in cursor order after each commit: on SQLite the events this
 * process journaled are told from memory once the log's newest cursor shows they committed (no
 * read of the rows back: two reads a change, on every payment's path), else read from the log.
 */
export class EventLog {
  private readonly listeners = new Set<(events: LoggedEvent[]) => void>();
  private readonly hooks: SequencedHook[] = [];
  private readonly lock = new AsyncLock();
  /** The context of plugin registration: woken work runs there, never inside a caller's transaction. */
  private readonly outside = new AsyncResource("tender.events.log");
  private readonly running = new Set<Promise<unknown>>();
  private readonly journaled = new WeakSet<object>();
  private woken = false;
  private awaitingCommit = 0;
  /** The highest cursor subscribers were told of (undefined until the first publication reads it). */
  private published: bigint | undefined;
  /**
   * SQLite: the events journaled by this process and not yet told, by cursor. One whose
   * transaction rolled back stays until its cursor is given again (the next journal overwrites
   * it) or told past: only cursors up to the log's newest are ever told.
   */
  private readonly journaledEvents = new Map<bigint, LoggedEvent>();
  /**
   * SQLite: no row without a cursor was found since the wallet's log was first sequenced. Rows
   * get their cursor in their own transaction there; only an earlier version left rows without
   * one, and they are found by the first run (at wallet load).
   */
  private cursorsComplete = false;

  /** The rows written and read on every change, in plain SQL (no unit of work on a payment's path). */
  private readonly rows: LeanSql;

  constructor(private readonly db: Database, private readonly logger: Logger, private readonly now: () => number = Date.now) {
    this.rows = new LeanSql(db, "event_log");
  }

  /** Records `notification` through the transaction of the moment (the caller's, if any). */
  async journal(notification: WalletNotification): Promise<void> {
    const createdAt = this.now();
    const payload = JSON.stringify(notification);
    if (this.db.dialect === "sqlite") {
      // sequenced in the writing transaction (joined, or its own when there is none)
      await this.db.transaction(async () => {
        await this.watermark();
        const cursor = (await this.lastCursor()) + 1n;
        await this.rows.run("insert into {t} (cursor, type, created_at, payload) values (?, ?, ?, ?)", [cursor, notification.type, createdAt, payload]);
        const events = [loggedEventOfRow({ cursor, type: notification.type, created_at: createdAt, payload })];
        this.journaledEvents.set(cursor, events[0]!);
        for (const hook of this.hooks) await hook(events);
      });
    } else {
      await this.rows.run("insert into {t} (cursor, type, created_at, payload) values (null, ?, ?, ?)", [notification.type, createdAt, payload]);
    }
    this.journaled.add(notification);
    this.awaitingCommit++;
  }

  /**
   * A notification seen on the event bus: one already journaled in its change's transaction only
   * wakes the sequencer; any other (a plugin that raises notifications without the movement store)
   * is appended now, in its own transaction, outside of whatever transaction raised it.
   */
  observe(notification: WalletNotification): void {
    if (this.journaled.has(notification)) return this.wake();
    if (notification.type === "channel-lagging") return;
    this.spawn(async () => {
      if (!this.db.isOpen) return;
      await this.db.transaction(() => this.journal(notification));
      await this.sequence();
    });
  }

  /** A database transaction committed: sequence soon if a journaled row may be waiting for it. */
  committed(): void {
    if (this.awaitingCommit === 0) return;
    this.awaitingCommit = 0;
    this.wake();
  }

  /** Schedules a sequencing run (coalesced), outside of any caller's transaction. */
  wake(): void {
    if (this.woken) return;
    this.woken = true;
    this.spawn(async () => {
      await new Promise((r) => setImmediate(r));
      this.woken = false;
      await this.sequence();
    });
  }

  /** Work woken by a caller: run in the registration context and tracked for {@link idle}. */
  private spawn(work: () => Promise<void>): void {
    const p: Promise<void> = this.outside.runInAsyncScope(() => work())
      .catch((e: unknown) => {
        if (this.db.isOpen) this.logger.warn(`event log: ${e instanceof Error ? e.message : String(e)}`);
      })
      .finally(() => this.running.delete(p));
    this.running.add(p);
  }

  /** Waits for woken work to end (before the database closes). */
  async idle(): Promise<void> {
    while (this.running.size) await Promise.allSettled([...this.running]);
    await this.lock.run(async () => undefined);
  }

  /** Adds work to the sequencing transaction (it sees the events it made visible). */
  onSequenced(hook: SequencedHook): void {
    this.hooks.push(hook);
  }

  /** Subscribes to events as they become visible, in cursor order; returns the unsubscribe function. */
  subscribe(listener: (events: LoggedEvent[]) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /**
   * Gives every committed unsequenced row its cursor (PostgreSQL's rows; on SQLite only rows an
   * earlier version left without one), then tells subscribers of every event that became visible
   * since they last heard, in cursor order. Returns the events it gave cursors to.
   */
  async sequence(): Promise<LoggedEvent[]> {
    return this.lock.run(async () => {
      const all: LoggedEvent[] = [];
      if (this.db.isOpen) await this.watermark();
      for (;;) {
        if (!this.db.isOpen) return all;
        if (this.cursorsComplete) break;
        // a plain read first: on SQLite there is nearly never a row to sequence, and no transaction is needed to see that
        if ((await this.rows.all("select id from {t} where cursor is null limit 1")).length === 0) {
          this.cursorsComplete = this.db.dialect === "sqlite";
          break;
        }
        const batch = await this.db.transaction(async () => {
          const em = this.db.em();
          const rows = await em.find(EventRecord, { cursor: null }, { orderBy: { id: "asc" }, limit: SEQUENCE_BATCH });
          if (!rows.length) return [];
          let next = await this.lastCursor();
          for (const r of rows) r.cursor = ++next;
          await em.flush();
          const events = rows.map(loggedEvent);
          // a journaled event whose transaction rolled back may have held one of these cursors: these rows are read
          for (const e of events) this.journaledEvents.delete(BigInt(e.cursor));
          for (const hook of this.hooks) await hook(events);
          return events;
        });
        all.push(...batch);
        if (batch.length < SEQUENCE_BATCH) break;
      }
      await this.publish();
      return all;
    });
  }

  /**
   * Subscribers hear of the events that become visible after this wallet's log is first used in
   * this process: the newest cursor then is where they start. Read before the first row is
   * written or sequenced (inside a transaction it sees the rows committed before it).
   */
  private async watermark(): Promise<bigint> {
    if (this.published !== undefined) return this.published;
    const last = await this.lastCursor();
    // someone else may have set it meanwhile (and published beyond it): theirs stands
    this.published ??= last;
    return this.published;
  }

  /** Forgets where subscribers are (another wallet's log, or none, comes next). */
  reset(): void {
    this.published = undefined;
    this.journaledEvents.clear();
    this.cursorsComplete = false;
  }

  /** Tells subscribers of the events visible beyond the last cursor they heard of, oldest first. */
  private async publish(): Promise<void> {
    if (!this.db.isOpen) return;
    await this.watermark();
    for (;;) {
      const batch = await this.visibleAfter(this.published!);
      if (!batch.length) return;
      this.published = BigInt(batch.at(-1)!.cursor);
      for (const c of this.journaledEvents.keys()) if (c <= this.published) this.journaledEvents.delete(c);
      for (const l of [...this.listeners]) {
        try {
          l(batch);
        } catch (e) {
          this.logger.warn(`event log listener failed: ${e instanceof Error ? e.message : String(e)}`);
        }
      }
      if (batch.length < SEQUENCE_BATCH) return;
    }
  }

  /**
   * The visible events beyond cursor `after`, oldest first, at most {@link SEQUENCE_BATCH}. On
   * SQLite cursors are given one transaction at a time as the newest + 1, so every cursor up to the
   * newest visible one was last given by the transaction that committed it: when this process
   * journaled each of them, they are told from memory; any gap (a row of another writer) is read.
   * Once the first run found every row with a cursor and every event journaled since was told,
   * there is nothing to look for (the periodic run of an idle daemon reads nothing).
   */
  private async visibleAfter(after: bigint): Promise<LoggedEvent[]> {
    if (this.db.dialect === "sqlite") {
      // every row since the first run was journaled here, and all of them were told: nothing to read
      if (this.cursorsComplete && this.journaledEvents.size === 0) return [];
      const newest = await this.lastCursor();
      if (newest <= after) return [];
      const known: LoggedEvent[] = [];
      for (let c = after + 1n; c <= newest && known.length < SEQUENCE_BATCH; c++) {
        const e = this.journaledEvents.get(c);
        if (!e) break;
        known.push(e);
      }
      if (known.length === Number(newest - after) || known.length === SEQUENCE_BATCH) return known;
    }
    return this.read(after, SEQUENCE_BATCH);
  }

  /** The newest cursor given out (0 for an empty log), read through the transaction of the moment (the cursor's unique index answers it). */
  private async lastCursor(): Promise<bigint> {
    const [row] = await this.rows.all<{ c: unknown }>("select max(cursor) as c from {t}");
    return row?.c == null ? 0n : BigInt(row.c as string | number | bigint);
  }

  /** Events with a cursor greater than `after`, oldest first, at most `limit`. */
  async read(after: bigint, limit: number): Promise<LoggedEvent[]> {
    const rows = await this.rows.all<LoggedEventRow>("select cursor, type, created_at, payload from {t} where cursor > ? order by cursor asc limit ?", [String(after), limit]);
    return rows.map(loggedEventOfRow);
  }

  /** One event by its cursor. */
  async get(cursor: bigint): Promise<LoggedEvent | undefined> {
    const r = await this.db.em().findOne(EventRecord, { cursor });
    return r ? loggedEvent(r) : undefined;
  }

  /** The newest cursor ("0" for an empty log). */
  async latest(): Promise<bigint> {
    return this.lastCursor();
  }

  /**
   * Deletes sequenced events recorded before `cutoffMs`, except the newest event (it keeps the cursor
   * counting up, so a pruned log never hands out a cursor again). Returns how many were deleted.
   */
  async prune(cutoffMs: number): Promise<number> {
    return this.lock.run(async () => {
      const em = this.db.em();
      const newest = await this.lastCursor();
      return em.nativeDelete(EventRecord, { createdAt: { $lt: BigInt(cutoffMs) }, cursor: { $ne: null, $lt: newest } });
    });
  }
}
