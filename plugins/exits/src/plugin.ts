import { ChainSourceService, Database, WalletSession, definePlugin } from "@tender/core";
import { formatOutPoint } from "@tender/ark-protocol";
import { ArkKeysService, HeldVtxoExitsService, RecoveryContributorsService, VtxoLocksService, VtxoStoreService } from "@tender/plugin-ark";
import { MovementStoreToken } from "@tender/plugin-history";
import { OnchainWalletService } from "@tender/plugin-onchain";
import { BalanceContributorsService, WalletKeysService, WalletSettingsService, walletSyncTask } from "@tender/plugin-wallet";
import type { ExitPorts } from "./exit-ports.js";
import { exitRoutes } from "./exit-routes.js";
import { exitKitRoute } from "./exit-kit-route.js";
import { HtlcExitClaimer } from "./htlc-exit-claims.js";
import { ExitService } from "./exit-service.js";
import { EXITS_ENTITIES, EXITS_MIGRATIONS } from "./persistence/exit-rows.js";
import { SqlExitStore } from "./persistence/sql-exit-store.js";
import { arkExitKeys, arkExitVtxos } from "./wiring/ark-services.js";
import { sourceExitChain } from "./wiring/chain.js";
import { historyExitMovements } from "./wiring/movements.js";
import { onchainExitWallet } from "./wiring/onchain-wallet.js";

/** Settings under `pluginConfig.exits`. */
interface ExitsPluginConfig {
  /** Period of the background progress, replacing the wallet's `daemon_sync_interval_secs`. */
  progressIntervalMs?: number;
}

/**
 * The exits plugin: unilateral exits of VTXOs without the Ark server. Contributes barkd's
 * `/api/v1/exits/*` routes, the persisted exit state machine with CPFP packages funded by the
 * on-chain wallet, the claim sweep, `pending_exit_sat`, and the background `exits.progress` task
 * (every `daemon_sync_interval_secs`, even while the Ark server is unreachable; never in
 * `daemon_manual_sync` mode; it never claims). It carries out the exits of HTLC VTXOs other rails
 * hold (`HeldVtxoExitsService`), claiming them through the clause the wallet can sign (the
 * HTLC-send refund after its expiry, the HTLC-recv hash clause with the handed-over preimage).
 */
export const exitsPlugin = definePlugin({
  name: "exits",
  version: "0.1.0",
  dependencies: ["wallet", "history", "ark", "onchain"],
  consumes: [BalanceContributorsService, WalletKeysService, WalletSettingsService, ChainSourceService, OnchainWalletService, ArkKeysService, VtxoStoreService, VtxoLocksService, RecoveryContributorsService, HeldVtxoExitsService],
  register(ctx) {
    const cfg = ctx.pluginConfig as ExitsPluginConfig;
    const c = ctx.container;
    const db = c.resolve(Database);
    ctx.entities(...EXITS_ENTITIES);
    ctx.migrations(...EXITS_MIGRATIONS);
    const ports: ExitPorts = {
      chain: sourceExitChain(ctx.walletService(ChainSourceService)),
      wallet: onchainExitWallet(ctx.walletService(OnchainWalletService)),
      vtxos: arkExitVtxos(ctx.get(VtxoStoreService), ctx.get(VtxoLocksService)),
      keys: arkExitKeys(ctx.walletService(ArkKeysService)),
      movements: historyExitMovements(c.resolve(MovementStoreToken)),
      atomically: (fn) => db.transaction(fn),
    };
    const service = new ExitService(ports, new SqlExitStore(db), ctx.logger);
    const session = c.resolve(WalletSession);
    const htlcClaims = new HtlcExitClaimer(service);
    ctx.get(BalanceContributorsService).contribute("pending_exit_sat", ctx.name, () => service.pendingExitSat());
    ctx.task(walletSyncTask({
      name: "exits.progress",
      settings: ctx.walletService(WalletSettingsService),
      ...(cfg.progressIntervalMs !== undefined ? { overrideMs: cfg.progressIntervalMs } : {}),
      run: async () => {
        if (!session.isLoaded) return;
        const answer = await service.progress({ detectForeign: true });
        for (const e of answer.exits) if (e.error) ctx.logger.warn(`exit of VTXO ${e.vtxo_id}: ${JSON.stringify(e.error)}`);
        // HTLC outputs are contested on chain: they are claimed as soon as they can be, unasked
        await htlcClaims.claimDue().catch((e: unknown) => ctx.logger.warn(`claiming the exits of HTLC VTXOs: ${e instanceof Error ? e.message : String(e)}`));
      },
    }));
    // a recovery from the seed stores VTXOs whose own tx it found confirmed as exited: they get exits, so they end claimed
    ctx.get(RecoveryContributorsService).register(ctx.name, {
      exited: async (vtxos) => service.adoptExited(vtxos.map((v) => formatOutPoint(v.point))),
    });
    // HTLC VTXOs the Lightning rail holds and the server will not take back or claim are exited here
    ctx.get(HeldVtxoExitsService).register(ctx.name, {
      exitHeld: (req) => service.startHeld(req),
      outcome: (vtxoId) => service.outcome(vtxoId),
    });
    for (const r of exitRoutes(() => service, ports)) ctx.route(r);
    const walletKeys = ctx.walletService(WalletKeysService);
    ctx.route(exitKitRoute({ vtxos: ports.vtxos, keys: ctx.walletService(ArkKeysService), network: async () => (await walletKeys.get()).network }));
  },
});

export default exitsPlugin;
