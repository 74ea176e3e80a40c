import { Database, WalletLoaded, WalletNotificationRaised, WalletSession, WalletUnloaded, definePlugin } from "@tender/core";
import { MovementStoreToken } from "@tender/plugin-history";
import { eventsConfig } from "./config.js";
import { EventLogService } from "./event-log-service.js";
import { EventLog } from "./log/event-log.js";
import { EVENTS_ENTITIES } from "./persistence/records.js";
import { eventsMigration } from "./persistence/migrations.js";
import { eventRoutes } from "./routes/event-routes.js";
import { webhookRoutes } from "./routes/webhook-routes.js";
import { DeliveryWorker } from "./webhooks/delivery-worker.js";
import { WebhookStore } from "./webhooks/webhook-store.js";

const DAY_MS = 86_400_000;

/**
 * The events plugin (tender extension): a durable, cursor-ordered log of every movement
 * notification, written in the transaction of the movement change; `GET /api/v1/events` to replay
 * it; the log feeds the notifications plugin's websocket and long-poll; signed webhooks with
 * persisted, retried deliveries; retention pruning.
 */
export const eventsPlugin = definePlugin({
  name: "events",
  version: "0.1.0",
  dependencies: ["wallet", "history"],
  provides: [EventLogService],
  register(ctx) {
    const cfg = eventsConfig(ctx.pluginConfig);
    const db = ctx.container.resolve(Database);
    const session = ctx.container.resolve(WalletSession);
    const log = new EventLog(db, ctx.logger);
    const store = new WebhookStore(db, cfg, ctx.logger);
    const worker = new DeliveryWorker(store, log, cfg, ctx.logger);
    const open = () => session.isLoaded && db.isOpen;

    ctx.entities(...EVENTS_ENTITIES);
    ctx.migrations(eventsMigration);
    ctx.provide(EventLogService, log);

    // the movement store writes each notification's row in the transaction of its change
    ctx.container.resolve(MovementStoreToken).addJournal((n) => log.journal(n));
    log.onSequenced(async (events) => {
      await store.enqueue(events);
    });
    log.subscribe(() => void worker.kick());
    ctx.events.on(WalletNotificationRaised, (n) => {
      if (open()) log.observe(n);
    });
    ctx.events.on(WalletLoaded, async () => {
      // a commit may be the one a journaled row waits for: sequence soon after it
      db.em().getEventManager().registerSubscriber({ afterTransactionCommit: () => log.committed() });
      await log.sequence();
      void worker.kick();
    });
    ctx.events.on(WalletUnloaded, async () => {
      await log.idle();
      log.reset();
      await worker.idle();
    });

    for (const r of eventRoutes(log)) ctx.route(r);
    for (const r of webhookRoutes(store, worker)) ctx.route(r);

    ctx.task({
      name: "events.sequence", intervalMs: cfg.sequenceIntervalMs,
      run: async () => {
        if (open()) await log.sequence();
      },
    });
    ctx.task({
      name: "events.deliveries", intervalMs: cfg.deliveryPollMs,
      run: async (signal) => {
        if (open()) await worker.kick(signal);
      },
    });
    ctx.task({
      name: "events.prune", intervalMs: cfg.pruneIntervalMs,
      run: async () => {
        if (!open()) return;
        const cutoff = Date.now() - cfg.retentionDays * DAY_MS;
        const events = await log.prune(cutoff);
        const deliveries = await store.prune(cutoff);
        if (events || deliveries) ctx.logger.debug(`pruned ${events} events and ${deliveries} deliveries older than ${cfg.retentionDays} days`);
      },
    });
  },
});

export default eventsPlugin;
