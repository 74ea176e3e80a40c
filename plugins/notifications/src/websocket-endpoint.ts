import type { IncomingMessage } from "node:http";
import type { Duplex } from "node:stream";
import { WebSocketServer, type WebSocket } from "ws";
import { ApiKeyRevoked, EventBus, WalletNotificationRaised, WalletSession, WalletUnloaded, rejectUpgrade, type WalletNotification, type WebSocketRoute } from "@tender/core";
import type { EventLogReader } from "@tender/plugin-events";
import type { TicketHolder, TicketStore } from "./tickets.js";

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

/** Logged events a resuming websocket reads per batch. */
const RESUME_BATCH = 200;

/**
 * Sends the event log after a cursor to one websocket (tender's resume mode, `?after=<cursor>`):
 * each frame is a logged event `{cursor, type, time, payload}`; it reads the log in batches, one
 * frame at a time, and reads again whenever new events are logged, so it never drops and never lags.
 */
class ResumingSubscriber {
  private reading = false;
  private more = false;

  constructor(private readonly ws: WebSocket, private readonly log: EventLogReader, private after: bigint) {}

  wake(): void {
    if (this.reading) {
      this.more = true;
      return;
    }
    this.reading = true;
    void this.drain().finally(() => { this.reading = false; });
  }

  private async drain(): Promise<void> {
    try {
      do {
        this.more = false;
        for (;;) {
          if (this.ws.readyState !== this.ws.OPEN) return;
          const batch = await this.log.read(this.after, RESUME_BATCH);
          for (const e of batch) {
            if (this.ws.readyState !== this.ws.OPEN) return;
            await new Promise<void>((resolve, reject) => this.ws.send(JSON.stringify(e), (err) => (err ? reject(err) : resolve())));
            this.after = BigInt(e.cursor);
          }
          if (batch.length < RESUME_BATCH) break;
        }
      } while (this.more);
    } catch {
      this.ws.terminate();
    }
  }
}

const CURSOR = /^(0|[1-9][0-9]{0,18})$/;
/** Longest delay a timer takes (about 24.8 days); a later expiry is waited for in steps. */
const MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * Closes a websocket opened with an API key's ticket (1008, policy violation) once the key is
 * revoked or expires, as the key's requests are refused from then on. Returns the clean-up.
 */
function closeWithKey(ws: WebSocket, holder: TicketHolder, events: EventBus): () => void {
  const off = events.on(ApiKeyRevoked, ({ keyId }) => {
    if (keyId === holder.keyId) ws.close(1008, "API key revoked");
  });
  let timer: NodeJS.Timeout | undefined;
  const expiresAt = holder.expiresAt;
  if (expiresAt !== undefined) {
    const arm = () => {
      const left = expiresAt - Date.now();
      if (left <= 0) ws.close(1008, "API key expired");
      else timer = setTimeout(arm, Math.min(left, MAX_TIMER_MS));
    };
    arm();
  }
  return () => {
    off();
    if (timer) clearTimeout(timer);
  };
}

/**
 * `GET /api/v1/notifications/ws?ticket=…`: the ticket-authenticated notification websocket. With
 * the event log (`log`) its frames come from the log; tender's `after=<cursor>` resumes after a
 * cursor (see {@link ResumingSubscriber}), otherwise frames are barkd's notifications from the
 * connection on.
 */
export function notificationWebSocket(tickets: TicketStore, events: EventBus, session: WalletSession, log?: EventLogReader): WebSocketRoute & { close(): void } {
  const wss = new WebSocketServer({ noServer: true });
  return {
    path: "/api/v1/notifications/ws",
    upgrade(req: IncomingMessage, socket: Duplex, head: Buffer) {
      const ticket = new URL(req.url ?? "/", "http://localhost").searchParams.get("ticket");
      if (ticket === null) return rejectUpgrade(socket, 400, "Failed to deserialize query string: missing field `ticket`");
      const after = log ? new URL(req.url ?? "/", "http://localhost").searchParams.get("after") : null;
      if (after !== null && !CURSOR.test(after)) {
        return rejectUpgrade(socket, 400, "Failed to deserialize query string: after: a cursor is a non-negative decimal integer");
      }
      if (req.method !== "GET") return rejectUpgrade(socket, 405, "");
      const redeemed = tickets.redeem(ticket);
      if (!redeemed) {
        return rejectUpgrade(socket, 401, JSON.stringify({ message: "Invalid websocket ticket" }), "application/json");
      }
      wss.handleUpgrade(req, socket, head, (ws) => {
        if (!session.isLoaded) {
          ws.close(1000, "no wallet");
          return;
        }
        let offEvent: () => void;
        if (log && after !== null) {
          const sub = new ResumingSubscriber(ws, log, BigInt(after));
          offEvent = log.subscribe(() => sub.wake());
          sub.wake();
        } else if (log) {
          const sub = new Subscriber(ws);
          offEvent = log.subscribe((batch) => { for (const e of batch) sub.offer(e.payload); });
        } else {
          const sub = new Subscriber(ws);
          offEvent = events.on(WalletNotificationRaised, (n) => sub.offer(n));
        }
        const offUnload = events.on(WalletUnloaded, () => ws.close(1000, "wallet unloaded"));
        const offKey = redeemed.holder ? closeWithKey(ws, redeemed.holder, events) : () => {};
        ws.on("close", () => {
          offEvent();
          offUnload();
          offKey();
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
