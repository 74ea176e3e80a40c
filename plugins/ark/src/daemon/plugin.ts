import { Database, WalletLoaded, WalletUnloaded, definePlugin } from "@tender/core";
import { WalletLifecycleToken } from "@tender/plugin-wallet";
import { ArkConnection } from "./connection/ark-connection.js";
import { ArkKeys } from "./keys/ark-keys.js";
import { ARK_ENTITIES, arkInitMigration } from "./persistence/entities.js";
import { ArkConnectionToken, ArkKeysToken, VtxoStoreToken } from "./tokens.js";
import { VtxoStore } from "./vtxos/vtxo-store.js";

/**
 * The Ark plugin: the wallet's Ark server connection, Ark keys and addresses, VTXOs, balance,
 * arkoor payments and mailbox delivery. Provides {@link ArkConnectionToken}, {@link ArkKeysToken}
 * and {@link VtxoStoreToken} to other plugins (boards, lightning).
 */
export const arkPlugin = definePlugin({
  name: "ark",
  version: "0.1.0",
  dependencies: ["wallet", "bitcoin", "history"],
  register(ctx) {
    const db = ctx.container.resolve(Database);
    const lifecycle = ctx.container.resolve(WalletLifecycleToken);
    const connection = new ArkConnection(db, ctx.logger);
    const keys = new ArkKeys(db);
    const vtxos = new VtxoStore(db);
    ctx.container.registerInstance(ArkConnectionToken, connection);
    ctx.container.registerInstance(ArkKeysToken, keys);
    ctx.container.registerInstance(VtxoStoreToken, vtxos);
    ctx.entities(...ARK_ENTITIES);
    ctx.migrations(arkInitMigration);

    ctx.events.on(WalletLoaded, async (wallet) => {
      const loaded = lifecycle.loadedKeys;
      if (!loaded?.config.server_address) return;
      await keys.attach(loaded.master);
      await connection.attach({ serverUrl: loaded.config.server_address, walletNetwork: wallet.network });
    });
    ctx.events.on(WalletUnloaded, () => {
      connection.detach();
      keys.detach();
    });
    ctx.onStop(() => connection.detach());
  },
});

export default arkPlugin;
