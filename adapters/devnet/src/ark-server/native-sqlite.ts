/**
 * Statements on the SQLite connection itself (better-sqlite3, under MikroORM), prepared once and
 * reused, for the server's hottest statements: the group commit of arkoor spends, chain
 * registrations and mailbox posts, and the reads of committed state. MikroORM inlines
 * every parameter into the SQL text, so each of its statements is parsed and compiled anew; here
 * a statement is compiled once and only bound.
 *
 * Synchronous: a transaction run here ({@link NativeSqlite.transaction}) begins and commits
 * within one turn of the event loop, so no other statement on the connection can fall inside it.
 * It refuses to start while the connection is inside a transaction of someone else.
 */

/** The part of a better-sqlite3 database this uses. */
interface BetterSqliteDatabase {
  readonly inTransaction: boolean;
  prepare(sql: string): { all(...params: unknown[]): unknown[]; run(...params: unknown[]): { changes: number } };
  transaction<F extends () => unknown>(fn: F): () => ReturnType<F>;
}

/** A result row. */
export type NativeRow = Record<string, unknown>;

/** How many compiled statements are kept. */
const CACHE_SIZE = 64;

/** Prepared statements on one better-sqlite3 connection. */
export class NativeSqlite {
  private readonly statements = new Map<string, ReturnType<BetterSqliteDatabase["prepare"]>>();

  private constructor(private readonly db: BetterSqliteDatabase) {}

  /** The connection behind a MikroORM SQLite entity manager's connection, or undefined when it has none. */
  static async of(connection: unknown): Promise<NativeSqlite | undefined> {
    const c = connection as { getNativeClient?: () => Promise<unknown> };
    if (typeof c.getNativeClient !== "function") return undefined;
    const db = (await c.getNativeClient()) as Partial<BetterSqliteDatabase> | undefined;
    if (!db || typeof db.prepare !== "function" || typeof db.transaction !== "function" || typeof db.inTransaction !== "boolean") return undefined;
    return new NativeSqlite(db as BetterSqliteDatabase);
  }

  /** Whether the connection is inside a transaction now. */
  get inTransaction(): boolean {
    return this.db.inTransaction;
  }

  /** Runs one statement: the rows (`all`) or the count of changed rows (`run`). */
  execute(query: string, params: readonly unknown[], method: "all"): NativeRow[];
  execute(query: string, params: readonly unknown[], method: "run"): { affectedRows: number };
  execute(query: string, params: readonly unknown[], method: "all" | "run"): NativeRow[] | { affectedRows: number } {
    let s = this.statements.get(query);
    if (!s) {
      s = this.db.prepare(query);
      if (this.statements.size >= CACHE_SIZE) this.statements.delete(this.statements.keys().next().value!);
      this.statements.set(query, s);
    }
    return method === "all" ? (s.all(...params) as NativeRow[]) : { affectedRows: s.run(...params).changes };
  }

  /** Runs `fn` in one transaction (committed when it returns, rolled back when it throws). */
  transaction<T>(fn: () => T): T {
    if (this.db.inTransaction) throw new Error("the connection is inside another transaction");
    return this.db.transaction(fn)() as T;
  }
}
