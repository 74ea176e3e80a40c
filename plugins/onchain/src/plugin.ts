import { ChainSourceService, Database, definePlugin } from "@tender/core";
import { FeeEstimatorsService } from "@tender/plugin-fees";
import { Bip321ContributorsService, WalletKeysService, WalletSettingsService, walletSyncTask } from "@tender/plugin-wallet";
import { Bip86Keychain } from "./keychain.js";
import { OnchainWallet } from "./onchain-wallet.js";
import { OnchainWalletService, openedOnchainWallet } from "./onchain-wallet-service.js";
import { OnchainStateRow, OnchainTxRow, onchainHeldMigration, onchainInitMigration } from "./persistence/entities.js";
import { SqlOnchainStore } from "./persistence/sql-store.js";
import { onchainFeeRatesEstimate, onchainRoutes } from "./routes.js";

/**
 * Settings under `pluginConfig.onchain` (developer and test overrides). The sync interval and the
 * fallback fee rate come from the wallet's settings (`daemon_sync_interval_secs`,
 * `fallback_fee_rate`); a value given here replaces the wallet's.
 */
interface OnchainPluginConfig {
  /** Pause between background syncs, replacing `daemon_sync_interval_secs`. */
  syncIntervalMs?: number;
  /** Grace before an unconfirmed wallet transaction missing from the mempool is re-broadcast. Default 30 s. */
  rebroadcastGraceMs?: number;
  /** sat/vB used when the chain source gives no estimate, replacing `fallback_fee_rate`. */
  fallbackFeeRateSatPerVb?: number;
}

/**
 * The on-chain wallet plugin: the wallet's BIP-86 taproot keychain and its transactions
 * (`onchain_tx`, `onchain_state`), barkd's `/api/v1/onchain/*`, the on-chain fee rates of
 * `GET /api/v1/fees/onchain` (through the fees plugin), a background sync task, and the wallet
 * service {@link OnchainWalletService} for plugins that fund transactions from it (boards, exits).
 */
export const onchainPlugin = definePlugin({
  name: "onchain",
  version: "0.1.0",
  provides: [OnchainWalletService],
  consumes: [WalletKeysService, WalletSettingsService, ChainSourceService],
  optional: [FeeEstimatorsService, Bip321ContributorsService],
  register(ctx) {
    const settings = ctx.pluginConfig as OnchainPluginConfig;
    const db = ctx.container.resolve(Database);

    ctx.entities(OnchainTxRow, OnchainStateRow);
    ctx.migrations(onchainInitMigration, onchainHeldMigration);

    ctx.provideForWallet(OnchainWalletService, {
      create: async ({ wallet, get }) => {
        const keys = await get(WalletKeysService);
        const source = await get(ChainSourceService);
        // sat/kWu → sat/vB, kept precise as the chain source's estimates are
        const fallbackSatPerVb = settings.fallbackFeeRateSatPerVb ?? (await get(WalletSettingsService)).fallback_fee_rate / 250;
        const w = await OnchainWallet.open(new Bip86Keychain(keys.master, wallet.network), source, new SqlOnchainStore(db), ctx.logger, {
          ...(settings.rebroadcastGraceMs !== undefined ? { rebroadcastGraceMs: settings.rebroadcastGraceMs } : {}),
          fallbackFeeRateSatPerVb: fallbackSatPerVb,
        });
        void w.refreshFeeRates();
        return w;
      },
    });
    const onchain = ctx.walletService(OnchainWalletService);

    // Syncs the wallet that is open now, at its load and every `daemon_sync_interval_secs`; nothing
    // while no wallet is loaded, it failed to open, or it syncs manually.
    ctx.task(walletSyncTask({
      name: "onchain.sync",
      settings: ctx.walletService(WalletSettingsService),
      runOnLoad: true,
      ...(settings.syncIntervalMs !== undefined ? { overrideMs: settings.syncIntervalMs, overrideFirstDelayMs: 1_000 } : {}),
      run: async () => {
        await onchain.current?.sync();
      },
    }));

    const opened = () => openedOnchainWallet(onchain);
    for (const r of onchainRoutes(opened)) ctx.route(r);
    ctx.find(FeeEstimatorsService)?.addCustomEstimate(onchainFeeRatesEstimate(opened));
    // a fresh on-chain address in a BIP-321 URI that asks for one
    ctx.find(Bip321ContributorsService)?.contribute("onchain", ctx.name, async () => (await opened()).nextAddress());
  },
});

export default onchainPlugin;
