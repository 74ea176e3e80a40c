import { ActionEngine, ChainSourceService, Database, Metrics, Readiness, WalletLoaded, WalletReady, WalletSession, WalletUnloaded, definePlugin } from "@tender/core";
import { registerArkHealth } from "./ark-health.js";
import { MovementStoreToken, PaymentMethodParsersToken } from "@tender/plugin-history";
import { BalanceContributorsService, Bip321ContributorsService, SendDestinationsService, WalletKeysService, WalletLifecycleService, WalletSettingsService, walletSyncTask } from "@tender/plugin-wallet";
import { decodeArkAddress } from "@tender/ark-protocol";
import { railSettings, type ArkRail } from "./ark-rail.js";
import { arkoorSendAction } from "./arkoor/arkoor-send-action.js";
import { ArkoorSender } from "./arkoor/arkoor-sender.js";
import { arkServerCreationCheck } from "./connection/creation-check.js";
import { CreationPins } from "./connection/creation-pins.js";
import { connectWithin, openArkConnection } from "./connection/open-connection.js";
import { ArkKeys } from "./keys/ark-keys.js";
import { receiveArkoorVtxos } from "./mailbox/arkoor-receiver.js";
import { KeptMailboxMessages } from "./mailbox/kept-messages.js";
import { MailboxHandlers } from "./mailbox/mailbox-handlers.js";
import { MailboxSync } from "./mailbox/mailbox-sync.js";
import { ARK_ENTITIES, ARK_MIGRATIONS } from "./persistence/entities.js";
import { HeldVtxoExits } from "./held-vtxo-exits.js";
import { RecoveryContributors } from "./recovery/recovery-contributors.js";
import { recoverFromSeed } from "./recovery/seed-recovery.js";
import { catchUpRecovery } from "./recovery/recovery-backup.js";
import { writeMailboxCheckpoint } from "./connection/server-pins.js";
import { nextArkAddress } from "./keys/next-ark-address.js";
import { messageRoutes } from "./routes/message-routes.js";
import { walletRoutes } from "./routes/wallet-routes.js";
import {
  ArkConnectionService, ArkKeysService, ArkMailboxService, ArkServerConnectorService, HeldVtxoExitsService, MailboxHandlersService, RecoveryContributorsService, VtxoLocksService,
  VtxoStoreService,
} from "./services.js";
import { VtxoLocks } from "./vtxos/vtxo-locks.js";
import { VtxoStore } from "./vtxos/vtxo-store.js";

/** Settings under `pluginConfig.ark`. */
interface ArkPluginConfig {
  /** Heartbeat period (default 1 s). */
  heartbeatMs?: number;
  /** Longest wait for the first connection while the wallet loads (create, start-up); default 5 s. */
  connectWaitMs?: number;
  /** Wait before an undelivered arkoor payment is posted again (default 60 s). */
  deliveryRetryMs?: number;
  /** Period of the background sync (mailbox read as a safety net next to the subscription), replacing the wallet's `daemon_sync_interval_secs`. */
  syncIntervalMs?: number;
}

/**
 * The Ark plugin: the wallet's Ark server connection (creation check pinning the server keys,
 * heartbeat), Ark keys and addresses, VTXOs and balance, arkoor payments (a persisted action)
 * and mailbox delivery (background subscription, `sync/mailbox`). The connection, the keys and
 * the mailbox consumer are wallet services (created on wallet load, disposed on unload); the
 * VTXO store is a daemon service. It reaches the Ark server only through the
 * {@link ArkServerConnectorService} the daemon binary provides.
 */
