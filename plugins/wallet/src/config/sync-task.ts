import type { TaskDefinition, WalletService } from "@tender/core";
import type { WalletSettings } from "./wallet-settings.js";

/** How often a {@link walletSyncTask} looks for a loaded wallet while there is none (its first run follows a load within this). */
export const SYNC_TASK_TICK_MS = 250;
/**
 * Longest a {@link walletSyncTask} sleeps while a wallet is loaded: it wakes when its next run is
 * due, and at least this often to notice another wallet (a delete and a create in between).
 */
export const SYNC_TASK_RECHECK_MS = 1_000;

/** What a rail's periodic sync is made of. */
export interface WalletSyncTaskOptions {
  /** Unique task name, `<plugin>.<task>`. */
  name: string;
  /** The loaded wallet's settings (the handle on `WalletSettingsService`). */
  settings: WalletService<WalletSettings>;
  /** The sync; runs never overlap. A throw is logged and the next run comes one interval later. */
  run(signal: AbortSignal): Promise<void>;
  /** Run as soon as a wallet is loaded, then every interval; otherwise the first run is one interval after the load. */
  runOnLoad?: boolean;
  /**
   * A fixed pause in milliseconds that replaces the wallet's `daemon_sync_interval_secs` (a
   * developer or test setting from the plugin configuration). The first run is then
   * `overrideFirstDelayMs` after the daemon starts (default: the override itself).
   */
  overrideMs?: number;
  overrideFirstDelayMs?: number;
}

/**
 * A background task that runs `run` once every `daemon_sync_interval_secs` of the loaded wallet,
 * as barkd's daemon syncs: the interval is the wallet's (read again at every load, so a wallet
 * created with another interval gets its own at once), nothing runs while no wallet is loaded,
 * and nothing runs in `daemon_manual_sync` mode (clients call the sync routes). It sleeps until its
 * next run is due (at most {@link SYNC_TASK_RECHECK_MS}), or {@link SYNC_TASK_TICK_MS} while no
 * wallet is loaded: five rails ticking four times a second each cost an idle daemon ≈ 2.7 ms of
 * CPU a second.
 */
export function walletSyncTask(o: WalletSyncTaskOptions): TaskDefinition {
  // off while no wallet is loaded and in manual-sync mode
  const off = () => o.settings.current?.daemon_manual_sync ?? true;
  if (o.overrideMs !== undefined) {
    return {
      name: o.name,
      intervalMs: o.overrideMs,
      initialDelayMs: o.overrideFirstDelayMs ?? o.overrideMs,
      run: async (signal) => {
        if (!off()) await o.run(signal);
      },
    };
  }
  let wallet: WalletSettings | undefined;
  let lastRunEnd = 0;
  return {
    name: o.name,
    intervalMs: SYNC_TASK_TICK_MS,
    nextDelayMs: () => {
      const s = o.settings.current;
      if (!s || s !== wallet) return SYNC_TASK_TICK_MS;
      if (s.daemon_manual_sync) return SYNC_TASK_RECHECK_MS;
      const due = lastRunEnd + s.daemon_sync_interval_secs * 1000 - Date.now();
      return Math.min(Math.max(due, SYNC_TASK_TICK_MS), SYNC_TASK_RECHECK_MS);
    },
    run: async (signal) => {
      const s = o.settings.current;
      if (s !== wallet) {
        wallet = s; // another wallet (or none): its interval starts now
        lastRunEnd = o.runOnLoad ? -Infinity : Date.now();
      }
      if (!s || s.daemon_manual_sync) return;
      if (Date.now() - lastRunEnd < s.daemon_sync_interval_secs * 1000) return;
      try {
        await o.run(signal);
      } finally {
        lastRunEnd = Date.now();
      }
    },
  };
}
