import type { WalletNotification } from "@tender/core";
import { monotonicMicros, type Micros } from "./timestamps.js";

/** One buffered notification with its arrival time. */
export interface BufferedNotification {
  at: Micros;
  notification: WalletNotification;
}

/** Why a waiting long-poll ended without notifications. */
export type WaitEnd = "timeout" | "wallet-gone" | "stopped";

/** How long notifications stay in the buffer (barkd: 600 s, purged when a new one arrives). */
export const RETENTION_US = 600 * 1_000_000;

/**
 * The long-poll buffer of one loaded wallet (barkd's `/notifications/wait`): every notification with its
 * arrival time, purged of entries older than 10 minutes whenever a new one arrives.
 */
export class NotificationBuffer {
  private readonly entries: BufferedNotification[] = [];
  private readonly waiters = new Set<(end?: WaitEnd) => void>();
  private readonly clock = monotonicMicros();
  private closedWith: WaitEnd | undefined;

  /** Records a notification and wakes the waiters. */
  push(notification: WalletNotification): void {
    const at = this.clock();
    const cutoff = at - RETENTION_US;
    while (this.entries.length && this.entries[0]!.at < cutoff) this.entries.shift();
    this.entries.push({ at, notification });
    for (const w of [...this.waiters]) w();
  }

  /** Entries strictly later than `since` (all when `since` is undefined), oldest first. */
  since(since: Micros | undefined): BufferedNotification[] {
    return since === undefined ? [...this.entries] : this.entries.filter((e) => e.at > since);
  }

  /**
   * Returns the entries later than `since` at once when there are any; otherwise waits for the
   * next notification, for `timeoutMs`, or for the buffer to close.
   */
  async wait(since: Micros | undefined, timeoutMs: number): Promise<BufferedNotification[] | WaitEnd> {
    if (this.closedWith) return this.closedWith;
    const ready = this.since(since);
    if (ready.length) return ready;
    return await new Promise<BufferedNotification[] | WaitEnd>((resolve) => {
      const done = (end?: WaitEnd) => {
        clearTimeout(timer);
        this.waiters.delete(done);
        resolve(end ?? this.since(since));
      };
      const timer = setTimeout(() => done("timeout"), timeoutMs);
      this.waiters.add(done);
    });
  }

  /** Ends every pending wait with `reason`; later waits answer it at once. */
  close(reason: WaitEnd): void {
    this.closedWith = reason;
    for (const w of [...this.waiters]) w(reason);
  }
}
