import { ApiKeyRevoked, EventBus, WalletLoaded, WalletNotificationRaised, WalletSession, WalletUnloaded, definePlugin } from "@tender/core";
import { EventLogService } from "@tender/plugin-events";
import { NotificationBuffer } from "./notification-buffer.js";
import { notificationRoutes } from "./routes.js";
import { TicketStore } from "./tickets.js";
import { notificationWebSocket } from "./websocket-endpoint.js";

/**
 * The notifications plugin: websocket tickets, the ticket-authenticated websocket and the
 * long-poll. With the events plugin enabled they are fed from its durable log (and a client that
 * passes its last cursor resumes after it); without it, from `WalletNotificationRaised` events.
 */
export const notificationsPlugin = definePlugin({
  name: "notifications",
  version: "0.1.0",
  dependencies: ["wallet"],
  optional: [EventLogService],
  register(ctx) {
    const events = ctx.container.resolve(EventBus);
    const session = ctx.container.resolve(WalletSession);
    const log = ctx.find(EventLogService);
    const tickets = new TicketStore();
    events.on(ApiKeyRevoked, ({ keyId }) => tickets.forgetKey(keyId));
    let buffer: NotificationBuffer | undefined;
    events.on(WalletLoaded, () => {
      buffer?.close("wallet-gone");
      buffer = new NotificationBuffer();
    });
    events.on(WalletUnloaded, () => {
      buffer?.close("wallet-gone");
      buffer = undefined;
    });
    if (log) log.subscribe((batch) => { for (const e of batch) buffer?.push(e.payload); });
    else events.on(WalletNotificationRaised, (n) => buffer?.push(n));
    // `waitTimeoutMs` shortens the 30 s long-poll window (tests); barkd has no such setting.
    const timeout = typeof ctx.pluginConfig.waitTimeoutMs === "number" ? ctx.pluginConfig.waitTimeoutMs : undefined;
    for (const r of notificationRoutes(tickets, session, () => buffer, timeout, log)) ctx.route(r);
    const ws = notificationWebSocket(tickets, events, session, log);
    ctx.websocket(ws);
    ctx.onStop(() => {
      buffer?.close("stopped");
      ws.close();
    });
  },
});

export default notificationsPlugin;
