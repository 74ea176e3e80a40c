/** @tender/plugin-notifications — websocket and long-poll delivery of wallet notifications. */
export { notificationsPlugin as default, notificationsPlugin } from "./plugin.js";
export { NotificationBuffer, RETENTION_US } from "./notification-buffer.js";
export { TicketStore, TICKET_TTL_MS } from "./tickets.js";
export { formatRfc3339Utc, parseRfc3339 } from "./timestamps.js";
