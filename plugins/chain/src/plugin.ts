import { ChainSourceToken, DEFAULT_RETRY_POLICY, Database, WalletLoaded, WalletUnloaded, definePlugin, type RetryPolicy } from "@tender/core";
import { WalletLifecycleToken } from "@tender/plugin-wallet";
import type { InjectionToken } from "tsyringe";
import { ChainBirthdayRow, bitcoinChainStateMigration, readBirthday, writeBirthday } from "./chain-birthday.js";
import { chainNetworkOf, chainSourceFromConfig } from "./chain-source-factory.js";
import { chainSourceCreationCheck } from "./network-check.js";
import { bitcoinRoutes } from "./routes.js";
import { WalletChain } from "./wallet-chain.js";

/** DI token of the loaded wallet's chain source (also registered under the kernel's `ChainSourceToken`). */
export const WalletChainToken: InjectionToken<WalletChain> = Symbol.for("tender.bitcoin.WalletChain");

/** Settings under `pluginConfig.bitcoin`. */
interface BitcoinPluginConfig {
  /** Per-request timeout of the wallet's chain source. */
  timeoutMs?: number;
  /** Attempts per call of the wallet's chain source when it is unreachable. Default 4. */
  retryAttempts?: number;
  /** Timeout of the connection test at wallet creation. Default 5 s. */
  creationCheckTimeoutMs?: number;
}

/** The creation check tries twice, quickly: a create request should not hang on a dead source. */
const CREATION_CHECK_RETRY: RetryPolicy = { ...DEFAULT_RETRY_POLICY, attempts: 2, initialDelayMs: 200 };

/**
 * The bitcoin plugin: builds the loaded wallet's {@link ChainSource} (Esplora or bitcoind, from
 * `config.toml`) and shares it under {@link WalletChainToken} and `ChainSourceToken`; checks at
 * wallet creation that the source answers on the wallet's network and records the wallet's chain
 * birthday (`bitcoin_chain_state`, where a bitcoind source starts scanning); serves
 * `GET /api/v1/bitcoin/tip`.
 */
export const bitcoinPlugin = definePlugin({
  name: "bitcoin",
  version: "0.1.0",
  dependencies: ["wallet"],
  register(ctx) {
    const settings = ctx.pluginConfig as BitcoinPluginConfig;
    const lifecycle = ctx.container.resolve(WalletLifecycleToken);
    const chain = new WalletChain();
    ctx.container.registerInstance(WalletChainToken, chain);
    ctx.container.registerInstance(ChainSourceToken, chain);

    const db = ctx.container.resolve(Database);
    ctx.entities(ChainBirthdayRow);
    ctx.migrations(bitcoinChainStateMigration);

    let createdBirthday: number | undefined;
    lifecycle.creationChecks.add("bitcoin.chain-source", chainSourceCreationCheck({
      timeoutMs: settings.creationCheckTimeoutMs ?? 5_000, retry: CREATION_CHECK_RETRY,
    }, (height) => { createdBirthday = height; }));

    ctx.events.on(WalletLoaded, (wallet) => {
      const keys = lifecycle.loadedKeys;
      if (!keys) return;
      const fresh = createdBirthday;
      createdBirthday = undefined;
      chain.attach((async () => {
        if (fresh !== undefined) await writeBirthday(db, fresh);
        const birthday = await readBirthday(db);
        const source = chainSourceFromConfig(keys.config, wallet.network, {
          ...(settings.timeoutMs !== undefined ? { timeoutMs: settings.timeoutMs } : {}),
          ...(settings.retryAttempts !== undefined ? { retry: { ...DEFAULT_RETRY_POLICY, attempts: Math.max(1, settings.retryAttempts) } } : {}),
          ...(birthday !== undefined ? { scanStartHeight: birthday } : {}),
        });
        ctx.logger.info(`chain source: ${source.label}${birthday !== undefined ? ` (wallet birthday ${birthday})` : ""}`);
        return source;
      })(), chainNetworkOf(wallet.network));
    });
    ctx.events.on(WalletUnloaded, () => chain.detach());

    for (const r of bitcoinRoutes(chain)) ctx.route(r);
  },
});

export default bitcoinPlugin;
