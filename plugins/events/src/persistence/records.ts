import { Entity, PrimaryKey, Property } from "@mikro-orm/decorators/legacy";

/**
 * One row of the `event_log` table. A row is written with `cursor` null (in the transaction of the
 * change it records) and gets its cursor later, in commit order, from the sequencer; only rows with
 * a cursor are visible to readers.
 */
@Entity({ tableName: "event_log" })
export class EventRecord {
  @PrimaryKey({ type: "integer" })
  id!: number;

  @Property({ type: "bigint", nullable: true })
  cursor?: bigint | null;

  @Property({ type: "string" })
  type!: string;

  /** Epoch milliseconds when the change was recorded. */
  @Property({ type: "bigint", fieldName: "created_at" })
  createdAt!: bigint;

  /** The notification's JSON (barkd's `WalletNotification`). */
  @Property({ type: "text" })
  payload!: string;
}

/** One row of the `webhook` table: an owner-registered URL and its signing secret. */
@Entity({ tableName: "webhook" })
export class WebhookRecord {
  @PrimaryKey({ type: "string" })
  id!: string;

  @Property({ type: "text" })
  url!: string;

  /** The HMAC key (shown once at creation, kept to sign every delivery). */
  @Property({ type: "string" })
  secret!: string;

  /** JSON array of event types; empty means every type. */
  @Property({ type: "text", fieldName: "event_types" })
  eventTypes!: string;

  @Property({ type: "text" })
  description!: string;

  @Property({ type: "boolean" })
  enabled!: boolean;

  @Property({ type: "integer", fieldName: "consecutive_failures" })
  consecutiveFailures!: number;

  @Property({ type: "text", fieldName: "disabled_reason", nullable: true })
  disabledReason?: string | null;

  @Property({ type: "bigint", fieldName: "created_at" })
  createdAt!: bigint;
}

/** One row of the `webhook_delivery` table: one event for one webhook, with its attempts. */
@Entity({ tableName: "webhook_delivery" })
export class DeliveryRecord {
  @PrimaryKey({ type: "integer" })
  id!: number;

  @Property({ type: "string", fieldName: "webhook_id" })
  webhookId!: string;

  @Property({ type: "bigint", fieldName: "event_cursor" })
  eventCursor!: bigint;

  @Property({ type: "string", fieldName: "event_type" })
  eventType!: string;

  /** `pending`, `delivered` or `failed` (gave up after the last attempt). */
  @Property({ type: "string" })
  status!: string;

  @Property({ type: "integer" })
  attempts!: number;

  /** Epoch milliseconds of the next automatic attempt (null once delivered or failed). */
  @Property({ type: "bigint", fieldName: "next_attempt_at", nullable: true })
  nextAttemptAt?: bigint | null;

  /** JSON array of the latest attempts: `{ at, status_code, error, duration_ms, manual }`. */
  @Property({ type: "text", fieldName: "attempt_log" })
  attemptLog!: string;

  @Property({ type: "bigint", fieldName: "created_at" })
  createdAt!: bigint;

  @Property({ type: "bigint", fieldName: "delivered_at", nullable: true })
  deliveredAt?: bigint | null;
}

export const EVENTS_ENTITIES = [EventRecord, WebhookRecord, DeliveryRecord];
