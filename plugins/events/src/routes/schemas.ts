import { u32String, u64String, z } from "@tender/core";
import { EVENT_TYPES } from "../webhooks/webhook-json.js";

export const ErrorSchema = z.object({ message: z.string() });
export const e400 = { description: "Invalid request", schema: ErrorSchema.openapi("BadRequestError") };
export const e404 = { description: "Not found", schema: z.object({ resources: z.array(z.string()), message: z.string() }).openapi("NotFoundError") };
export const e500 = { description: "Internal server error", schema: ErrorSchema.openapi("InternalServerError") };


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

/** Documented as what they are: unsigned integers (the query text is parsed as one). */
const u64Doc = { type: "integer", format: "int64", minimum: 0 } as const;
const u32Doc = { type: "integer", format: "int32", minimum: 0 } as const;

export const EventsQuerySchema = z.object({
  after: u64String().optional().openapi({ ...u64Doc, description: "Only events with a greater cursor (default 0: from the oldest kept)" }),
  limit: u32String().optional().openapi({ ...u32Doc, description: "At most this many events (default 100; more than 1000 counts as 1000)" }),
});

/** The page size asked for: default 100, at most 1000. */
export const pageLimit = (limit: number | undefined) => Math.min(limit ?? 100, 1000);

/** Cursors beyond the largest a log can hold read as that largest one (a PostgreSQL bigint). */
export const clampCursor = (after: bigint | undefined) => {
  const max = 2n ** 63n - 1n;
  return after === undefined ? 0n : after > max ? max : after;
};

const EventTypeSchema = z.enum(EVENT_TYPES);

export const CreateWebhookSchema = z.object({
  url: z.string().openapi({ description: "Absolute http(s) URL the events are POSTed to" }),
  event_types: z.array(EventTypeSchema).optional().openapi({ description: "Event types to deliver; omitted or empty: all" }),
  description: z.string().optional().openapi({ description: "A note for the owner, at most 500 characters (longer: 400)" }),
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
export const DeliveryParams = z.object({ id: z.string(), delivery_id: u32String().openapi(u32Doc) });
export const DeliveriesQuerySchema = z.object({
  status: z.enum(["pending", "delivered", "failed"]).optional(),
  limit: EventsQuerySchema.shape.limit,
});
