import { InternalServerError, UnprocessableEntityError, WalletSession, currentPrincipal, u64String, z, type RouteDefinition } from "@tender/core";
import type { EventLogReader, LoggedEvent } from "@tender/plugin-events";
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
  .object({
    notifications: z.array(WalletNotificationSchema),
    last_pushed_at: z.string().nullable(),
    last_cursor: z.string().optional().openapi({
      description: "tender extension, only with `after`: the cursor of the last returned notification (or `after` when none); pass it as the next `after`",
    }),
  })
  .openapi("WaitNotificationResponse");

const WaitQuerySchema = z.object({
  since: z.string().refine((s) => parseRfc3339(s) !== undefined, "invalid RFC 3339 date-time").optional()
    .openapi({ description: "RFC 3339 date-time; only notifications strictly later are returned", format: "date-time" }),
});

const AfterSchema = u64String().optional().openapi({
  type: "integer", format: "int64", minimum: 0,
  description: "tender extension: an event-log cursor; returns the notifications logged after it (across restarts), " +
    "at once when there are any, otherwise waits for the next. Takes precedence over `since`.",
});

/** How many logged notifications one long-poll answer carries at most. */
const WAIT_BATCH = 1000;

/** Logged events after `after`: at once when there are any, else the next batch, else none after `timeoutMs`. */
async function waitForLogged(log: EventLogReader, after: bigint, timeoutMs: number): Promise<LoggedEvent[]> {
  return new Promise<LoggedEvent[]>((resolve, reject) => {
    let done = false;
    const finish = (events: LoggedEvent[]) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      off();
      resolve(events);
    };
    // subscribe before reading: an event made visible in between is seen by one or the other
    const off = log.subscribe((batch) => {
      const mine = batch.filter((e) => BigInt(e.cursor) > after);
      if (mine.length) finish(mine);
    });
    const timer = setTimeout(() => finish([]), timeoutMs);
    log.read(after, WAIT_BATCH).then((ready) => { if (ready.length) finish(ready); }, (e: unknown) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      off();
      reject(e instanceof Error ? e : new Error(String(e)));
    });
  });
}

const e500 = { description: "Internal server error", schema: z.object({ message: z.string() }).openapi("InternalServerError") };

/**
 * barkd's notification routes: a single-use websocket ticket, the websocket, and the long-poll.
 * `buffer()` is the loaded wallet's buffer. With the event log (`log`), the long-poll also accepts
 * tender's `after` cursor.
 */
export function notificationRoutes(
  tickets: TicketStore,
  session: WalletSession,
  buffer: () => NotificationBuffer | undefined,
  waitTimeoutMs = WAIT_TIMEOUT_MS,
  log?: EventLogReader,
): RouteDefinition[] {
  const query = log ? WaitQuerySchema.extend({ after: AfterSchema }) : WaitQuerySchema;
  return [
    {
      method: "get", path: "/api/v1/notifications/ws/ticket", operationId: "websocket_ticket", tag: "notifications",
      summary: "Create a websocket ticket", auth: "handler",
      responses: { 200: { description: "A single-use ticket, valid for 10 minutes", schema: z.string() } },
      handler: () => {
        // a key's ticket remembers the key, so its websocket closes when the key is revoked or expires
        const p = currentPrincipal();
        return tickets.issue(p?.kind === "key" ? { keyId: p.key.id, ...(p.key.expiresAt !== undefined ? { expiresAt: p.key.expiresAt } : {}) } : undefined);
      },
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
      query,
      responses: {
        200: { description: "Notifications newer than `since`, or none after 30 s", schema: WaitNotificationResponseSchema },
        500: e500,
      },
      handler: async ({ query }) => {
        const asked = (query as { after?: bigint }).after;
        // cursors beyond the largest a log can hold (a PostgreSQL bigint) read as that one
        const after = asked === undefined ? undefined : asked > 2n ** 63n - 1n ? 2n ** 63n - 1n : asked;
        if (log && after !== undefined) {
          if (!session.isLoaded) throw new UnprocessableEntityError("No wallet set");
          const events = await waitForLogged(log, after, waitTimeoutMs);
          if (!session.isLoaded) throw new UnprocessableEntityError("No wallet set");
          const last = events[events.length - 1];
          return {
            notifications: events.map((e) => e.payload),
            last_pushed_at: last ? formatRfc3339Utc(Date.parse(last.time) * 1000) : null,
            last_cursor: last ? last.cursor : String(after),
          };
        }
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
