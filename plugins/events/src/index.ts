/** @tender/plugin-events — the durable event log, its replay route, and signed webhooks (tender extension). */
export { eventsPlugin as default, eventsPlugin } from "./plugin.js";
export { EventLogService, type EventLogReader } from "./event-log-service.js";
export { EventLog } from "./log/event-log.js";
export { parseCursor, type LoggedEvent } from "./log/logged-event.js";
export { DEFAULT_EVENTS_CONFIG, eventsConfig, retryDelayMs, type EventsConfig } from "./config.js";
export { SIGNATURE_HEADER, signatureHeader, signPayload, verifySignature } from "./webhooks/signature.js";
