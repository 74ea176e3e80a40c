import type { Logger } from "../log/logger.js";

/** A background task contributed by a plugin. */
export interface TaskDefinition {
  /** Unique name, `<plugin>.<task>`. */
  name: string;
  /** Pause between the end of one run and the start of the next, in milliseconds. */
  intervalMs: number;
  /** Delay before the first run (default: 0, run right away). */
  initialDelayMs?: number;
  /**
   * The pause after a run, asked when the run ends, for a task whose next run depends on its state
   * (a sync due at a time it knows): instead of {@link intervalMs}, which stays the pause after a
   * failed run and whenever this answers something other than a finite delay ≥ 0.
   */
  nextDelayMs?(): number;
  /**
   * The work; `signal` aborts when the scheduler stops or its runs are {@link Scheduler.interrupt}ed
   * (the wallet unloads). A thrown error is logged (not after an abort); the task keeps its schedule.
   */
  run(signal: AbortSignal): Promise<void> | void;
}

interface RunningTask {
  def: TaskDefinition;
  timer?: NodeJS.Timeout;
  current?: Promise<void>;
  /** Aborts the current run's signal. */
  abort?: AbortController;
  failures: number;
  runs: number;
}

/**
 * Runs tasks on intervals. Each task runs alone (never overlapping itself); an error in one task is
 * logged and isolated. {@link stop} aborts the shared signal and waits for running tasks to end.
 */
export class Scheduler {
  private readonly tasks = new Map<string, RunningTask>();
  private controller = new AbortController();
  private started = false;
  constructor(private readonly logger: Logger) {}

  /** Adds a task; if the scheduler is running it starts at once. */
  add(def: TaskDefinition): void {
    if (this.tasks.has(def.name)) throw new Error(`task ${def.name} is already scheduled`);
    const t: RunningTask = { def, failures: 0, runs: 0 };
    this.tasks.set(def.name, t);
    if (this.started) this.arm(t, def.initialDelayMs ?? 0);
  }

  /** Cancels one task (waits for its current run). */
  async remove(name: string): Promise<void> {
    const t = this.tasks.get(name);
    if (!t) return;
    this.tasks.delete(name);
    clearTimeout(t.timer);
    await t.current;
  }

  start(): void {
    if (this.started) return;
    this.started = true;
    this.controller = new AbortController();
    for (const t of this.tasks.values()) this.arm(t, t.def.initialDelayMs ?? 0);
  }

  async stop(): Promise<void> {
    this.started = false;
    this.controller.abort();
    for (const t of this.tasks.values()) clearTimeout(t.timer);
    await Promise.all([...this.tasks.values()].map((t) => t.current));
  }

  /**
   * Ends the runs under way: aborts their signal and waits for them to end. Unloading the wallet
   * calls it, so no run that began with the wallet loaded still queries its database or uses its
   * services once they go. Tasks keep their schedule: the next runs find no wallet.
   */
  async interrupt(): Promise<void> {
    const running = [...this.tasks.values()].filter((t) => t.current);
    for (const t of running) t.abort?.abort();
    await Promise.all(running.map((t) => t.current));
  }

  /** Run counters, for health reporting and tests. */
  stats(name: string): { runs: number; failures: number } | undefined {
    const t = this.tasks.get(name);
    return t && { runs: t.runs, failures: t.failures };
  }

  private arm(t: RunningTask, delay: number): void {
    t.timer = setTimeout(() => {
      t.current = this.runOnce(t).catch(() => false).then((ok) => {
        t.current = undefined;
        if (this.started && this.tasks.get(t.def.name) === t) this.arm(t, ok ? this.pauseAfter(t.def) : t.def.intervalMs);
      });
    }, delay);
    t.timer.unref?.();
  }

  /** The pause after a run that ended well: the task's own answer when it gives a usable one. */
  private pauseAfter(def: TaskDefinition): number {
    if (!def.nextDelayMs) return def.intervalMs;
    try {
      const ms = def.nextDelayMs();
      return Number.isFinite(ms) && ms >= 0 ? ms : def.intervalMs;
    } catch (e) {
      this.logger.warn(`task ${def.name}: its next delay could not be computed, ${def.intervalMs} ms then: ${e instanceof Error ? e.message : String(e)}`);
      return def.intervalMs;
    }
  }

  /** One run; answers whether it ended without an error. */
  private async runOnce(t: RunningTask): Promise<boolean> {
    t.runs++;
    const abort = new AbortController();
    t.abort = abort;
    const signal = AbortSignal.any([this.controller.signal, abort.signal]);
    try {
      await t.def.run(signal);
      return true;
    } catch (e) {
      t.failures++;
      if (!signal.aborted) {
        this.logger.warn(`task ${t.def.name} failed: ${e instanceof Error ? e.message : String(e)}`);
      }
      return false;
    } finally {
      t.abort = undefined;
    }
  }
}
