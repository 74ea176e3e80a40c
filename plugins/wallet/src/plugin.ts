import { Database, LoggerToken, DaemonConfigToken, WalletSession, definePlugin } from "@tender/core";
import type { InjectionToken } from "tsyringe";
import { WalletLifecycle } from "./lifecycle/wallet-lifecycle.js";
import { WalletProperties, walletInitMigration } from "./persistence/wallet-properties.js";
import { lifecycleRoutes } from "./routes/lifecycle-routes.js";

/** DI token of the wallet lifecycle (create/open/delete, and the loaded wallet's keys). */
export const WalletLifecycleToken: InjectionToken<WalletLifecycle> = Symbol.for("tender.wallet.WalletLifecycle");

/**
 * The wallet plugin: the wallet lifecycle (create, open at startup, delete, mnemonic) and the
 * wallet's identity table. Other wallet routes arrive with the rail plugins.
 */
export const walletPlugin = definePlugin({
  name: "wallet",
  version: "0.1.0",
  register(ctx) {
    const lifecycle = new WalletLifecycle(
      ctx.container.resolve(DaemonConfigToken),
      ctx.container.resolve(Database),
      ctx.container.resolve(WalletSession),
      ctx.container.resolve(LoggerToken).child("wallet"),
    );
    ctx.container.registerInstance(WalletLifecycleToken, lifecycle);
    ctx.entities(WalletProperties);
    ctx.migrations(walletInitMigration);
    for (const r of lifecycleRoutes(lifecycle, ctx.container.resolve(WalletSession))) ctx.route(r);
    ctx.onStart(() => lifecycle.startup());
    ctx.onStop(() => lifecycle.shutdown());
  },
});

export default walletPlugin;
