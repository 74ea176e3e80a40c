/**
 * The round event channel: a broadcast to every subscriber plus a "last event" slot.
 * A new subscriber gets the last event first, then live events. A subscriber that falls more
 * than {@link MAX_QUEUED_EVENTS} behind skips the oldest ones and catches up from the next.
 *
 * The slot always holds the latest event, so after an empty round (attempt → failed) a new
 * subscriber sees `failed`, never the stale attempt; a later round's attempt replaces it.
 */
import type { RoundEvent } from "@tender/ark-protocol/server";

/** Events a slow subscriber may have queued before the oldest are dropped. */
export const MAX_QUEUED_EVENTS = 64;

interface Subscriber {
  queue: RoundEvent[];
  wake: (() => void) | null;
}

/** Broadcast channel of round events. */
export class RoundEventChannel {
  private last: RoundEvent | undefined;
  private readonly subscribers = new Set<Subscriber>();
  private closed = false;

  /** The last event broadcast, if any. */
  get lastEvent(): RoundEvent | undefined {
    return this.last;
  }

  /** Sends `event` to every subscriber and keeps it as the last event. */
  publish(event: RoundEvent): void {
    this.last = event;
    for (const s of this.subscribers) {
      s.queue.push(event);
      if (s.queue.length > MAX_QUEUED_EVENTS) s.queue.shift();
      s.wake?.();
    }
  }

  /** Ends every subscription (server shutdown). */
  close(): void {
    this.closed = true;
    for (const s of this.subscribers) s.wake?.();
  }

  /** The last event (if any), then live events until `signal` aborts or the channel closes. */
  async *subscribe(signal?: AbortSignal): AsyncGenerator<RoundEvent> {
    const sub: Subscriber = { queue: this.last ? [this.last] : [], wake: null };
    this.subscribers.add(sub);
    const onAbort = () => sub.wake?.();
    signal?.addEventListener("abort", onAbort);
    try {
      while (!this.closed && !signal?.aborted) {
        const next = sub.queue.shift();
        if (next) {
          yield next;
          continue;
        }
        await new Promise<void>((resolve) => {
          sub.wake = () => {
            sub.wake = null;
            resolve();
          };
        });
      }
    } finally {
      signal?.removeEventListener("abort", onAbort);
      this.subscribers.delete(sub);
    }
  }
}
