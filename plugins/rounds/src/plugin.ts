import { ActionEngine, ChainSourceService, Database, WalletReady, WalletSession, WalletUnloaded, definePlugin } from "@tender/core";
import { toHex } from "@tender/ark-protocol";
import { ArkConnectionService, ArkKeysService, MailboxHandlersService, VtxoLocksService, VtxoStoreService } from "@tender/plugin-ark";
import { MovementStoreToken } from "@tender/plugin-history";
import { BalanceContributorsService, WalletSettingsService, walletSyncTask } from "@tender/plugin-wallet";
import type { InjectionToken } from "tsyringe";
import { ROUNDS_ENTITIES, ROUNDS_MIGRATIONS } from "./participation-row.js";
import { ParticipationStore } from "./participation-store.js";
import { progressAction, ROUND_PROGRESS_ACTION, progressActionId } from "./progress-action.js";
import { RoundEventsFeed } from "./round-events-feed.js";
import type { RoundPorts } from "./round-ports.js";
import { roundRoutes } from "./round-routes.js";
import { RoundsService } from "./rounds-service.js";
import { arkRoundKeys, arkRoundServer, arkRoundVtxos } from "./wiring/ark-services.js";
import { roundProtocol } from "./wiring/protocol.js";
import { historyRoundMovements, sourceRoundChain, walletRoundSettings } from "./wiring/wallet-services.js";

/** DI token of the wallet's round participations. */
export const RoundsServiceToken: InjectionToken<RoundsService> = Symbol.for("tender.rounds.RoundsService");

/** Settings under `pluginConfig.rounds`. */
interface RoundsPluginConfig {
  /** Period of the check that keeps the round-event subscription up (default 1 s). */
  eventsTickMs?: number;
  /** Period of the pending rounds' sync, replacing the wallet's `daemon_sync_interval_secs`. */
  syncIntervalMs?: number;
  /** Whether the daemon joins rounds on its own to refresh VTXOs that need it (default true). */
  maintenance?: boolean;
}

/**
 * The rounds plugin: refreshing VTXOs in Ark rounds (hArk). Contributes barkd's refresh routes and
 * `GET /api/v1/wallet/rounds`, the persisted participations (`round_participation`), the
 * round-event subscription (interactive rounds and the daemon's maintenance refreshes), the
 * periodic sync of pending rounds (delegated status, confirmations, the hArk swap), the handler of
 * the mailbox's round-completion notices, and `pending_in_round_sat`.
 */
export const roundsPlugin = definePlugin({
  name: "rounds",
  version: "0.1.0",
  dependencies: ["wallet", "history", "ark"],
  consumes: [
    BalanceContributorsService, ChainSourceService, ArkConnectionService, ArkKeysService, VtxoStoreService, VtxoLocksService, MailboxHandlersService,
    WalletSettingsService,
  ],
  register(ctx) {
    const cfg = ctx.pluginConfig as RoundsPluginConfig;
    const c = ctx.container;
    const db = c.resolve(Database);
    const engine = c.resolve(ActionEngine);
    const session = c.resolve(WalletSession);
    ctx.entities(...ROUNDS_ENTITIES);
    ctx.migrations(...ROUNDS_MIGRATIONS);
    const connection = ctx.walletService(ArkConnectionService);
    const arkKeys = ctx.walletService(ArkKeysService);
    const settings = ctx.walletService(WalletSettingsService);
    const ports: RoundPorts = {
      server: arkRoundServer(connection, arkKeys, ctx.logger),
      keys: arkRoundKeys(arkKeys),
      vtxos: arkRoundVtxos(ctx.get(VtxoStoreService), ctx.get(VtxoLocksService)),
      chain: sourceRoundChain(ctx.walletService(ChainSourceService), settings),
      movements: historyRoundMovements(c.resolve(MovementStoreToken)),
      settings: walletRoundSettings(settings),
      protocol: roundProtocol,
      transaction: (fn) => db.transaction(fn),
    };
    const store = new ParticipationStore(db);
    const service = new RoundsService(store, ports, ctx.logger, {
      // each participation rides an action of the kernel's engine, so the wallet's syncs (POST /wallet/sync) progress it
      track: async (id) => {
        await engine.start(ROUND_PROGRESS_ACTION, { participationId: id }, progressActionId(id));
      },
    });
    engine.define(progressAction(service, store));
    c.registerInstance(RoundsServiceToken, service);
    ctx.get(BalanceContributorsService).contribute("pending_in_round_sat", ctx.name, () => service.pendingInRoundSat());
    ctx.get(MailboxHandlersService).register("round-participation-completed", ctx.name, async (m) => {
      await service.onParticipationCompleted(toHex(m.unlockHash));
    });

    const manualSync = () => session.current?.manualSync === true;
    ctx.events.on(WalletReady, () => {
      session.background(() => service.reconcile().catch((e: unknown) => ctx.logger.warn(`rounds: resuming participations: ${e instanceof Error ? e.message : String(e)}`)));
    });
    const maintenance = cfg.maintenance ?? true;
    const feed = new RoundEventsFeed((event) => service.onRoundEvent(event, maintenance), ctx.logger);
    ctx.events.on(WalletUnloaded, () => feed.stop());
    ctx.task({
      name: "rounds.events",
      intervalMs: cfg.eventsTickMs ?? 1_000,
      run: async () => feed.keep(connection.current, session.isLoaded && !manualSync()),
    });
    ctx.onStop(() => feed.stop());
    ctx.task(walletSyncTask({
      name: "rounds.sync",
      settings,
      ...(cfg.syncIntervalMs !== undefined ? { overrideMs: cfg.syncIntervalMs } : {}),
      run: async () => service.syncAll(),
    }));
    for (const r of roundRoutes(() => service)) ctx.route(r);
  },
});

export default roundsPlugin;
