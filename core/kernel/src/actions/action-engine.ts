import { randomUUID } from "node:crypto";
import type { Database } from "../persistence/database.js";
import { LeanSql } from "../persistence/lean-sql.js";
import type { Logger } from "../log/logger.js";
import { ActionRecord } from "./action-record.js";

/** The columns of an action row the engine reads back. */
interface ActionRow {
  id: string;
  kind: string;
  step: string;
  state: string;
  error?: string | null;
}

/**
 * The unfinished actions whose wait is over (their ids and kinds: each is driven from its own row),
 * and those of one kind: both read from the partial index `kernel_action_unfinished` (ended actions
 * stay in the table, one a payment).
 */
export const DUE_ACTIONS_SQL = "select id, kind from {t} where step not in ('done', 'failed') and not_before <= ? order by not_before, id";
export const UNFINISHED_OF_KIND_SQL = "select id, kind, step, state, error from {t} where step not in ('done', 'failed') and kind = ? order by updated_at, id";

/** What a step decides: go on to another step, finish, fail, or wait and run the same step again later. */
export type StepOutcome<S> =
  | { next: string; state: S }
  | { done: true; state: S }
  | { failed: string; state: S }
  | { waitMs: number; state?: S };

/** One step. It may be re-run after a crash, so its side effects must be idempotent. */
export type ActionStep<S> = (state: S, ctx: { id: string; signal?: AbortSignal }) => Promise<StepOutcome<S>>;

/** A kind of multi-step action (e.g. `ark.board`, `ark.arkoor-send`). */
export interface ActionDefinition<S> {
  kind: string;
  firstStep: string;
  steps: Record<string, ActionStep<S>>;
  /** Called once when the action ends (done or failed), in the same database transaction that records the end. */
  onEnd?: (id: string, outcome: "done" | "failed", state: S, error?: string) => Promise<void> | void;
  /**
   * Steps that only read and write the wallet database (no call to the outside world). The engine
   * runs such a step inside the transaction that records the step leading to it, and records its
   * own outcome there too (a local step followed by local steps, or by the end, commits as one),
   * so a crash leaves either everything or nothing of them. A thrown error rolls them back.
   */
  localSteps?: readonly string[];
}

/**
 * Hears how long each phase of an action took, in seconds: `begin` (the new row and its leading
 * local steps, one transaction), a step's name (its run, the calls to the outside world
 * included), `record:<step>` (recording that step's outcome, with the local steps it leads to,
 * in one transaction: the commit included).
 */
export type ActionTimingObserver = (kind: string, phase: string, seconds: number) => void;

/** A snapshot of an action, for callers and tests. */
export interface ActionStatus<S = unknown> {
  id: string;
  kind: string;
  step: string;
  state: S;
  error?: string;
}

/**
 * Drives persisted, resumable multi-step actions. The rule that makes them crash-safe: the
 * action row (next step + state) is written BEFORE the step that talks to the outside runs, and
 * every step's result is written before the next step starts. After a restart, `resumeAll`
 * re-runs each unfinished action from its last saved step.
 */
export class ActionEngine {
  private readonly defs = new Map<string, ActionDefinition<any>>();
  private readonly running = new Map<string, Promise<ActionStatus>>();
  private readonly persistListeners: ((id: string, kind: string) => Promise<void>)[] = [];
  /** The rows a running action reads and writes at every step, in plain SQL (no unit of work on the hot path). */
  private readonly rows: LeanSql;
  private readonly timingObservers: ActionTimingObserver[] = [];

  constructor(private readonly db: Database, private readonly logger: Logger, private readonly now: () => number = Date.now) {
    this.rows = new LeanSql(db, "kernel_action");
  }

  define<S>(def: ActionDefinition<S>): void {
    if (this.defs.has(def.kind)) throw new Error(`action kind ${def.kind} is already defined`);
    this.defs.set(def.kind, def);
  }

  /** Hears the duration of every phase of every action (see {@link ActionTimingObserver}); for metrics. */
  observeTimings(fn: ActionTimingObserver): void {
    this.timingObservers.push(fn);
  }

