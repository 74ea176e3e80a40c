import { ActionEngine, ChainSourceToken, Database, WalletLoaded, WalletSession, WalletUnloaded, definePlugin } from "@tender/core";
import { MovementStoreToken, PaymentMethodParsersToken } from "@tender/plugin-history";
import { BalanceContributorsService, SendDestinationsService, WalletLifecycleToken } from "@tender/plugin-wallet";
import { decodeArkAddress } from "@tender/ark-protocol";
import type { ArkWallet, ArkWalletSettings } from "./ark-wallet.js";
import { arkoorSendAction } from "./arkoor/arkoor-send-action.js";
import { ArkoorSender } from "./arkoor/arkoor-sender.js";
import { ArkConnection } from "./connection/ark-connection.js";
import { arkServerCreationCheck } from "./connection/creation-check.js";
import { ArkKeys } from "./keys/ark-keys.js";
import { MailboxSync } from "./mailbox/mailbox-sync.js";
import { ARK_ENTITIES, arkInitMigration } from "./persistence/entities.js";
import { walletRoutes } from "./routes/wallet-routes.js";
import { ArkConnectionToken, ArkKeysToken, ArkServerConnectorService, VtxoStoreToken } from "./tokens.js";
import { VtxoStore } from "./vtxos/vtxo-store.js";

/** Settings under `pluginConfig.ark`. */
interface ArkPluginConfig {
  /** Heartbeat period (default 1 s). */
  heartbeatMs?: number;
  /** Wait before an undelivered arkoor payment is posted again (default 60 s). */
  deliveryRetryMs?: number;
  /** Period of the background sync (mailbox read as a safety net next to the subscription); default 60 s. */
  syncIntervalMs?: number;
}

/**
 * The Ark plugin: the wallet's Ark server connection (creation check pinning the server keys,
 * heartbeat), Ark keys and addresses, VTXOs and balance, arkoor payments (a persisted action)
 * and mailbox delivery (background subscription, `sync/mailbox`). Provides
 * {@link ArkConnectionToken}, {@link ArkKeysToken} and {@link VtxoStoreToken} to other plugins.
 */
export const arkPlugin = definePlugin({
  name: "ark",
  version: "0.1.0",
  dependencies: ["wallet", "chain", "history"],
  consumes: [SendDestinationsService, BalanceContributorsService, ArkServerConnectorService],
  register(ctx) {
    const cfg = ctx.pluginConfig as ArkPluginConfig;
    const db = ctx.container.resolve(Database);
    const lifecycle = ctx.container.resolve(WalletLifecycleToken);
    const engine = ctx.container.resolve(ActionEngine);
    const connector = ctx.get(ArkServerConnectorService);
    const connection = new ArkConnection(db, ctx.logger, connector);
    const keys = new ArkKeys(db);
    const vtxos = new VtxoStore(db);
    ctx.container.registerInstance(ArkConnectionToken, connection);
    ctx.container.registerInstance(ArkKeysToken, keys);
    ctx.container.registerInstance(VtxoStoreToken, vtxos);
    ctx.entities(...ARK_ENTITIES);
    ctx.migrations(arkInitMigration);
    lifecycle.creationChecks.add("ark-server", arkServerCreationCheck(connection, connector));
    ctx.container.resolve(PaymentMethodParsersToken).register("ark", (v) => {
      decodeArkAddress(v.trim());
      return v.trim().toLowerCase();
    });

    const settings = (): ArkWalletSettings => {
      const c = lifecycle.loadedKeys?.config ?? {};
      const split = Number(c["change_vtxo_split_factor"] ?? 2);
      return {
        network: lifecycle.loadedKeys?.network ?? "regtest",
        changeSplitFactor: Number.isInteger(split) && split >= 1 && split <= 3 ? split : 2,
        deliveryRetryMs: cfg.deliveryRetryMs ?? 60_000,
      };
    };
    const session = ctx.container.resolve(WalletSession);
    const manualSync = () => session.current?.manualSync === true; // `daemon_manual_sync`, read by the wallet plugin
    const wallet: ArkWallet = {
      connection, keys, vtxos, settings, db, logger: ctx.logger,
      chain: ctx.container.resolve(ChainSourceToken),
      movements: ctx.container.resolve(MovementStoreToken),
    };
    const mailbox = new MailboxSync(wallet, db);
    const freshSends = new Set<string>();
    const sender = new ArkoorSender(wallet, engine, freshSends);
    engine.define(arkoorSendAction(wallet, freshSends));

    const syncAll = async () => {
      await mailbox.sync().catch((e: unknown) => ctx.logger.warn(`sync: mailbox: ${e instanceof Error ? e.message : String(e)}`));
      await engine.resumeAll().catch((e: unknown) => ctx.logger.warn(`sync: actions: ${e instanceof Error ? e.message : String(e)}`));
    };
    let attached = false;
    let wasUp = false;
    ctx.events.on(WalletLoaded, async (loadedWallet) => {
      const loaded = lifecycle.loadedKeys;
      if (!loaded?.config.server_address) return;
      await keys.attach(loaded.master);
      await connection.attach({ serverUrl: loaded.config.server_address, walletNetwork: loadedWallet.network });
      attached = true;
      // at start-up, as barkd: connect, then one full sync unless the wallet syncs manually
      void connection.heartbeat().then((up) => (up && !manualSync() ? syncAll() : undefined));
    });
    ctx.events.on(WalletUnloaded, () => {
      attached = false;
      void mailbox.unsubscribe();
      connection.detach();
      keys.detach();
    });
    ctx.onStop(async () => {
      attached = false;
      await mailbox.unsubscribe();
      connection.detach();
    });

    ctx.task({
      name: "ark.heartbeat",
      intervalMs: cfg.heartbeatMs ?? 1_000,
      run: async () => {
        if (!attached) {
          wasUp = false;
          return;
        }
        const up = await connection.heartbeat();
        const reconnected = up && !wasUp;
        wasUp = up;
        if (!up || manualSync()) return;
        // the background mailbox subscription; after a reconnection it restarts at once instead
        // of waiting out the back-off it built up while the server was away
        if (reconnected && mailbox.subscribed) await mailbox.unsubscribe();
        if (!mailbox.subscribed) await mailbox.subscribe();
      },
    });

    ctx.task({
      name: "ark.sync",
      intervalMs: cfg.syncIntervalMs ?? 60_000,
      initialDelayMs: cfg.syncIntervalMs ?? 60_000,
      run: async () => {
        if (!attached || manualSync() || !connection.connected) return;
        await mailbox.sync();
      },
    });

    // the Ark rail pays Ark addresses sent to through `POST /wallet/send`, and owns `spendable_sat`
    ctx.get(SendDestinationsService).claim("ark", ctx.name, async (d) => {
      await sender.send({ kind: "ark", address: d.value, decoded: decodeArkAddress(d.value) }, d.amountSat!);
      return {};
    });
    ctx.get(BalanceContributorsService).contribute("spendable_sat", ctx.name, async () => (await vtxos.balance()).spendableSat);
    for (const r of walletRoutes({ wallet, mailbox, syncAll })) ctx.route(r);
  },
});

export default arkPlugin;
