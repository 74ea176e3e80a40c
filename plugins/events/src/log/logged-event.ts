import type { WalletNotification } from "@tender/core";
import type { EventRecord } from "../persistence/records.js";

/**
 * One event of the log as clients see it: its cursor (a decimal string, increasing in the order the
 * events became visible), its type, when it was recorded, and barkd's notification body.
 */
export interface LoggedEvent {
  cursor: string;
  type: string;
  time: string;
  payload: WalletNotification;
}

/** The client form of a sequenced row. */
export function loggedEvent(r: EventRecord): LoggedEvent {
  return loggedEventOfRow({ cursor: r.cursor, type: r.type, created_at: r.createdAt, payload: r.payload });
}

/** The columns of a sequenced row as plain SQL reads them (SQLite: numbers; PostgreSQL: bigints as strings). */
export interface LoggedEventRow {
  cursor: unknown;
  type: string;
  created_at: unknown;
  payload: string;
}

/** The client form of a sequenced row read in plain SQL. */
export function loggedEventOfRow(r: LoggedEventRow): LoggedEvent {
  return {
    cursor: String(r.cursor),
    type: r.type,
    time: new Date(Number(r.created_at)).toISOString(),
    payload: JSON.parse(r.payload) as WalletNotification,
  };
}

/** Parses a client cursor: a non-negative decimal integer; `undefined` when it is not one. */
export function parseCursor(text: string): bigint | undefined {
  return /^(0|[1-9][0-9]{0,18})$/.test(text) ? BigInt(text) : undefined;
}
