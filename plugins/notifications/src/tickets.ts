import { randomBytes } from "node:crypto";

/** Lifetime of a websocket ticket. */
export const TICKET_TTL_MS = 10 * 60 * 1000;

/** The API key a ticket was issued to (tickets of the owner token have none). */
export interface TicketHolder {
  keyId: string;
  /** Epoch ms the key expires at, if it does. */
  expiresAt?: number;
}

/** What redeeming a ticket gives: who it was issued to. */
export interface RedeemedTicket {
  holder?: TicketHolder;
}

/** Single-use websocket tickets, in memory only (a restart invalidates them). */
export class TicketStore {
  private readonly tickets = new Map<string, { issued: number; holder?: TicketHolder }>();
  constructor(private readonly now: () => number = Date.now) {}

  /** A new ticket: 32 random bytes as 64 lowercase hex, for `holder` (an API key) or the owner. Expired tickets are purged here. */
  issue(holder?: TicketHolder): string {
    const t = this.now();
    for (const [k, v] of this.tickets) if (t - v.issued > TICKET_TTL_MS) this.tickets.delete(k);
    const ticket = randomBytes(32).toString("hex");
    this.tickets.set(ticket, { issued: t, ...(holder ? { holder } : {}) });
    return ticket;
  }

  /** Consumes a ticket: once for a known ticket younger than 10 minutes whose key has not expired; `undefined` otherwise. */
  redeem(ticket: string): RedeemedTicket | undefined {
    const entry = this.tickets.get(ticket);
    if (entry === undefined) return undefined;
    this.tickets.delete(ticket);
    const t = this.now();
    if (t - entry.issued > TICKET_TTL_MS) return undefined;
    if (entry.holder?.expiresAt !== undefined && entry.holder.expiresAt <= t) return undefined;
    return entry.holder ? { holder: entry.holder } : {};
  }

  /** Drops the unused tickets of a revoked key. */
  forgetKey(keyId: string): void {
    for (const [k, v] of this.tickets) if (v.holder?.keyId === keyId) this.tickets.delete(k);
  }
}
