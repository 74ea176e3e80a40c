import type { RouteDefinition } from "@tender/core";
import type { EventLog } from "../log/event-log.js";
import { EventPageSchema, EventsQuerySchema, clampCursor, e400, e500, pageLimit } from "./schemas.js";

/** `GET /api/v1/events`: replays the log after a cursor. */
export function eventRoutes(log: EventLog): RouteDefinition[] {
  return [{
    method: "get", path: "/api/v1/events", operationId: "list_events", tag: "events", requiresWallet: true,
    summary: "Replay the durable event log after a cursor (tender extension)",
    description: "Every movement notification, in cursor order, kept for the configured retention (default 30 days) across restarts.",
    query: EventsQuerySchema,
    responses: { 200: { description: "Events after `after`, oldest first", schema: EventPageSchema }, 400: e400, 500: e500 },
    handler: async ({ query }) => {
      const after = clampCursor(query.after);
      const limit = pageLimit(query.limit);
      const rows = await log.read(after, limit + 1);
      const events = rows.slice(0, limit);
      return { events, next_cursor: events.length ? events[events.length - 1]!.cursor : String(after), has_more: rows.length > limit };
    },
  }];
}
