import { ChainSourceService, Database, WalletLoaded, WalletUnloaded, definePlugin } from "@tender/core";
import { WalletLifecycleToken } from "@tender/plugin-wallet";
import type { InjectionToken } from "tsyringe";
import { Bip86Keychain } from "./keychain.js";
import { LoadedOnchainWallet } from "./loaded-wallet.js";
import { OnchainWallet } from "./onchain-wallet.js";
import { OnchainStateRow, OnchainTxRow, onchainHeldMigration, onchainInitMigration } from "./persistence/entities.js";
import { SqlOnchainStore } from "./persistence/sql-store.js";
import { onchainFeeRatesEstimate, onchainRoutes } from "./routes.js";
import { FeeEstimatorsService } from "@tender/plugin-fees";

/** DI token of the loaded wallet's on-chain wallet (addresses, coins, PSBT signing, CPFP funding). */
export const OnchainWalletToken: InjectionToken<LoadedOnchainWallet> = Symbol.for("tender.onchain.LoadedOnchainWallet");

/** Settings under `pluginConfig.onchain`. */
interface OnchainPluginConfig {
  /** Pause between background syncs. Default 60 s (barkd's `daemon_sync_interval_secs`). */
  syncIntervalMs?: number;
  /** Grace before an unconfirmed wallet transaction missing from the mempool is re-broadcast. Default 30 s. */
  rebroadcastGraceMs?: number;
  /** sat/vB used when the chain source gives no estimate. Default 1. */
  fallbackFeeRateSatPerVb?: number;
}

/**
 * The on-chain wallet plugin: the wallet's BIP-86 taproot keychain and its transactions
 * (`onchain_tx`, `onchain_state`), barkd's `/api/v1/onchain/*` and `GET /api/v1/fees/onchain`,
 * a background sync task, and {@link OnchainWalletToken} for plugins that fund fee bumps.
 */
export const onchainPlugin = definePlugin({
  name: "onchain",
  version: "0.1.0",
  dependencies: ["wallet", "chain"],
  consumes: [ChainSourceService],
  optional: [FeeEstimatorsService],
  register(ctx) {
    const settings = ctx.pluginConfig as OnchainPluginConfig;
    const lifecycle = ctx.container.resolve(WalletLifecycleToken);
    const chain = ctx.walletService(ChainSourceService);
    const db = ctx.container.resolve(Database);
    const loaded = new LoadedOnchainWallet();
    ctx.container.registerInstance(OnchainWalletToken, loaded);
    const logger = ctx.logger;

    ctx.entities(OnchainTxRow, OnchainStateRow);
    ctx.migrations(onchainInitMigration, onchainHeldMigration);

    ctx.events.on(WalletLoaded, (wallet) => {
      const keys = lifecycle.loadedKeys;
      if (!keys) return;
      loaded.attach(async () => {
        const w = await OnchainWallet.open(new Bip86Keychain(keys.master, wallet.network), await chain.get(), new SqlOnchainStore(db), logger, {
          ...(settings.rebroadcastGraceMs !== undefined ? { rebroadcastGraceMs: settings.rebroadcastGraceMs } : {}),
          ...(settings.fallbackFeeRateSatPerVb !== undefined ? { fallbackFeeRateSatPerVb: settings.fallbackFeeRateSatPerVb } : {}),
        });
        void w.refreshFeeRates();
        return w;
      });
    });
    ctx.events.on(WalletUnloaded, () => loaded.detach());

    ctx.task({
      name: "onchain.sync",
      intervalMs: settings.syncIntervalMs ?? 60_000,
      initialDelayMs: 1_000,
      run: async () => {
        if (!loaded.isAttached) return;
        await (await loaded.get()).sync();
      },
    });

    for (const r of onchainRoutes(() => loaded.get())) ctx.route(r);
    ctx.find(FeeEstimatorsService)?.addCustomEstimate(onchainFeeRatesEstimate(() => loaded.get()));
  },
});

export default onchainPlugin;
