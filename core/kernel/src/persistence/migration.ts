/** SQL dialects the kernel supports. */
export type SqlDialect = "sqlite" | "postgresql";

/**
 * A plugin's schema change. Names are global and ordered: `<plugin>_<NNNN>_<what>`
 * (e.g. `wallet_0001_init`). `up` returns the statements for the dialect in use; they run in one
 * transaction together with the bookkeeping row, so a migration either applies fully or not at all.
 */
export interface MigrationDefinition {
  name: string;
  up(dialect: SqlDialect): string[];
}

/** Identity helper for typing. */
export function defineMigration(def: MigrationDefinition): MigrationDefinition {
  return def;
}
