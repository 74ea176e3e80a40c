import { Database, LoggerToken, DaemonConfigToken, WalletSession, defineService, defineWalletService, definePlugin } from "@tender/core";
import type { InjectionToken } from "tsyringe";
import { WalletLifecycle, type WalletKeys } from "./lifecycle/wallet-lifecycle.js";
import { WalletProperties, walletInitMigration } from "./persistence/wallet-properties.js";
import { lifecycleRoutes } from "./routes/lifecycle-routes.js";
import { paymentRoutes } from "./routes/payment-routes.js";
import { SendDestinations, SendDestinationsService } from "./send/send-destinations.js";
import { BalanceContributors, BalanceContributorsService } from "./balance/balance-contributors.js";
import { Bip321Contributors, Bip321ContributorsService } from "./bip321/bip321-contributors.js";
import { bip321Routes } from "./routes/bip321-routes.js";
import type { WalletSettings } from "./config/wallet-settings.js";

/** The wallet lifecycle (create/open/delete, creation checks). */
export const WalletLifecycleService = defineService<WalletLifecycle>("wallet.lifecycle");
/** DI token of {@link WalletLifecycleService}. */
export const WalletLifecycleToken: InjectionToken<WalletLifecycle> = WalletLifecycleService.token;
/** The loaded wallet's key material and settings, while a wallet is loaded. Never logged. */
export const WalletKeysService = defineWalletService<WalletKeys>("wallet.keys");
/**
 * The loaded wallet's settings: every `config.toml` key of barkd (sync interval, fallback fee
 * rate, manual sync, change split, refresh threshold, …) with its environment override
 * (`TENDER_<KEY>`) applied and its network default filled in. Rails read their settings here.
 */
export const WalletSettingsService = defineWalletService<WalletSettings>("wallet.settings");

/**
 * The wallet plugin: the wallet lifecycle (create, open at startup, delete, mnemonic), the
 * wallet's identity table, and the wallet-wide operations the rails extend: `POST /wallet/send`
 * (rails claim destination kinds through {@link SendDestinationsService}) and
 * `GET /wallet/balance` (rails contribute fields through {@link BalanceContributorsService}) and
 * `POST /wallet/bip321` (rails contribute the URI's destinations through {@link Bip321ContributorsService}).
 */
export const walletPlugin = definePlugin({
  name: "wallet",
  version: "0.1.0",
  provides: [WalletLifecycleService, WalletKeysService, WalletSettingsService, SendDestinationsService, BalanceContributorsService, Bip321ContributorsService],
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
    ctx.provideForWallet(WalletSettingsService, {
      create: () => {
        const keys = lifecycle.loadedKeys;
        if (!keys) throw new Error("the wallet lifecycle loaded no settings");
        return keys.config;
      },
    });
    ctx.entities(WalletProperties);
    ctx.migrations(walletInitMigration);
    const send = new SendDestinations();
    const balance = new BalanceContributors();
    ctx.provide(SendDestinationsService, send);
    ctx.provide(BalanceContributorsService, balance);
    const bip321 = new Bip321Contributors();
    ctx.provide(Bip321ContributorsService, bip321);
    const session = ctx.container.resolve(WalletSession);
    for (const r of [...lifecycleRoutes(lifecycle, session), ...paymentRoutes(send, balance, session), ...bip321Routes(bip321, session)]) ctx.route(r);
    ctx.onStart(() => lifecycle.startup());
    ctx.onStop(() => lifecycle.shutdown());
  },
});

export default walletPlugin;
