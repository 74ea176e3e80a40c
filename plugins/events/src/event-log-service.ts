import { defineService } from "@tender/core";
import type { LoggedEvent } from "./log/logged-event.js";

/** What other plugins (the notifications plugin's websocket and long-poll) read from the event log. */
export interface EventLogReader {
  /** Events with a cursor greater than `after`, oldest first, at most `limit`. */
  read(after: bigint, limit: number): Promise<LoggedEvent[]>;
  /** The newest cursor (0 for an empty log). */
  latest(): Promise<bigint>;
  /** Called with each batch of events as it becomes visible, in cursor order; returns the unsubscribe function. */
  subscribe(listener: (events: LoggedEvent[]) => void): () => void;
}

/** The loaded wallet's durable event log (daemon service of the events plugin). */
export const EventLogService = defineService<EventLogReader>("events.log");
