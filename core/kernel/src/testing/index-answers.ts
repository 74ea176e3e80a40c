import type { DatabaseLocation } from "../persistence/database.js";

/** Runs one statement and answers its rows (a `LeanSql`'s `all`, a store's read). */
export type RunSql = (query: string, params: readonly unknown[]) => Promise<Record<string, unknown>[]>;

/**
 * Whether index `name` answers `query` in the database at `loc`: on SQLite the query's plan names
 * it; on PostgreSQL the index exists in the location's schema with a definition matching
 * `definition` — its planner may still scan a table as small as a test's. `evidence` is the plan or
 * the definition found, for the assertion's message.
 */
export async function indexAnswers(
  run: RunSql, loc: DatabaseLocation, name: string, query: string, params: readonly unknown[], definition: RegExp,
): Promise<{ ok: boolean; evidence: string }> {
  if (loc.dialect === "sqlite") {
    const evidence = (await run(`explain query plan ${query}`, params)).map((r) => String(r.detail)).join(" | ");
    return { ok: evidence.includes(name), evidence };
  }
  const defs = (await run("select indexdef from pg_indexes where indexname = ? and schemaname = ?", [name, loc.schema])).map((r) => String(r.indexdef));
  return { ok: defs.length === 1 && definition.test(defs[0]!), evidence: defs.join(" | ") || `no index ${name} in schema ${loc.schema}` };
}
