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
  constructor(private readonly logger: Logger) {}

  /** Subscribes; returns the function that unsubscribes. */
  on<T>(type: EventType<T>, handler: Handler<T>): () => void {
    let set = this.handlers.get(type.name);
    if (!set) this.handlers.set(type.name, (set = new Set()));
    set.add(handler as Handler<unknown>);
    return () => set.delete(handler as Handler<unknown>);
  }

  /** Delivers `payload` to every subscriber synchronously (async handlers are not awaited). */
  emit<T>(type: EventType<T>, payload: T): void {
    for (const h of [...(this.handlers.get(type.name) ?? [])]) {
      try {
        const r = h(payload);
        if (r instanceof Promise) r.catch((e: unknown) => this.fail(type, e));
      } catch (e) {
        this.fail(type, e);
      }
    }
  }

  private fail(type: EventType<unknown>, e: unknown): void {
    this.logger.error(`event handler for ${type.name} failed: ${e instanceof Error ? e.message : String(e)}`);
  }
}
