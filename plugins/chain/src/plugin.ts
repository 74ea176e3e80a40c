import {
  ChainSourceRegistryService, ChainSourceService, DEFAULT_RETRY_POLICY, Database, Metrics, Readiness, WalletSession, definePlugin,
  type ChainSourceTuning, type RetryPolicy,
} from "@tender/core";
import { WalletLifecycleService, WalletSettingsService } from "@tender/plugin-wallet";
import { ChainBirthdayRow, bitcoinChainStateMigration, readBirthday, writeBirthday } from "./chain-birthday.js";
import { buildChainSource } from "./chain-source-kind.js";
import { chainSourceCreationCheck } from "./network-check.js";
import { chainRoutes } from "./routes.js";
import { registerChainHealth } from "./chain-health.js";

/** Settings under `pluginConfig.chain`. */
interface ChainPluginConfig {
  /** Per-request timeout of the wallet's chain source. */
  timeoutMs?: number;
  /** Attempts per call of the wallet's chain source when it is unreachable. Default 4. */
  retryAttempts?: number;
  /** Timeout of the connection test at wallet creation. Default 5 s. */
  creationCheckTimeoutMs?: number;
  /** `/readyz` fails when the tip block is older than this (0: never); default 2 h, off on regtest. */
  readyMaxTipAgeSecs?: number;
}

/** The creation check tries twice, quickly: a create request should not hang on a dead source. */
const CREATION_CHECK_RETRY: RetryPolicy = { ...DEFAULT_RETRY_POLICY, attempts: 2, initialDelayMs: 200 };

/**
 * The chain plugin: provides the loaded wallet's {@link ChainSourceService}, built on wallet load
 * by the daemon's chain-source registry from the kind the wallet's settings name (`config.toml`
 * and its `TENDER_<KEY>` overrides); checks at wallet
 * creation that the source answers on the wallet's network and records the wallet's chain
 * birthday (`bitcoin_chain_state`, where a bitcoind source starts scanning); serves
 * `GET /api/v1/bitcoin/tip`.
 */
export const chainPlugin = definePlugin({
  name: "chain",
  version: "0.1.0",
  provides: [ChainSourceService],
  consumes: [ChainSourceRegistryService, WalletLifecycleService, WalletSettingsService],
  register(ctx) {
    const settings = ctx.pluginConfig as ChainPluginConfig;
    const registry = ctx.get(ChainSourceRegistryService);
    const lifecycle = ctx.get(WalletLifecycleService);
    const db = ctx.container.resolve(Database);
    ctx.entities(ChainBirthdayRow);
    ctx.migrations(bitcoinChainStateMigration);

    // The birthday found by the creation check is stored when the new wallet's database is open.
    let createdBirthday: number | undefined;
    lifecycle.creationChecks.add("chain-source", chainSourceCreationCheck(registry, {
      timeoutMs: settings.creationCheckTimeoutMs ?? 5_000, retry: CREATION_CHECK_RETRY,
    }, (height) => { createdBirthday = height; }));

    registerChainHealth(ctx.container.resolve(Readiness), ctx.container.resolve(Metrics), ctx.container.resolve(WalletSession),
      ctx.walletService(ChainSourceService), settings.readyMaxTipAgeSecs);
    ctx.provideForWallet(ChainSourceService, {
      create: async ({ wallet, get }) => {
        const walletSettings = await get(WalletSettingsService);
        const fresh = createdBirthday;
        createdBirthday = undefined;
        if (fresh !== undefined) await writeBirthday(db, fresh);
        const birthday = await readBirthday(db);
        const tuning: ChainSourceTuning = {
          ...(settings.timeoutMs !== undefined ? { timeoutMs: settings.timeoutMs } : {}),
          ...(settings.retryAttempts !== undefined ? { retry: { ...DEFAULT_RETRY_POLICY, attempts: Math.max(1, settings.retryAttempts) } } : {}),
          ...(birthday !== undefined ? { scanStartHeight: birthday } : {}),
        };
        const source = buildChainSource(registry, walletSettings, wallet.network, tuning);
        ctx.logger.info(`chain source: ${source.label}${birthday !== undefined ? ` (wallet birthday ${birthday})` : ""}`);
        return source;
      },
    });

    for (const r of chainRoutes(ctx.walletService(ChainSourceService))) ctx.route(r);
  },
});

export default chainPlugin;
