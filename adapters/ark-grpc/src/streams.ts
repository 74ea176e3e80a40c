/**
 * Server streams that survive drops: bark's wallet resubscribes after every drop with back-off, and
 * never processes a message twice nor skips one.
 *
 * A {@link ResumableSubscription} (re)opens a stream, hands every item to the consumer one at a
 * time, and when the stream ends or fails waits an exponential back-off (reset whenever an item
 * is delivered) before reopening. {@link MailboxSubscription} reopens from the checkpoint of the
 * last message the consumer processed; {@link RoundSubscription} skips the replayed last event.
 */
import type { ClientReadableStream } from "@grpc/grpc-js";
import type { RoundEvent } from "./gen/bark_server.js";
import type { ReceivedMailboxMessage as MailboxMessage } from "./mailbox-codec.js";
import { Backoff, type BackoffPolicy, sleep } from "./backoff.js";
import { ArkServerError } from "./errors.js";
import { toArkServerError } from "./error-mapping.js";

/** How a subscription ended. */
export type SubscriptionEnd = { readonly reason: "stopped" } | { readonly reason: "gave-up"; readonly lastError: unknown };

/** Options of a {@link ResumableSubscription}. */
export interface ResumableSubscriptionOptions<T> {
  /** Opens a fresh stream (called for the first subscription and every resubscription). */
  readonly open: () => Promise<ClientReadableStream<T>>;
  /** gRPC method path, named in stream errors. */
  readonly method?: string | undefined;
  /**
   * Processes one item. Resolving `false` or throwing means "not processed": the stream is
   * dropped and reopened after back-off, so the item is delivered again.
   */
  readonly handle: (item: T) => Promise<boolean | void>;
  readonly backoff?: BackoffPolicy | undefined;
  /** Give up after this many consecutive drops without a processed item (default: never). */
  readonly maxReconnectsWithoutProgress?: number | undefined;
  /** Told about every drop (`err` undefined when the server ended the stream cleanly) and the wait before reopening. */
  readonly onDrop?: ((err: ArkServerError | Error | undefined, waitMs: number) => void) | undefined;
  /** Aborting stops the subscription like {@link ResumableSubscription.stop}. */
  readonly signal?: AbortSignal | undefined;
}

class NotProcessed extends Error {}

/** A stream that reopens itself after drops until stopped (or until it gives up). */
export class ResumableSubscription<T> {
  /** Resolves when the subscription ended. */
  readonly done: Promise<SubscriptionEnd>;
  private stopped = false;
  private current: ClientReadableStream<T> | undefined;
  private readonly wake = new AbortController();
  private opened = 0;

  constructor(private readonly opts: ResumableSubscriptionOptions<T>) {
    opts.signal?.addEventListener("abort", () => this.stopNow(), { once: true });
    this.done = this.run();
  }

  /** How many times a stream was opened (1 + resubscriptions). */
  get subscriptions(): number {
    return this.opened;
  }

  /** Stops the subscription and waits until it has ended. */
  async stop(): Promise<SubscriptionEnd> {
    this.stopNow();
    return this.done;
  }

  private stopNow(): void {
    this.stopped = true;
    this.wake.abort();
    this.current?.cancel();
  }

  private async run(): Promise<SubscriptionEnd> {
    const backoff = new Backoff(this.opts.backoff);
    let dropsWithoutProgress = 0;
    let lastError: unknown;
    while (!this.stopped) {
      let progressed = false;
      let failure: ArkServerError | Error | undefined;
      try {
        const stream = await this.opts.open();
        this.opened++;
        this.current = stream;
        // the iterator below surfaces errors; this keeps a late one (after cancel) from going unhandled
        stream.on("error", () => undefined);
        if (this.stopped) stream.cancel();
        for await (const item of stream as AsyncIterable<T>) {
          if (this.stopped) break;
          const ok = await this.opts.handle(item);
          if (ok === false) throw new NotProcessed("item not processed");
          progressed = true;
          backoff.reset();
        }
      } catch (e) {
        failure = e instanceof NotProcessed || e instanceof ArkServerError ? e : e instanceof Error && "code" in e ? toArkServerError(e, this.opts.method ?? "stream") : e instanceof Error ? e : new Error(String(e));
      } finally {
        this.current?.cancel();
        this.current = undefined;
      }
      if (this.stopped) break;
      lastError = failure;
      dropsWithoutProgress = progressed ? 0 : dropsWithoutProgress + 1;
      const max = this.opts.maxReconnectsWithoutProgress;
      if (max !== undefined && dropsWithoutProgress >= max) return { reason: "gave-up", lastError };
      const wait = backoff.next();
      try {
        this.opts.onDrop?.(failure, wait);
      } catch {
        // an observer's failure must not end the subscription
      }
      await sleep(wait, this.wake.signal);
    }
    return { reason: "stopped" };
  }
}

