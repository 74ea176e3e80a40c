import { Database, EventBus, definePlugin } from "@tender/core";
import type { InjectionToken } from "tsyringe";
import { MovementRecord, movementMigration } from "./movements/movement-record.js";
import { MovementStore } from "./movements/movement-store.js";
import { PaymentMethodParsers } from "./payment-methods/payment-method-parsers.js";
import { historyRoutes } from "./routes/history-routes.js";

/** DI token of the movement store: rails record their movements through it. */
export const MovementStoreToken: InjectionToken<MovementStore> = Symbol.for("tender.history.MovementStore");
/** DI token of the payment-method parsers (extension point: rails register `ark`, `invoice`, `offer`). */
export const PaymentMethodParsersToken: InjectionToken<PaymentMethodParsers> = Symbol.for("tender.history.PaymentMethodParsers");

/**
 * The history plugin: the wallet's movements, their notifications, the `/api/v1/history` routes,
 * metadata merge patches, and the deprecated `/api/v1/wallet/{movements,history}` aliases.
 */
export const historyPlugin = definePlugin({
  name: "history",
  version: "0.1.0",
  dependencies: ["wallet"],
  register(ctx) {
    const parsers = new PaymentMethodParsers();
    const store = new MovementStore(ctx.container.resolve(Database), ctx.container.resolve(EventBus), parsers);
    ctx.container.registerInstance(PaymentMethodParsersToken, parsers);
    ctx.container.registerInstance(MovementStoreToken, store);
    ctx.entities(MovementRecord);
    ctx.migrations(movementMigration);
    for (const r of historyRoutes(store)) ctx.route(r);
  },
});

export default historyPlugin;
