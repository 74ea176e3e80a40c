import { InternalServerError, UnprocessableEntityError, WalletSession, z, type RouteDefinition } from "@tender/core";
import type { NotificationBuffer } from "./notification-buffer.js";
import type { TicketStore } from "./tickets.js";
import { formatRfc3339Utc, parseRfc3339 } from "./timestamps.js";

/** Long-poll timeout (barkd: 30 s). */
export const WAIT_TIMEOUT_MS = 30_000;

const WalletNotificationSchema = z
  .union([
    z.object({ type: z.literal("movement-created"), movement: z.record(z.string(), z.unknown()) }),
    z.object({ type: z.literal("movement-updated"), movement: z.record(z.string(), z.unknown()) }),
    z.object({ type: z.literal("channel-lagging") }),
  ])
  .openapi("WalletNotification");

const WaitNotificationResponseSchema = z
  .object({ notifications: z.array(WalletNotificationSchema), last_pushed_at: z.string().nullable() })
  .openapi("WaitNotificationResponse");

const WaitQuerySchema = z.object({
  since: z.string().refine((s) => parseRfc3339(s) !== undefined, "invalid RFC 3339 date-time").optional()
    .openapi({ description: "RFC 3339 date-time; only notifications strictly later are returned", format: "date-time" }),
});

const e500 = { description: "Internal server error", schema: z.object({ message: z.string() }).openapi("InternalServerError") };

/**
 * barkd's notification routes: a single-use websocket ticket, the websocket, and the long-poll.
 * `buffer()` is the loaded wallet's buffer.
 */
export function notificationRoutes(
  tickets: TicketStore,
  session: WalletSession,
  buffer: () => NotificationBuffer | undefined,
  waitTimeoutMs = WAIT_TIMEOUT_MS,
): RouteDefinition[] {
  return [
    {
      method: "get", path: "/api/v1/notifications/ws/ticket", operationId: "websocket_ticket", tag: "notifications",
      summary: "Create a websocket ticket", auth: "handler",
      responses: { 200: { description: "A single-use ticket, valid for 10 minutes", schema: z.string() } },
      handler: () => tickets.issue(),
    },
    {
      method: "get", path: "/api/v1/notifications/ws", operationId: "websocket_handshake", tag: "notifications",
      undocumented: true, auth: "none",
      query: z.object({ ticket: z.string() }),
      responses: { 400: { description: "Not a websocket upgrade request" } },
      handler: ({ res }) => {
        res.status(400).type("text/plain; charset=utf-8").send("Connection header did not include 'upgrade'");
      },
    },
    {
      method: "get", path: "/api/v1/notifications/wait", operationId: "wait_notification", tag: "notifications",
      summary: "Long-poll for wallet notifications", auth: "handler", requiresWallet: true,
      query: WaitQuerySchema,
      responses: {
        200: { description: "Notifications newer than `since`, or none after 30 s", schema: WaitNotificationResponseSchema },
        500: e500,
      },
      handler: async ({ query }) => {
        const since = query.since === undefined ? undefined : parseRfc3339(query.since);
        const buf = buffer();
        if (!buf) throw new UnprocessableEntityError("No wallet set");
        const r = await buf.wait(since, waitTimeoutMs);
        if (r === "wallet-gone" || !session.isLoaded) throw new UnprocessableEntityError("No wallet set");
        if (r === "stopped") throw new InternalServerError("Notification manager stopped");
        if (r === "timeout") {
          return { notifications: [], last_pushed_at: since === undefined ? null : formatRfc3339Utc(since) };
        }
        return { notifications: r.map((e) => e.notification), last_pushed_at: formatRfc3339Utc(r[r.length - 1]!.at) };
      },
    },
  ];
}
