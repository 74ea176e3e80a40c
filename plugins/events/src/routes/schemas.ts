import { z } from "@tender/core";
import { EVENT_TYPES } from "../webhooks/webhook-json.js";

export const ErrorSchema = z.object({ message: z.string() });
export const e400 = { description: "Invalid request", schema: ErrorSchema.openapi("BadRequestError") };
export const e404 = { description: "Not found", schema: z.object({ resources: z.array(z.string()), message: z.string() }).openapi("NotFoundError") };
export const e500 = { description: "Internal server error", schema: ErrorSchema.openapi("InternalServerError") };

const CursorText = z.string().regex(/^(0|[1-9][0-9]{0,18})$/, "a cursor is a non-negative decimal integer");

export const LoggedEventSchema = z.object({
  cursor: z.string().openapi({ description: "Position in the log (decimal); pass it as `after` to read what follows" }),
  type: z.string().openapi({ description: "`movement-created` or `movement-updated`" }),
  time: z.string().openapi({ description: "When the change was recorded (RFC 3339, UTC)", format: "date-time" }),
  payload: z.record(z.string(), z.unknown()).openapi({ description: "barkd's WalletNotification for the change" }),
}).openapi("LoggedEvent");

export const EventPageSchema = z.object({
  events: z.array(LoggedEventSchema),
  next_cursor: z.string().openapi({ description: "The cursor to pass as `after` next time (the last event's, or `after` when none)" }),
  has_more: z.boolean().openapi({ description: "More events follow beyond `limit`" }),
}).openapi("EventPage");

export const EventsQuerySchema = z.object({
  after: CursorText.optional().openapi({ description: "Only events with a greater cursor (default 0: from the oldest kept)" }),
  limit: z.string().regex(/^[1-9][0-9]{0,3}$/, "limit is 1 to 1000").refine((s) => Number(s) <= 1000, "limit is 1 to 1000").optional()
    .openapi({ description: "At most this many events (1–1000, default 100)" }),
});

const EventTypeSchema = z.enum(EVENT_TYPES);

export const CreateWebhookSchema = z.object({
  url: z.string().openapi({ description: "Absolute http(s) URL the events are POSTed to" }),
  event_types: z.array(EventTypeSchema).optional().openapi({ description: "Event types to deliver; omitted or empty: all" }),
  description: z.string().max(500).optional(),
}).openapi("CreateWebhookRequest");

export const WebhookSchema = z.object({
  id: z.string(),
  url: z.string(),
  event_types: z.array(z.string()),
  description: z.string(),
  enabled: z.boolean(),
  consecutive_failures: z.number().int(),
  disabled_reason: z.string().nullable(),
  created_at: z.string().openapi({ format: "date-time" }),
}).openapi("Webhook");

export const CreatedWebhookSchema = WebhookSchema.extend({
  secret: z.string().openapi({ description: "The signing secret; shown only in this answer" }),
}).openapi("CreatedWebhook");

export const DeliverySchema = z.object({
  id: z.number().int(),
  webhook_id: z.string(),
  event_cursor: z.string(),
  event_type: z.string(),
  status: z.enum(["pending", "delivered", "failed"]),
  attempts: z.number().int(),
  next_attempt_at: z.string().nullable().openapi({ format: "date-time" }),
  created_at: z.string().openapi({ format: "date-time" }),
  delivered_at: z.string().nullable().openapi({ format: "date-time" }),
  attempt_log: z.array(z.object({
    at: z.string().openapi({ format: "date-time" }),
    status_code: z.number().int().nullable(),
    error: z.string().nullable(),
    duration_ms: z.number().int(),
    manual: z.boolean(),
  })).openapi({ description: "The latest attempts, oldest first" }),
}).openapi("WebhookDelivery");

export const WebhookIdParams = z.object({ id: z.string() });
export const DeliveryParams = z.object({ id: z.string(), delivery_id: z.string().regex(/^[1-9][0-9]{0,9}$/, "a delivery id is a positive integer") });
export const DeliveriesQuerySchema = z.object({
  status: z.enum(["pending", "delivered", "failed"]).optional(),
  limit: EventsQuerySchema.shape.limit,
});