export const arkPlugin = definePlugin({
  name: "ark",
  version: "0.1.0",
  dependencies: ["wallet", "chain", "history"],
  provides: [ArkConnectionService, ArkKeysService, ArkMailboxService, MailboxHandlersService, VtxoStoreService, VtxoLocksService, RecoveryContributorsService, HeldVtxoExitsService],
  consumes: [
    SendDestinationsService, BalanceContributorsService, ArkServerConnectorService, WalletLifecycleService, WalletKeysService, WalletSettingsService,
    ChainSourceService,
  ],
  optional: [Bip321ContributorsService],
  register(ctx) {
    const cfg = ctx.pluginConfig as ArkPluginConfig;
    const db = ctx.container.resolve(Database);
    const engine = ctx.container.resolve(ActionEngine);
    const connector = ctx.get(ArkServerConnectorService);
    const movements = ctx.container.resolve(MovementStoreToken);
    const vtxos = new VtxoStore(db);
    ctx.provide(VtxoStoreService, vtxos);
    // the store keeps the VTXOs it decoded; the next wallet has other rows
    ctx.events.on(WalletUnloaded, () => vtxos.forgetDecoded());
    const locks = new VtxoLocks(vtxos);
    ctx.provide(VtxoLocksService, locks);
    ctx.entities(...ARK_ENTITIES);
    ctx.migrations(...ARK_MIGRATIONS);
    const creationPins = new CreationPins();
    ctx.get(WalletLifecycleService).creationChecks.add("ark-server", arkServerCreationCheck(creationPins, connector));
    // taken as given, as barkd's parser does: surrounding whitespace makes the value invalid
    ctx.container.resolve(PaymentMethodParsersToken).register("ark", (v) => {
      decodeArkAddress(v);
      return v.toLowerCase();
    });

    const walletKeys = ctx.walletService(WalletKeysService);
    const chain = ctx.walletService(ChainSourceService);
    const connection = ctx.walletService(ArkConnectionService);
    const keys = ctx.walletService(ArkKeysService);
    const mailbox = ctx.walletService(ArkMailboxService);
    const deliveryRetryMs = cfg.deliveryRetryMs ?? 60_000;
    /** The loaded wallet's rail: its wallet services and the stores. */
    const rail = async (): Promise<ArkRail> => {
      const [server, arkKeys, source, wallet] = await Promise.all([connection.get(), keys.get(), chain.get(), walletKeys.get()]);
      const settings = railSettings(wallet, deliveryRetryMs);
      return { server, keys: arkKeys, chain: source, vtxos, locks, movements, db, logger: ctx.logger, settings: () => settings };
    };

    ctx.provideForWallet(ArkKeysService, { create: async (c) => ArkKeys.load(db, (await c.get(WalletKeysService)).master) });
    // The connection exists once its first attempt ended (or its bounded wait did): the wallet
    // is not ready, and `POST /wallet/create` does not answer, before the session is established
    // with a server that answers. A server that is down never fails the load; the heartbeat
    // below keeps trying.
    const connectWaitMs = cfg.connectWaitMs ?? 5_000;
    ctx.provideForWallet(ArkConnectionService, {
      create: async (c) => {
        const server = await openArkConnection(db, connector, creationPins, await c.get(WalletKeysService), ctx.logger);
        await connectWithin(server, connectWaitMs, ctx.logger);
        return server;
      },
      dispose: (server) => server.close(),
    });
    // the mailbox: each kind of message goes to the plugin that handles it; the Ark rail takes arkoor payments
    const handlers = new MailboxHandlers();
    ctx.provide(MailboxHandlersService, handlers);
    handlers.register("arkoor", ctx.name, async (msg, ack) => {
      await receiveArkoorVtxos(await rail(), msg.vtxos, ack);
    });
    const kept = new KeptMailboxMessages(db);
    ctx.provideForWallet(ArkMailboxService, {
      create: async (c) => {
        const [server, arkKeys] = await Promise.all([c.get(ArkConnectionService), c.get(ArkKeysService)]);
        return new MailboxSync(server, arkKeys, db, ctx.logger, handlers, kept);
      },
      // waits for a message being processed, before the connection closes and the database with it
      dispose: (m) => m.unsubscribe(),
    });

    // A wallet just created (with or without a mnemonic, as barkd) is rebuilt from its recovery
    // mailbox while it loads, so `POST /wallet/create` answers with its VTXOs there. It runs while
    // no mailbox message is processed, and moves the mailbox checkpoint before the first sync.
    const recoveryContributors = new RecoveryContributors();
    ctx.provide(RecoveryContributorsService, recoveryContributors);
    ctx.provide(HeldVtxoExitsService, new HeldVtxoExits());
    ctx.events.on(WalletLoaded, async () => {
      if (walletKeys.current?.createdNow !== true) return;
      try {
        const [server, arkKeys, source, consumer] = await Promise.all([connection.get(), keys.get(), chain.get(), mailbox.get()]);
        await consumer.exclusive(() => recoverFromSeed({
          server, keys: arkKeys, chain: source, vtxos, contributors: recoveryContributors, logger: ctx.logger,
          storeCheckpoint: (cp) => writeMailboxCheckpoint(db, cp),
        }));
      } catch (e) {
        ctx.logger.error(`VTXO recovery from the recovery mailbox failed; funds may be missing from this wallet until recovery succeeds: ${e instanceof Error ? e.message : String(e)}`);
      }
    });

    const session = ctx.container.resolve(WalletSession);
    registerArkHealth(ctx.container.resolve(Readiness), ctx.container.resolve(Metrics), session, connection, vtxos);
    const manualSync = () => session.current?.manualSync === true; // `daemon_manual_sync`, read by the wallet plugin
    const freshSends = new Set<string>();
    const sender = new ArkoorSender(rail, engine, freshSends);
    engine.define(arkoorSendAction(rail, { vtxos, locks, movements }, freshSends));

    // the sync-time recovery catch-up: VTXOs whose recovery backup was lost at store time (server
    // down, crash) are posted and registered now; one run at a time, a second caller joins it
    let catchingUp: Promise<void> | undefined;
    const recoveryCatchUp = (): Promise<void> =>
      (catchingUp ??= (async () => {
        try {
          const [server, arkKeys] = await Promise.all([connection.get(), keys.get()]);
          await catchUpRecovery({ server, keys: arkKeys, vtxos, logger: ctx.logger });
        } catch (e) {
          ctx.logger.warn(`sync: recovery catch-up: ${e instanceof Error ? e.message : String(e)}`);
        } finally {
          catchingUp = undefined;
        }
      })());

    const syncAll = async () => {
      await mailbox.get().then((m) => m.sync()).catch((e: unknown) => ctx.logger.warn(`sync: mailbox: ${e instanceof Error ? e.message : String(e)}`));
      await recoveryCatchUp();
      await engine.resumeAll().catch((e: unknown) => ctx.logger.warn(`sync: actions: ${e instanceof Error ? e.message : String(e)}`));
    };
    // at start-up, as barkd: connect, then one full sync unless the wallet syncs manually; kept
    // mailbox messages go to the handlers registered since they arrived
    ctx.events.on(WalletReady, () => {
      const server = connection.current;
      const consumer = mailbox.current;
      if (!server || !consumer || manualSync()) {
        if (server) void server.heartbeat();
        return;
      }
      session.background(async () => {
        await consumer.handOverKept().catch((e: unknown) => ctx.logger.warn(`mailbox: kept messages: ${e instanceof Error ? e.message : String(e)}`));
        if (await server.heartbeat()) await syncAll();
      });
    });

    let wasUp = false;
    ctx.task({
      name: "ark.heartbeat",
      intervalMs: cfg.heartbeatMs ?? 1_000,
      run: async () => {
        const server = connection.current;
        const consumer = mailbox.current;
        if (!server || !consumer) {
          wasUp = false;
          return;
        }
        const up = await server.heartbeat();
        const reconnected = up && !wasUp;
        wasUp = up;
        if (!up || manualSync()) return;
        // the background mailbox subscription; after a reconnection it restarts at once instead
        // of waiting out the back-off it built up while the server was away
        if (reconnected && consumer.subscribed) await consumer.unsubscribe();
        if (!consumer.subscribed) await consumer.subscribe();
      },
    });

    // every `daemon_sync_interval_secs` of the wallet, the first one interval after it loaded (the
    // load ran a full sync already)
    ctx.task(walletSyncTask({
      name: "ark.sync",
      settings: ctx.walletService(WalletSettingsService),
      ...(cfg.syncIntervalMs !== undefined ? { overrideMs: cfg.syncIntervalMs } : {}),
      run: async () => {
        const consumer = mailbox.current;
        if (!consumer || manualSync() || !connection.current?.connected) return;
        await consumer.sync();
        await recoveryCatchUp();
      },
    }));

    // the Ark rail pays Ark addresses sent to through `POST /wallet/send`, and owns `spendable_sat`
    ctx.get(SendDestinationsService).claim("ark", ctx.name, async (d) => {
      await sender.send({ kind: "ark", address: d.value, decoded: decodeArkAddress(d.value) }, d.amountSat!);
      return {};
    });
    ctx.get(BalanceContributorsService).contribute("spendable_sat", ctx.name, async () => (await vtxos.balance()).spendableSat);
    // a fresh Ark address in every BIP-321 URI (`ark=`)
    ctx.find(Bip321ContributorsService)?.contribute("ark", ctx.name, async () => nextArkAddress(await rail()));
    for (const r of [...walletRoutes({ rail, vtxos, connection, mailbox, syncAll }), ...messageRoutes(() => keys.get())]) ctx.route(r);
  },
});

export default arkPlugin;
