/**
 * Prepared statements on the SQLite connection itself (better-sqlite3, under MikroORM), for
 * {@link LeanSql}: MikroORM inlines every parameter into the SQL text, so SQLite parses and
 * compiles each of its statements anew; here a statement's text keeps its `?` placeholders, is
 * compiled once and then only bound.
 *
 * A statement runs here only when it cannot fall into someone else's transaction (see
 * `Database.sqliteNow`); the values it binds are the ones MikroORM would have written (booleans
 * as 0/1, bytes as blobs). Anything else is left to MikroORM (`undefined` answers).
 */

/** The part of a better-sqlite3 statement this uses. */
interface Statement {
  all(...params: unknown[]): unknown[];
  run(...params: unknown[]): { changes: number };
}

/** The part of a better-sqlite3 database this uses. */
interface Connection {
  readonly inTransaction: boolean;
  prepare(sql: string): Statement;
}

/** How many compiled statements are kept (the hot path has a few dozen distinct ones). */
const CACHE_SIZE = 256;

/** Binds as MikroORM would write it, or `undefined` for a value it would format otherwise. */
function bindable(v: unknown): unknown {
  if (v === null || typeof v === "string" || typeof v === "bigint") return v;
  if (typeof v === "number") return Number.isFinite(v) ? v : undefined;
  if (typeof v === "boolean") return v ? 1 : 0;
  if (v instanceof Uint8Array) return Buffer.from(v.buffer, v.byteOffset, v.byteLength);
  return undefined;
}

/** The texts between a statement's placeholders, by statement (LeanSql's statements are a few dozen fixed texts). */
const pieces = new Map<string, readonly string[]>();

/** `query` cut at each `?` outside quoted text: one more piece than placeholders. */
function piecesOf(query: string): readonly string[] {
  let known = pieces.get(query);
  if (known) return known;
  const cut: string[] = [];
  let from = 0;
  let quoted = false;
  for (let i = 0; i < query.length; i++) {
    const c = query.charCodeAt(i);
    if (c === 39 /* ' */) quoted = !quoted;
    else if (c === 63 /* ? */ && !quoted) {
      cut.push(query.slice(from, i));
      from = i + 1;
    }
  }
  cut.push(query.slice(from));
  if (pieces.size >= CACHE_SIZE) pieces.delete(pieces.keys().next().value!);
  pieces.set(query, (known = cut));
  return known;
}

/**
 * The statement with each `?` whose parameter is an array widened to one `?` per element (an
 * `in (…)` list), and the flat parameters; `undefined` when a value is not bindable here or an
 * array is empty. Quoted text is left as it is. When no list holds more than one value, the
 * statement is `query` itself; where its placeholders are is worked out once per statement text.
 */
export function expandPlaceholders(query: string, params: readonly unknown[]): { sql: string; values: unknown[] } | undefined {
  const cut = piecesOf(query);
  if (cut.length - 1 !== params.length) return undefined;
  const values: unknown[] = [];
  let widened = false;
  for (const p of params) {
    const list = Array.isArray(p) ? p : [p];
    if (list.length === 0) return undefined;
    if (list.length > 1) widened = true;
    for (const item of list) {
      const b = bindable(item);
      if (b === undefined) return undefined;
      values.push(b);
    }
  }
  if (!widened) return { sql: query, values };
  let sql = cut[0]!;
  params.forEach((p, k) => {
    sql += (Array.isArray(p) ? p.map(() => "?").join(", ") : "?") + cut[k + 1]!;
  });
  return { sql, values };
}

/** Prepared statements of one better-sqlite3 connection. */
export class SqliteStatements {
  private readonly cache = new Map<string, Statement>();

  private constructor(private readonly connection: Connection) {}

  /** The connection behind a MikroORM SQLite connection, or `undefined` when it has none. */
  static async of(mikroConnection: unknown): Promise<SqliteStatements | undefined> {
    const c = mikroConnection as { getNativeClient?: () => Promise<unknown> };
    if (typeof c.getNativeClient !== "function") return undefined;
    const db = (await c.getNativeClient()) as Partial<Connection> | undefined;
    if (!db || typeof db.prepare !== "function" || typeof db.inTransaction !== "boolean") return undefined;
    return new SqliteStatements(db as Connection);
  }

  /** Whether the connection is inside a transaction now. */
  get inTransaction(): boolean {
    return this.connection.inTransaction;
  }

  /** Rows of a `select`, or `undefined` when the statement is left to MikroORM. */
  all<T>(query: string, params: readonly unknown[]): T[] | undefined {
    const e = expandPlaceholders(query, params);
    return e ? (this.statement(e.sql).all(...e.values) as T[]) : undefined;
  }

  /** Rows changed by an `insert`, `update` or `delete`, or `undefined` when the statement is left to MikroORM. */
  run(query: string, params: readonly unknown[]): number | undefined {
    const e = expandPlaceholders(query, params);
    return e ? this.statement(e.sql).run(...e.values).changes : undefined;
  }

  private statement(sql: string): Statement {
    let s = this.cache.get(sql);
    if (!s) {
      s = this.connection.prepare(sql);
      if (this.cache.size >= CACHE_SIZE) this.cache.delete(this.cache.keys().next().value!);
      this.cache.set(sql, s);
    }
    return s;
  }
}
