import { Database, LoggerToken, DaemonConfigToken, WalletSession, defineService, defineWalletService, definePlugin } from "@tender/core";
import type { InjectionToken } from "tsyringe";
import { WalletLifecycle, type WalletKeys } from "./lifecycle/wallet-lifecycle.js";
import { WalletProperties, walletInitMigration } from "./persistence/wallet-properties.js";
import { lifecycleRoutes } from "./routes/lifecycle-routes.js";

/** The wallet lifecycle (create/open/delete, creation checks). */
export const WalletLifecycleService = defineService<WalletLifecycle>("wallet.lifecycle");
/** DI token of {@link WalletLifecycleService}. */
export const WalletLifecycleToken: InjectionToken<WalletLifecycle> = WalletLifecycleService.token;
/** The loaded wallet's key material and backend configuration (`config.toml`), while a wallet is loaded. Never logged. */
export const WalletKeysService = defineWalletService<WalletKeys>("wallet.keys");

/**
 * The wallet plugin: the wallet lifecycle (create, open at startup, delete, mnemonic) and the
 * wallet's identity table. Other wallet routes arrive with the rail plugins.
 */
export const walletPlugin = definePlugin({
  name: "wallet",
  version: "0.1.0",
  provides: [WalletLifecycleService, WalletKeysService],
  register(ctx) {
    const lifecycle = new WalletLifecycle(
      ctx.container.resolve(DaemonConfigToken),
      ctx.container.resolve(Database),
      ctx.container.resolve(WalletSession),
      ctx.container.resolve(LoggerToken).child("wallet"),
    );
    ctx.provide(WalletLifecycleService, lifecycle);
    ctx.provideForWallet(WalletKeysService, {
      create: () => {
        const keys = lifecycle.loadedKeys;
        if (!keys) throw new Error("the wallet lifecycle loaded no keys");
        return keys;
      },
    });
    ctx.entities(WalletProperties);
    ctx.migrations(walletInitMigration);
    for (const r of lifecycleRoutes(lifecycle, ctx.container.resolve(WalletSession))) ctx.route(r);
    ctx.onStart(() => lifecycle.startup());
    ctx.onStop(() => lifecycle.shutdown());
  },
});

export default walletPlugin;