  private timed(kind: string, phase: string, since: number): void {
    if (this.timingObservers.length === 0) return;
    const seconds = (performance.now() - since) / 1000;
    for (const fn of this.timingObservers) {
      try {
        fn(kind, phase, seconds);
      } catch (e) {
        this.logger.warn(`an action timing observer failed: ${e instanceof Error ? e.message : String(e)}`);
      }
    }
  }

  /** Runs `fn` in the transaction that stores each new action (e.g. to link it to the request that started it). */
  onPersist(fn: (id: string, kind: string) => Promise<void>): void {
    this.persistListeners.push(fn);
  }

  /** Persists a new action, then drives it until it ends or waits. Returns its status then. */
  async start<S>(kind: string, state: S, id: string = randomUUID()): Promise<ActionStatus<S>> {
    await this.begin(kind, state, id);
    return (await this.drive(id)) as ActionStatus<S>;
  }

  /**
   * Persists a new action (nothing when `id` exists already), then runs its leading local steps
   * (see {@link ActionDefinition.localSteps}) and returns; {@link drive} runs the rest. A caller
   * holding a lock only for what the local steps do (e.g. locking the inputs a selection chose)
   * can release it before the action talks to the outside world. `persist`, when given, writes
   * what the state refers to (e.g. keys it reserved) in the transaction that stores the new action.
   */
  async begin<S>(kind: string, state: S, id: string = randomUUID(), persist?: () => Promise<void>): Promise<ActionStatus<S>> {
    const def = this.def(kind);
    let r = await this.read(id);
    if (!r) {
      const since = performance.now();
      // The new row and the leading local steps commit together: those steps only write the
      // wallet database, so a crash before this commit leaves no trace of the action at all
      // (nothing was asked of the outside world yet), and one commit is saved.
      r = await this.db.transaction(async () => {
        const row: ActionRow = { id, kind, step: def.firstStep, state: JSON.stringify(state), error: null };
        await this.rows.run(
          "insert into {t} (id, kind, step, state, error, not_before, updated_at) values (?, ?, ?, ?, null, 0, ?)",
          [row.id, row.kind, row.step, row.state, this.now()],
        );
        await persist?.();
        for (const listener of this.persistListeners) await listener(id, kind);
        if (!this.isLocal(def, row.step)) return row;
        return (await this.record(id, def, { next: row.step, state })).row;
      });
      this.timed(kind, "begin", since);
      return toStatus<S>(r);
    }
    if (this.isLocal(def, r.step) && !this.running.has(id)) r = (await this.record(id, def, { next: r.step, state: JSON.parse(r.state) as S })).row;
    return toStatus<S>(r);
  }

  /** Runs an action's steps from its saved step until it ends or waits. Concurrent calls share one run. */
  drive(id: string): Promise<ActionStatus> {
    const current = this.running.get(id);
    if (current) return current;
    const run = this.runSteps(id).finally(() => this.running.delete(id));
    this.running.set(id, run);
    return run;
  }

  /** Drives every unfinished action whose wait is over (at wallet load, and periodically). */
  async resumeAll(): Promise<void> {
    const rows = await this.rows.all<{ id: string; kind: string }>(DUE_ACTIONS_SQL, [this.now()]);
    for (const r of rows) {
      await this.drive(r.id).catch((e: unknown) => this.logger.warn(`action ${r.kind} ${r.id}: ${e instanceof Error ? e.message : String(e)}`));
    }
  }

  async status<S>(id: string): Promise<ActionStatus<S> | undefined> {
    const r = await this.db.em().findOne(ActionRecord, { id });
    return r ? toStatus<S>(r) : undefined;
  }

  /** Unfinished actions of a kind (e.g. pending boards). */
  async unfinished<S>(kind: string): Promise<ActionStatus<S>[]> {
    return (await this.rows.all<ActionRow>(UNFINISHED_OF_KIND_SQL, [kind])).map((r) => toStatus<S>(r));
  }

