import type { DeliveryRecord, WebhookRecord } from "../persistence/records.js";

/** The event types a webhook may subscribe to. */
export const EVENT_TYPES = ["movement-created", "movement-updated"] as const;

/** A webhook as the API shows it (never with its secret, except in the creation answer). */
export interface WebhookJson {
  id: string;
  url: string;
  event_types: string[];
  description: string;
  enabled: boolean;
  consecutive_failures: number;
  disabled_reason: string | null;
  created_at: string;
}

/** One attempt of a delivery. */
export interface AttemptJson {
  at: string;
  status_code: number | null;
  error: string | null;
  duration_ms: number;
  manual: boolean;
}

/** A delivery as the API shows it. */
export interface DeliveryJson {
  id: number;
  webhook_id: string;
  event_cursor: string;
  event_type: string;
  status: "pending" | "delivered" | "failed";
  attempts: number;
  next_attempt_at: string | null;
  created_at: string;
  delivered_at: string | null;
  attempt_log: AttemptJson[];
}

const iso = (ms: bigint | number | null | undefined) => (ms == null ? null : new Date(Number(ms)).toISOString());

export function webhookJson(r: WebhookRecord): WebhookJson {
  return {
    id: r.id,
    url: r.url,
    event_types: JSON.parse(r.eventTypes) as string[],
    description: r.description,
    enabled: Boolean(r.enabled),
    consecutive_failures: r.consecutiveFailures,
    disabled_reason: r.disabledReason ?? null,
    created_at: iso(r.createdAt)!,
  };
}

export function deliveryJson(r: DeliveryRecord): DeliveryJson {
  return {
    id: r.id,
    webhook_id: r.webhookId,
    event_cursor: String(r.eventCursor),
    event_type: r.eventType,
    status: r.status as DeliveryJson["status"],
    attempts: r.attempts,
    next_attempt_at: iso(r.nextAttemptAt),
    created_at: iso(r.createdAt)!,
    delivered_at: iso(r.deliveredAt),
    attempt_log: JSON.parse(r.attemptLog) as AttemptJson[],
  };
}
