import type { TenderPlugin } from "@tender/core";
import arkPlugin from "@tender/plugin-ark";
import feesPlugin from "@tender/plugin-fees";
import chainPlugin from "@tender/plugin-chain";
import boardsPlugin from "@tender/plugin-boards";
import exitsPlugin from "@tender/plugin-exits";
import offboardPlugin from "@tender/plugin-offboard";
import lightningPlugin from "@tender/plugin-lightning";
import roundsPlugin from "@tender/plugin-rounds";
import historyPlugin from "@tender/plugin-history";
import notificationsPlugin from "@tender/plugin-notifications";
import eventsPlugin from "@tender/plugin-events";
import onchainPlugin from "@tender/plugin-onchain";
import walletPlugin from "@tender/plugin-wallet";

/** The plugins tenderd loads when its configuration names none: every rail and concern it ships. */
export const DEFAULT_PLUGINS: readonly TenderPlugin[] = [
  walletPlugin, chainPlugin, feesPlugin, onchainPlugin, notificationsPlugin, historyPlugin, eventsPlugin, arkPlugin, boardsPlugin, roundsPlugin, exitsPlugin, offboardPlugin, lightningPlugin,
];

/** The module names of {@link DEFAULT_PLUGINS}, for a configuration file that lists them (and adds its own). */
export const DEFAULT_PLUGIN_MODULES: readonly string[] = [
  "@tender/plugin-wallet", "@tender/plugin-chain", "@tender/plugin-fees", "@tender/plugin-onchain", "@tender/plugin-notifications",
  "@tender/plugin-history", "@tender/plugin-events", "@tender/plugin-ark", "@tender/plugin-boards", "@tender/plugin-rounds", "@tender/plugin-exits", "@tender/plugin-offboard", "@tender/plugin-lightning",
];
