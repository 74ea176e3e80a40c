import { AsyncResource } from "node:async_hooks";
import { DeliveryBusyError } from "./errors.js";
import type { Logger } from "@tender/core";
import type { EventsConfig } from "../config.js";
import type { EventLog } from "../log/event-log.js";
import type { DeliveryRecord } from "../persistence/records.js";
import { SIGNATURE_HEADER, signatureHeader } from "./signature.js";
import type { WebhookStore } from "./webhook-store.js";

/** Due deliveries taken per run. */
const RUN_BATCH = 100;

/** The request a delivery makes (swapped in unit tests). */
export type PostFn = (url: string, init: { headers: Record<string, string>; body: string; signal: AbortSignal }) => Promise<number>;

/**
 * Splits credentials written into a URL (`https://user:pass@host/…`) off as a Basic
 * `Authorization` header: fetch refuses such URLs, and the error it gives would carry them.
 */
export function withoutCredentials(url: string): { url: string; authorization?: string } {
  const u = new URL(url);
  if (u.username === "" && u.password === "") return { url };
  const user = decodeURIComponent(u.username);
  const pass = decodeURIComponent(u.password);
  u.username = "";
  u.password = "";
  return { url: u.toString(), authorization: `Basic ${Buffer.from(`${user}:${pass}`, "utf8").toString("base64")}` };
}

/** POSTs with the platform fetch, following no redirect, and discards the answer's body. */
export const fetchPost: PostFn = async (url, init) => {
  const target = withoutCredentials(url);
  const headers = target.authorization ? { ...init.headers, authorization: target.authorization } : init.headers;
  const res = await fetch(target.url, { method: "POST", headers, body: init.body, signal: init.signal, redirect: "manual" });
  await res.body?.cancel().catch(() => undefined);
  return res.status;
};

function describe(e: unknown, timeoutMs: number): string {
  if (e instanceof Error && (e.name === "TimeoutError" || e.name === "AbortError")) return `timed out after ${timeoutMs} ms`;
  const parts: string[] = [];
  for (let c: unknown = e; c instanceof Error && parts.length < 4; c = c.cause) parts.push(c.message);
  return parts.join(": ") || String(e);
}

/**
 * Sends webhook deliveries: each due delivery is POSTed to its webhook's URL with the event's JSON,
 * signed, within a time-out; the outcome is recorded before the next delivery of that webhook.
 * A crash between the request and its record sends the delivery again after the restart (receivers
 * deduplicate by `Tender-Delivery-Id` or the event cursor).
 */
export class DeliveryWorker {
  private readonly inFlight = new Set<number>();
  private readonly outside = new AsyncResource("tender.events.deliveries");
  private running: Promise<void> | undefined;
  private again = false;

  constructor(
    private readonly store: WebhookStore,
    private readonly log: EventLog,
    private readonly cfg: EventsConfig,
    private readonly logger: Logger,
    private readonly post: PostFn = fetchPost,
    private readonly now: () => number = Date.now,
  ) {}

  /** Runs due deliveries now (coalesced with a run in progress). */
  kick(signal?: AbortSignal): Promise<void> {
    if (this.running) {
      this.again = true;
      return this.running;
    }
    this.running = this.outside.runInAsyncScope(async () => {
      try {
        do {
          this.again = false;
          await this.runDue(signal);
        } while (this.again && !signal?.aborted);
      } finally {
        this.running = undefined;
      }
    });
    return this.running;
  }

  /** Waits for a run in progress. */
  async idle(): Promise<void> {
    await this.running?.catch(() => undefined);
  }

  private async runDue(signal?: AbortSignal): Promise<void> {
    const due = await this.store.due(RUN_BATCH);
    const byHook = new Map<string, DeliveryRecord[]>();
    for (const d of due) byHook.set(d.webhookId, [...(byHook.get(d.webhookId) ?? []), d]);
    await Promise.all([...byHook.values()].map(async (list) => {
      for (const d of list) {
        if (signal?.aborted) return;
        const hook = await this.store.get(d.webhookId);
        if (!hook?.enabled) return;
        await this.attempt(d, false, signal).catch((e: unknown) => {
          if (!(e instanceof DeliveryBusyError)) this.logger.warn(`webhook ${d.webhookId} delivery ${d.id}: ${e instanceof Error ? e.message : String(e)}`);
        });
      }
    }));
  }

  /** One attempt of `delivery` (manual: asked for by the owner, whatever the webhook's state). */
  async attempt(delivery: DeliveryRecord, manual: boolean, signal?: AbortSignal): Promise<DeliveryRecord | undefined> {
    if (this.inFlight.has(delivery.id)) throw new DeliveryBusyError(`delivery ${delivery.id} is being attempted`);
    this.inFlight.add(delivery.id);
    try {
      const hook = await this.store.get(delivery.webhookId);
      if (!hook) return undefined;
      const event = await this.log.get(BigInt(delivery.eventCursor));
      const started = this.now();
      let statusCode: number | null = null;
      let error: string | null = null;
      if (!event) {
        error = "the event is no longer in the log";
      } else {
        const body = JSON.stringify(event);
        const timestamp = Math.floor(this.now() / 1000);
        const headers = {
          "content-type": "application/json",
          "user-agent": "tender-webhooks/0.1",
          [SIGNATURE_HEADER]: signatureHeader(hook.secret, timestamp, body),
          "Tender-Webhook-Id": hook.id,
          "Tender-Delivery-Id": String(delivery.id),
          "Tender-Event-Cursor": event.cursor,
          "Tender-Event-Type": event.type,
        };
        const timeout = AbortSignal.timeout(this.cfg.deliveryTimeoutMs);
        try {
          statusCode = await this.post(hook.url, { headers, body, signal: signal ? AbortSignal.any([timeout, signal]) : timeout });
        } catch (e) {
          error = describe(e, this.cfg.deliveryTimeoutMs);
        }
      }
      if (statusCode !== null && (statusCode < 200 || statusCode >= 300)) error = `answered ${statusCode}`;
      if (error) this.logger.debug(`webhook ${hook.id} delivery ${delivery.id} failed: ${error}`);
      return await this.store.recordAttempt(delivery.id, { statusCode, error, durationMs: this.now() - started, manual });
    } finally {
      this.inFlight.delete(delivery.id);
    }
  }
}
