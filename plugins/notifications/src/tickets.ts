import { randomBytes } from "node:crypto";

/** Lifetime of a websocket ticket. */
export const TICKET_TTL_MS = 10 * 60 * 1000;

/** Single-use websocket tickets, in memory only (a restart invalidates them). */
export class TicketStore {
  private readonly tickets = new Map<string, number>();
  constructor(private readonly now: () => number = Date.now) {}

  /** A new ticket: 32 random bytes as 64 lowercase hex. Expired tickets are purged here. */
  issue(): string {
    const t = this.now();
    for (const [k, issued] of this.tickets) if (t - issued > TICKET_TTL_MS) this.tickets.delete(k);
    const ticket = randomBytes(32).toString("hex");
    this.tickets.set(ticket, t);
    return ticket;
  }

  /** Consumes a ticket: true once for a known ticket younger than 10 minutes. */
  redeem(ticket: string): boolean {
    const issued = this.tickets.get(ticket);
    if (issued === undefined) return false;
    this.tickets.delete(ticket);
    return this.now() - issued <= TICKET_TTL_MS;
  }
}
