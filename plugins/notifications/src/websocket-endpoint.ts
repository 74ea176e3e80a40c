import type { IncomingMessage } from "node:http";
import type { Duplex } from "node:stream";
import { WebSocketServer, type WebSocket } from "ws";
import { EventBus, WalletNotificationRaised, WalletSession, WalletUnloaded, rejectUpgrade, type WalletNotification, type WebSocketRoute } from "@tender/core";
import type { TicketStore } from "./tickets.js";

/** Events a websocket subscriber may have queued before it counts as lagging (barkd: 64). */
export const SUBSCRIBER_CAPACITY = 64;

/**
 * Pushes notifications to one websocket with a bounded queue: when more than
 * {@link SUBSCRIBER_CAPACITY} are waiting, they are dropped and one `channel-lagging` is sent.
 */
class Subscriber {
  private queue: WalletNotification[] = [];
  private sending = false;

  constructor(private readonly ws: WebSocket) {}

  offer(n: WalletNotification): void {
    if (this.queue.length >= SUBSCRIBER_CAPACITY) this.queue = [{ type: "channel-lagging" }];
    this.queue.push(n);
    this.pump();
  }

  private pump(): void {
    if (this.sending || this.queue.length === 0 || this.ws.readyState !== this.ws.OPEN) return;
    const next = this.queue.shift()!;
    this.sending = true;
    this.ws.send(JSON.stringify(next), () => {
      this.sending = false;
      this.pump();
    });
  }
}

/** `GET /api/v1/notifications/ws?ticket=…`: the ticket-authenticated notification websocket. */
export function notificationWebSocket(tickets: TicketStore, events: EventBus, session: WalletSession): WebSocketRoute & { close(): void } {
  const wss = new WebSocketServer({ noServer: true });
  return {
    path: "/api/v1/notifications/ws",
    upgrade(req: IncomingMessage, socket: Duplex, head: Buffer) {
      const ticket = new URL(req.url ?? "/", "http://localhost").searchParams.get("ticket");
      if (ticket === null) return rejectUpgrade(socket, 400, "Failed to deserialize query string: missing field `ticket`");
      if (req.method !== "GET") return rejectUpgrade(socket, 405, "");
      if (!tickets.redeem(ticket)) {
        return rejectUpgrade(socket, 401, JSON.stringify({ message: "Invalid websocket ticket" }), "application/json");
      }
      wss.handleUpgrade(req, socket, head, (ws) => {
        if (!session.isLoaded) {
          ws.close(1000, "no wallet");
          return;
        }
        const sub = new Subscriber(ws);
        const offEvent = events.on(WalletNotificationRaised, (n) => sub.offer(n));
        const offUnload = events.on(WalletUnloaded, () => ws.close(1000, "wallet unloaded"));
        ws.on("close", () => {
          offEvent();
          offUnload();
        });
        ws.on("error", () => ws.terminate());
      });
    },
    close() {
      for (const c of wss.clients) c.close(1001, "shutting down");
      wss.close();
    },
  };
}
