import type { Logger } from "../log/logger.js";

/** A typed event kind, created once with {@link defineEvent} and shared as a value. */
export interface EventType<T> {
  readonly name: string;
  /** Phantom field carrying the payload type; never set. */
  readonly __payload?: T;
}

/** Declares an event kind. The name should be `<plugin>.<event>`. */
export function defineEvent<T>(name: string): EventType<T> {
  return Object.freeze({ name });
}

type Handler<T> = (payload: T) => void | Promise<void>;

/**
 * In-process publish/subscribe. A failing handler is logged and never stops the emitter or
 * the other handlers.
 */
export class EventBus {
  private readonly handlers = new Map<string, Set<Handler<unknown>>>();
  private readonly pending = new Set<Promise<void>>();
  constructor(private readonly logger: Logger) {}

  /** Subscribes; returns the function that unsubscribes. */
  on<T>(type: EventType<T>, handler: Handler<T>): () => void {
    let set = this.handlers.get(type.name);
    if (!set) this.handlers.set(type.name, (set = new Set()));
    set.add(handler as Handler<unknown>);
    return () => set.delete(handler as Handler<unknown>);
  }

  /** Delivers `payload` to every subscriber synchronously (async handlers are not awaited; see {@link drain}). */
  emit<T>(type: EventType<T>, payload: T): void {
    void this.deliver(type, payload);
  }

  /** Delivers `payload` and waits until every subscriber, async ones included, has finished. Failures are logged. */
  emitAndWait<T>(type: EventType<T>, payload: T): Promise<void> {
    return this.deliver(type, payload);
  }

  /** Waits for every async handler still running (the kernel calls it before closing the database). */
  async drain(): Promise<void> {
    while (this.pending.size) await Promise.all([...this.pending]);
  }

  private deliver<T>(type: EventType<T>, payload: T): Promise<void> {
    const runs: Promise<void>[] = [];
    for (const h of [...(this.handlers.get(type.name) ?? [])]) {
      try {
        const r = h(payload);
        if (r instanceof Promise) {
          const p: Promise<void> = r.catch((e: unknown) => this.fail(type, e)).finally(() => this.pending.delete(p));
          this.pending.add(p);
          runs.push(p);
        }
      } catch (e) {
        this.fail(type, e);
      }
    }
    return Promise.all(runs).then(() => undefined);
  }

  private fail(type: EventType<unknown>, e: unknown): void {
    this.logger.error(`event handler for ${type.name} failed: ${e instanceof Error ? e.message : String(e)}`);
  }
}