/** Options of {@link MailboxSubscription}. */
export interface MailboxSubscriptionOptions {
  /** Unblinded mailbox id (33 bytes). */
  readonly mailboxId: Uint8Array;
  /** Last processed checkpoint (0n = from the beginning). */
  readonly checkpoint: bigint;
  /** A fresh `MailboxAuthorization` for each (re)subscription (bark: valid 10 s). */
  readonly authorization: () => Uint8Array | Promise<Uint8Array>;
  /**
   * Processes one message and persists its checkpoint. Resolve `false` (or throw) when it could
   * not be processed: the checkpoint does not advance and the stream reopens from it after back-off.
   */
  readonly onMessage: (message: MailboxMessage) => Promise<boolean | void>;
  /** Opens a stream from the given checkpoint (supplied by the client). */
  readonly open: (checkpoint: bigint) => Promise<ClientReadableStream<MailboxMessage>>;
  readonly backoff?: BackoffPolicy | undefined;
  /** Default 5: after that many fruitless reconnects the server is considered down. */
  readonly maxReconnectsWithoutProgress?: number | undefined;
  readonly onDrop?: ((err: ArkServerError | Error | undefined, waitMs: number) => void) | undefined;
  readonly signal?: AbortSignal | undefined;
}

/** A mailbox subscription that resumes from the checkpoint of the last processed message. */
export class MailboxSubscription {
  private cursor: bigint;
  private readonly inner: ResumableSubscription<MailboxMessage>;

  constructor(opts: MailboxSubscriptionOptions) {
    this.cursor = opts.checkpoint;
    this.inner = new ResumableSubscription<MailboxMessage>({
      open: () => opts.open(this.cursor),
      method: "/mailbox_server.MailboxService/SubscribeMailbox",
      handle: async (msg) => {
        if (msg.checkpoint <= this.cursor) return true; // replayed after a resubscription: already processed
        const ok = await opts.onMessage(msg);
        if (ok === false) return false;
        this.cursor = msg.checkpoint;
        return true;
      },
      backoff: opts.backoff,
      maxReconnectsWithoutProgress: opts.maxReconnectsWithoutProgress ?? 5,
      onDrop: opts.onDrop,
      signal: opts.signal,
    });
  }

  /** Checkpoint of the last processed message (where the next subscription starts). */
  get checkpoint(): bigint {
    return this.cursor;
  }

  /** How many times the stream was opened. */
  get subscriptions(): number {
    return this.inner.subscriptions;
  }

  /** Resolves when the subscription ended (stopped, or gave up after repeated fruitless reconnects). */
  get done(): Promise<SubscriptionEnd> {
    return this.inner.done;
  }

  /** Stops the subscription and waits until it has ended. */
  stop(): Promise<SubscriptionEnd> {
    return this.inner.stop();
  }
}

/** Options of {@link RoundSubscription}. */
export interface RoundSubscriptionOptions {
  /** Processes one round event; resolve `false` (or throw) to have it delivered again after a resubscription. */
  readonly onEvent: (event: RoundEvent) => Promise<boolean | void>;
  readonly open: () => Promise<ClientReadableStream<RoundEvent>>;
  readonly backoff?: BackoffPolicy | undefined;
  readonly onDrop?: ((err: ArkServerError | Error | undefined, waitMs: number) => void) | undefined;
  readonly signal?: AbortSignal | undefined;
}

/**
 * Round events, resubscribed forever after drops. A new stream starts with the last event the
 * server broadcast; when that is the last event already processed it is skipped.
 */
export class RoundSubscription {
  private last: string | undefined;
  private readonly inner: ResumableSubscription<RoundEvent>;

  constructor(opts: RoundSubscriptionOptions) {
    this.inner = new ResumableSubscription<RoundEvent>({
      open: opts.open,
      method: "/bark_server.ArkService/SubscribeRounds",
      handle: async (ev) => {
        const key = roundEventKey(ev);
        if (key !== undefined && key === this.last) return true;
        const ok = await opts.onEvent(ev);
        if (ok === false) return false;
        this.last = key;
        return true;
      },
      backoff: opts.backoff,
      onDrop: opts.onDrop,
      signal: opts.signal,
    });
  }

  /** Key of the last processed event (`<kind>:<round_seq>:<attempt_seq>`). */
  get lastEvent(): string | undefined {
    return this.last;
  }

  /** How many times the stream was opened. */
  get subscriptions(): number {
    return this.inner.subscriptions;
  }

  /** Resolves when the subscription ended (round subscriptions only end when stopped). */
  get done(): Promise<SubscriptionEnd> {
    return this.inner.done;
  }

  /** Stops the subscription and waits until it has ended. */
  stop(): Promise<SubscriptionEnd> {
    return this.inner.stop();
  }
}

/** Identity of a round event for de-duplication: kind, round and attempt. */
export function roundEventKey(ev: RoundEvent): string | undefined {
  const e = ev.event;
  if (!e) return undefined;
  const attempt = "attemptSeq" in e.value ? e.value.attemptSeq : 0n;
  return `${e.$case}:${e.value.roundSeq}:${attempt}`;
}
