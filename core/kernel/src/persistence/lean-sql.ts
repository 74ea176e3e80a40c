import type { Database } from "./database.js";

/** What the entity manager of the moment offers for plain SQL (MikroORM's SQL drivers). */
interface SqlEntityManager {
  execute(query: string, params: readonly unknown[], method: "all" | "run"): Promise<unknown>;
  config: { get(key: "schema"): string | undefined };
}

/**
 * Plain SQL on the wallet database, for the rows a payment reads and writes several times: no
 * entity tracking, no change sets, no hydration. Queries go through the entity manager of the
 * moment, so inside `Database.transaction` they join that transaction. `?` marks a parameter
 * (an array fills an `in (…)` list); `{t}` in a query stands for `table`, qualified with the
 * PostgreSQL schema when there is one. On SQLite a statement runs prepared on the connection
 * itself when it can (`Database.sqliteNow`, {@link SqliteStatements}: compiled once, then only
 * bound). The same SQL runs on SQLite and PostgreSQL: rows come back
 * as the driver gives them (SQLite: numbers and 0/1 booleans; PostgreSQL: bigints as strings).
 */
export class LeanSql {
  constructor(private readonly db: Database, private readonly table: string) {}

  private prepare(query: string): { em: SqlEntityManager; sql: string } {
    const em = this.db.em() as unknown as SqlEntityManager;
    const schema = this.db.dialect === "postgresql" ? em.config.get("schema") : undefined;
    const table = schema ? `"${schema.replaceAll('"', '""')}"."${this.table}"` : this.table;
    return { em, sql: query.replaceAll("{t}", table) };
  }

  /** The rows a `select` returns. */
  async all<T>(query: string, params: readonly unknown[] = []): Promise<T[]> {
    const sqlite = this.db.sqliteNow();
    const rows = sqlite?.all<T>(query.replaceAll("{t}", this.table), params);
    if (rows) {
      // outside a transaction, answered once what the read saw is on disk
      const seen = sqlite!.inTransaction ? undefined : this.db.seenDurable();
      if (seen) await seen;
      return rows;
    }
    const { em, sql } = this.prepare(query);
    return (await em.execute(sql, params, "all")) as T[];
  }

  /** Runs an `insert`, `update` or `delete`; answers how many rows it changed. */
  async run(query: string, params: readonly unknown[] = []): Promise<number> {
    const sqlite = this.db.sqliteNow();
    const changed = sqlite?.run(query.replaceAll("{t}", this.table), params);
    if (changed !== undefined) {
      // a statement on its own committed as it ran: durable before the caller goes on
      if (!sqlite!.inTransaction) await this.db.durable();
      return changed;
    }
    const { em, sql } = this.prepare(query);
    return ((await em.execute(sql, params, "run")) as { affectedRows: number }).affectedRows;
  }
}

/** A driver's boolean (SQLite: 0/1; PostgreSQL: true/false) as a boolean. */
export function sqlBool(v: unknown): boolean {
  return v === true || v === 1 || v === "1" || v === "t" || v === "true";
}
