import { randomBytes } from "node:crypto";
import { Database, LeanSql, type Logger } from "@tender/core";
import { retryDelayMs, type EventsConfig } from "../config.js";
import type { LoggedEvent } from "../log/logged-event.js";
import { DeliveryRecord, WebhookRecord } from "../persistence/records.js";
import { newWebhookSecret } from "./signature.js";
import type { AttemptJson } from "./webhook-json.js";

/** Attempts kept in a delivery's log. */
const ATTEMPT_LOG_SIZE = 20;

/** The outcome of one delivery attempt. */
export interface AttemptOutcome {
  statusCode: number | null;
  error: string | null;
  durationMs: number;
  manual: boolean;
}

/** Webhooks and their deliveries in the wallet database. */
export class WebhookStore {
  /** The enabled webhooks, read at every change the event log records: plain SQL, no unit of work. */
  private readonly webhooks: LeanSql;

  constructor(
    private readonly db: Database,
    private readonly cfg: EventsConfig,
    private readonly logger: Logger,
    private readonly now: () => number = Date.now,
  ) {
    this.webhooks = new LeanSql(db, "webhook");
  }

  /** Id and wanted event types (JSON) of every enabled webhook, through the transaction of the moment. */
  private enabled(): Promise<{ id: string; event_types: string }[]> {
    return this.webhooks.all("select id, event_types from {t} where enabled = ? order by created_at, id", [true]);
  }

  async create(url: string, eventTypes: string[], description: string): Promise<WebhookRecord> {
    const em = this.db.em();
    const r = em.create(WebhookRecord, {
      id: `wh_${randomBytes(12).toString("hex")}`,
      url,
      secret: newWebhookSecret(),
      eventTypes: JSON.stringify(eventTypes),
      description,
      enabled: true,
      consecutiveFailures: 0,
      disabledReason: null,
      createdAt: BigInt(this.now()),
    });
    await em.flush();
    return r;
  }

  list(): Promise<WebhookRecord[]> {
    return this.db.em().find(WebhookRecord, {}, { orderBy: { createdAt: "asc", id: "asc" } });
  }

  async get(id: string): Promise<WebhookRecord | undefined> {
    return (await this.db.em().findOne(WebhookRecord, { id })) ?? undefined;
  }

  /** Deletes a webhook and its delivery log; false when there is no such webhook. */
  async delete(id: string): Promise<boolean> {
    return this.db.transaction(async () => {
      const em = this.db.em();
      const n = await em.nativeDelete(WebhookRecord, { id });
      await em.nativeDelete(DeliveryRecord, { webhookId: id });
      return n > 0;
    });
  }

  /** Enables a webhook again and clears its failure count. */
  async enable(id: string): Promise<WebhookRecord | undefined> {
    const em = this.db.em();
    const r = await em.findOne(WebhookRecord, { id });
    if (!r) return undefined;
    r.enabled = true;
    r.consecutiveFailures = 0;
    r.disabledReason = null;
    await em.flush();
    return r;
  }

  /**
   * Creates the deliveries of freshly sequenced events for every enabled webhook that wants their
   * type (called in the sequencing transaction, so an event and its deliveries appear together).
   */
  async enqueue(events: LoggedEvent[]): Promise<number> {
    const hooks = await this.enabled();
    if (hooks.length === 0) return 0;
    const em = this.db.em();
    let n = 0;
    const t = BigInt(this.now());
    for (const e of events) {
      for (const h of hooks) {
        const types = JSON.parse(h.event_types) as string[];
        if (types.length && !types.includes(e.type)) continue;
        em.create(DeliveryRecord, {
          webhookId: h.id, eventCursor: BigInt(e.cursor), eventType: e.type, status: "pending", attempts: 0,
          nextAttemptAt: t, attemptLog: "[]", createdAt: t, deliveredAt: null,
        });
        n++;
      }
    }
    if (n) await em.flush();
    return n;
  }

  /** Pending deliveries whose next attempt is due, of enabled webhooks, oldest first. */
  async due(limit: number): Promise<DeliveryRecord[]> {
    const enabled = new Set((await this.enabled()).map((w) => w.id));
    if (!enabled.size) return [];
    const em = this.db.em();
    return em.find(DeliveryRecord, { status: "pending", nextAttemptAt: { $lte: BigInt(this.now()) }, webhookId: { $in: [...enabled] } },
      { orderBy: { id: "asc" }, limit });
  }

  async delivery(webhookId: string, id: number): Promise<DeliveryRecord | undefined> {
    return (await this.db.em().findOne(DeliveryRecord, { id, webhookId })) ?? undefined;
  }

  /** A webhook's deliveries, newest first. */
  deliveries(webhookId: string, limit: number, status?: string): Promise<DeliveryRecord[]> {
    return this.db.em().find(DeliveryRecord, { webhookId, ...(status ? { status } : {}) }, { orderBy: { id: "desc" }, limit });
  }

  /**
   * Records an attempt, in one transaction with the webhook's failure count: a 2xx answer delivers;
   * a failed automatic attempt schedules the next one after the back-off, or marks the delivery
   * failed after the last attempt; enough consecutive failures disable the webhook. A failed manual
   * attempt leaves the delivery's schedule as it was.
   */
  async recordAttempt(deliveryId: number, outcome: AttemptOutcome): Promise<DeliveryRecord | undefined> {
    return this.db.transaction(async () => {
      const em = this.db.em();
      const d = await em.findOne(DeliveryRecord, { id: deliveryId });
      if (!d) return undefined;
      const w = await em.findOne(WebhookRecord, { id: d.webhookId });
      const t = this.now();
      const ok = outcome.statusCode !== null && outcome.statusCode >= 200 && outcome.statusCode < 300;
      const entry: AttemptJson = {
        at: new Date(t).toISOString(), status_code: outcome.statusCode, error: outcome.error, duration_ms: outcome.durationMs, manual: outcome.manual,
      };
      d.attemptLog = JSON.stringify([...(JSON.parse(d.attemptLog) as AttemptJson[]), entry].slice(-ATTEMPT_LOG_SIZE));
      d.attempts += 1;
      if (ok) {
        d.status = "delivered";
        d.deliveredAt = BigInt(t);
        d.nextAttemptAt = null;
        if (w) w.consecutiveFailures = 0;
      } else {
        if (!outcome.manual && d.status === "pending") {
          if (d.attempts >= this.cfg.maxAttempts) {
            d.status = "failed";
            d.nextAttemptAt = null;
          } else {
            d.nextAttemptAt = BigInt(t + retryDelayMs(this.cfg, d.attempts));
          }
        }
        if (w) {
          w.consecutiveFailures += 1;
          if (w.enabled && w.consecutiveFailures >= this.cfg.disableAfterFailures) {
            w.enabled = false;
            w.disabledReason = `disabled after ${w.consecutiveFailures} consecutive failed delivery attempts`;
            this.logger.warn(`webhook ${w.id} disabled after ${w.consecutiveFailures} consecutive failed delivery attempts`);
          }
        }
      }
      await em.flush();
      return d;
    });
  }

  /** Deletes delivered and failed deliveries created before `cutoffMs`. */
  prune(cutoffMs: number): Promise<number> {
    return this.db.em().nativeDelete(DeliveryRecord, { createdAt: { $lt: BigInt(cutoffMs) }, status: { $in: ["delivered", "failed"] } });
  }
}
