/** The events plugin's settings (`pluginConfig.events`); every one has a default. */
export interface EventsConfig {
  /** How long events and finished deliveries are kept (default 30 days). */
  retentionDays: number;
  /** Pause between two pruning runs (default 1 h). */
  pruneIntervalMs: number;
  /** Pause between two sequencing runs of the background task (default 1 s; commits also wake it). */
  sequenceIntervalMs: number;
  /** Pause between two looks for due webhook deliveries (default 1 s; new events also wake it). */
  deliveryPollMs: number;
  /** Time-out of one delivery request (default 10 s). */
  deliveryTimeoutMs: number;
  /** Wait after the first failed attempt; doubled after each further one (default 10 s)… */
  retryBaseMs: number;
  /** …up to this (default 1 h). */
  retryMaxMs: number;
  /** Automatic attempts of one delivery before it is marked failed (default 15). */
  maxAttempts: number;
  /** Consecutive failed attempts, over all its deliveries, after which a webhook is disabled (default 50). */
  disableAfterFailures: number;
}

export const DEFAULT_EVENTS_CONFIG: EventsConfig = {
  retentionDays: 30,
  pruneIntervalMs: 3_600_000,
  sequenceIntervalMs: 1_000,
  deliveryPollMs: 1_000,
  deliveryTimeoutMs: 10_000,
  retryBaseMs: 10_000,
  retryMaxMs: 3_600_000,
  maxAttempts: 15,
  disableAfterFailures: 50,
};

/** The settings from the plugin's configuration section: positive numbers override the defaults. */
export function eventsConfig(section: Readonly<Record<string, unknown>>): EventsConfig {
  const out = { ...DEFAULT_EVENTS_CONFIG };
  for (const key of Object.keys(out) as (keyof EventsConfig)[]) {
    const v = section[key];
    if (v === undefined) continue;
    if (typeof v !== "number" || !Number.isFinite(v) || v <= 0) throw new Error(`events plugin: ${key} must be a positive number`);
    out[key] = v;
  }
  return out;
}

/** The wait before the automatic attempt that follows `failedAttempts` failed ones. */
export function retryDelayMs(cfg: EventsConfig, failedAttempts: number): number {
  return Math.min(cfg.retryMaxMs, cfg.retryBaseMs * 2 ** Math.max(0, failedAttempts - 1));
}
