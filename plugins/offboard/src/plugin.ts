import { ActionEngine, ChainSourceService, Database, WalletSession, definePlugin } from "@tender/core";
import { ArkConnectionService, ArkKeysService, VtxoLocksService, VtxoStoreService } from "@tender/plugin-ark";
import { FeeEstimatorsService } from "@tender/plugin-fees";
import { MovementStoreToken } from "@tender/plugin-history";
import { OnchainWalletService } from "@tender/plugin-onchain";
import { WalletKeysService, WalletSettingsService, walletSyncTask } from "@tender/plugin-wallet";
import { offboardAction } from "./offboard-action.js";
import type { OffboardPorts } from "./offboard-ports.js";
import { offboardEstimators, offboardRoutes, type OffboardRouteDeps } from "./offboard-routes.js";
import { OffboardService } from "./offboard-service.js";
import { arkOffboardKeys, arkOffboardServer, arkOffboardVtxos } from "./wiring/ark-services.js";
import { historyOffboardMovements, sourceOffboardChain, walletOffboardSettings } from "./wiring/wallet-services.js";

/** Settings under `pluginConfig.offboard`. */
interface OffboardPluginConfig {
  /** Pause between checks of a broadcast offboard tx, and before a lost session is prepared again. Default 30 s (bark's poll). */
  pollMs?: number;
  /** Pause before a step retries after the server or the chain did not answer. Default 3 s. */
  retryMs?: number;
  /** Period of the pending offboards' sync, replacing the wallet's `daemon_sync_interval_secs`. */
  syncIntervalMs?: number;
}

/**
 * The offboard plugin: leaving Ark for a bitcoin address through the Ark server's connector swaps.
 * Contributes barkd's `POST /api/v1/wallet/offboard/vtxos`, `/offboard/all` and `/send-onchain`,
 * the estimates `POST /api/v1/fees/offboard`, `GET /api/v1/fees/offboard-all` and
 * `GET /api/v1/fees/send-onchain`, the crash-safe `offboard.offboard` action (kernel ActionEngine;
 * its inputs held through the Ark rail's VTXO locks), `bark.offboard` movements, and the sync of
 * pending offboards (every `daemon_sync_interval_secs`, not in `daemon_manual_sync` mode; the
 * kernel's action resumption and `POST /wallet/sync` drive them too). barkd has no balance field
 * for offboards: their inputs are locked, so they leave `spendable_sat`.
 */
export const offboardPlugin = definePlugin({
  name: "offboard",
  version: "0.1.0",
  dependencies: ["wallet", "history", "ark"],
  consumes: [
    ChainSourceService, OnchainWalletService, ArkConnectionService, ArkKeysService, VtxoStoreService, VtxoLocksService, WalletSettingsService,
    WalletKeysService,
  ],
  optional: [FeeEstimatorsService],
  register(ctx) {
    const cfg = ctx.pluginConfig as OffboardPluginConfig;
    const c = ctx.container;
    const db = c.resolve(Database);
    const engine = c.resolve(ActionEngine);
    const session = c.resolve(WalletSession);
    const arkKeys = ctx.walletService(ArkKeysService);
    const settings = ctx.walletService(WalletSettingsService);
    const store = ctx.get(VtxoStoreService);
    const ports: OffboardPorts = {
      server: arkOffboardServer(ctx.walletService(ArkConnectionService), arkKeys, ctx.logger),
      keys: arkOffboardKeys(arkKeys),
      vtxos: arkOffboardVtxos(store, ctx.get(VtxoLocksService)),
      chain: sourceOffboardChain(ctx.walletService(ChainSourceService)),
      movements: historyOffboardMovements(c.resolve(MovementStoreToken)),
      settings: walletOffboardSettings(settings),
      transaction: (fn) => db.transaction(fn),
      now: () => Date.now(),
    };
    engine.define(offboardAction(ports, ctx.logger, { pollMs: cfg.pollMs ?? 30_000, retryMs: cfg.retryMs ?? 3_000 }));
    const service = new OffboardService(engine, ports);

    const walletKeys = ctx.walletService(WalletKeysService);
    const onchain = ctx.walletService(OnchainWalletService);
    const deps: OffboardRouteDeps = {
      service: () => service,
      network: async () => (await walletKeys.get()).network,
      freshAddress: async () => (await onchain.get()).nextAddress(),
      vtxo: (id) => ports.vtxos.get(id),
    };
    for (const r of offboardRoutes(deps)) ctx.route(r);
    const fees = ctx.find(FeeEstimatorsService);
    if (fees) {
      const e = offboardEstimators(deps);
      fees.addBodyEstimate(e.offboard);
      fees.addCustomEstimate(e.offboardAll);
      fees.addCustomEstimate(e.sendOnchain);
    }

    ctx.task(walletSyncTask({
      name: "offboard.sync",
      settings,
      ...(cfg.syncIntervalMs !== undefined ? { overrideMs: cfg.syncIntervalMs } : {}),
      run: async () => {
        if (!session.isLoaded || session.current?.manualSync) return;
        await service.syncPending((id, e) => ctx.logger.warn(`offboard ${id}: ${e instanceof Error ? e.message : String(e)}`));
      },
    }));
  },
});

export default offboardPlugin;
