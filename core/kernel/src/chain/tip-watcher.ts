import type { ChainSource } from "./chain-source.js";
import type { BlockRef } from "./chain-types.js";

/** Options of a {@link TipWatcher}. */
export interface TipWatcherOptions {
  /** Time between polls. Default 1 s. */
  readonly intervalMs?: number;
  /** Called with each new tip (a different hash than the last one seen). */
  readonly onTip: (tip: BlockRef) => void;
  /** Called when a poll fails; polling continues. */
  readonly onError?: (err: unknown) => void;
}

/**
 * Polls a {@link ChainSource} for its tip and reports every change (new blocks and reorgs
 * alike: any new tip hash). One poll runs at a time; `stop()` ends the loop.
 *
 * @example
 * const watcher = new TipWatcher(source, { intervalMs: 500, onTip: (t) => console.log(t.height) });
 * watcher.start();
 * // …
 * watcher.stop();
 */
export class TipWatcher {
  private timer: NodeJS.Timeout | null = null;
  private last: BlockRef | null = null;
  private running = false;

  constructor(
    private readonly source: ChainSource,
    private readonly options: TipWatcherOptions,
  ) {}

  /** The last tip seen, if any. */
  get tip(): BlockRef | null {
    return this.last;
  }

  /** Starts polling (the first poll runs at once). */
  start(): void {
    if (this.running) return;
    this.running = true;
    void this.poll();
  }

  /** Stops polling; a poll in flight finishes without reporting. */
  stop(): void {
    this.running = false;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }

  /** Polls once now; resolves with the tip (reporting it if it changed). */
  async check(): Promise<BlockRef> {
    const tip = await this.source.getTip();
    if (this.last?.hash !== tip.hash) {
      this.last = tip;
      this.options.onTip(tip);
    }
    return tip;
  }

  private async poll(): Promise<void> {
    try {
      await this.check();
    } catch (err) {
      this.options.onError?.(err);
    }
    if (this.running) this.timer = setTimeout(() => void this.poll(), this.options.intervalMs ?? 1_000);
  }
}