  private def(kind: string): ActionDefinition<any> {
    const d = this.defs.get(kind);
    if (!d) throw new Error(`unknown action kind ${kind}`);
    return d;
  }

  private isLocal(def: ActionDefinition<any>, step: string): boolean {
    return def.localSteps?.includes(step) ?? false;
  }

  /** The action row `id`, or `undefined`. */
  private async read(id: string): Promise<ActionRow | undefined> {
    return (await this.rows.all<ActionRow>("select id, kind, step, state, error from {t} where id = ?", [id]))[0];
  }

  private async runSteps(id: string): Promise<ActionStatus> {
    let r = await this.read(id);
    if (!r) throw new Error(`unknown action ${id}`);
    for (let guard = 0; guard < 1000; guard++) {
      if (r.step === "done" || r.step === "failed") return toStatus(r);
      const def = this.def(r.kind);
      let outcome: StepOutcome<unknown>;
      const ran = r.step;
      if (this.isLocal(def, r.step)) {
        outcome = { next: r.step, state: JSON.parse(r.state) };
      } else {
        const step = def.steps[r.step];
        if (!step) throw new Error(`action ${r.kind} has no step ${r.step}`);
        const since = performance.now();
        outcome = await step(JSON.parse(r.state), { id });
        this.timed(def.kind, ran, since);
      }
      const since = performance.now();
      const recorded = await this.record(id, def, outcome);
      this.timed(def.kind, `record:${ran}`, since);
      r = recorded.row;
      if (recorded.waiting) return toStatus(r);
    }
    throw new Error(`action ${id} did not settle after 1000 steps`);
  }

  /**
   * Records `outcome` in one transaction: the next step and state, a wait, or the end (with
   * `onEnd`). When the next step is local it runs inside this same transaction and its outcome is
   * recorded there as well, until a step that is not local, a wait or the end.
   */
  private record(id: string, def: ActionDefinition<any>, first: StepOutcome<unknown>): Promise<{ row: ActionRow; waiting: boolean }> {
    return this.db.transaction(async () => {
      const row = await this.read(id);
      if (!row) throw new Error(`unknown action ${id}`);
      // one update of the row per transaction, when the outcome is settled
      const save = async (notBefore: number): Promise<void> => {
        const n = await this.rows.run(
          "update {t} set step = ?, state = ?, error = ?, not_before = ?, updated_at = ? where id = ?",
          [row.step, row.state, row.error ?? null, notBefore, this.now(), id],
        );
        if (n !== 1) throw new Error(`action ${id} vanished while being recorded`);
      };
      let outcome = first;
      for (let guard = 0; guard < 1000; guard++) {
        if ("waitMs" in outcome) {
          if (outcome.state !== undefined) row.state = JSON.stringify(outcome.state);
          await save(this.now() + outcome.waitMs);
          return { row, waiting: true };
        }
        row.state = JSON.stringify(outcome.state);
        if ("next" in outcome) {
          row.step = outcome.next;
          if (!this.isLocal(def, outcome.next)) {
            await save(0);
            return { row, waiting: false };
          }
          const step = def.steps[outcome.next];
          if (!step) throw new Error(`action ${def.kind} has no step ${outcome.next}`);
          outcome = await step(outcome.state, { id });
          continue;
        }
        const end = "done" in outcome ? "done" : "failed";
        const error = "failed" in outcome ? outcome.failed : null;
        // The end of the action and what `onEnd` writes (e.g. its movement's final status) commit together.
        Object.assign(row, { step: end, error });
        await save(0);
        await def.onEnd?.(id, end, outcome.state, error ?? undefined);
        return { row, waiting: false };
      }
      throw new Error(`action ${id} did not settle after 1000 local steps`);
    });
  }
}

function toStatus<S>(r: ActionRow): ActionStatus<S> {
  return { id: r.id, kind: r.kind, step: r.step, state: JSON.parse(r.state) as S, ...(r.error ? { error: r.error } : {}) };
}
