/**
 * Makes every commit MikroORM runs on the SQLite connection durable before its caller goes on,
 * with the write-ahead log synced off the event loop ({@link WalSync}). Hooked into kysely's
 * SQLite connection (MikroORM's `onCreateConnection`), so transactions, flushes outside a
 * transaction, statements on their own and migrations are all covered: a write statement that
 * leaves the connection outside a transaction (a `commit`, or an autocommitted write) returns only
 * once the log is synced, the connection's mutex held meanwhile — except the commit of
 * `Database.transaction`, which syncs after releasing the connection. A read outside a
 * transaction returns once what it saw is on disk (a commit may still be syncing).
 */
import type { WalSync } from "./wal-sync.js";

/** The part of the better-sqlite3 connection used here and by `Database`. */
export interface NativeConnection {
  readonly inTransaction: boolean;
  readonly open: boolean;
  prepare(sql: string): { pluck(): { get(): unknown } };
}

/** The part of kysely's connection wrapped here. */
interface KyselyConnection {
  executeQuery(query: { sql: string }): Promise<{ numAffectedRows?: bigint; rows: unknown[] }>;
}

/** A rollback of the whole transaction (not to a savepoint). */
const ROLLBACK = /^\s*rollback\s*;?\s*$/i;

/** Statements that write nothing for a sync to make durable. */
const NOTHING_WRITTEN = /^\s*(rollback|begin|savepoint|release)\b/i;

/** The start and the end of a transaction. */
const BEGIN_OR_COMMIT = /^\s*(begin|commit|end)\b/i;

/**
 * The `onCreateConnection` hook: wraps the connection's `executeQuery`. `native.connection` is the
 * better-sqlite3 database, set once MikroORM opened it; until then every write is synced.
 * `syncedByCaller` answers whether the statement belongs to a transaction whose caller syncs
 * after the connection is released (`Database.transaction`): its `begin` waits for nothing and
 * its `commit` returns at once, so other transactions run while its log is synced and share the
 * next sync (group commit across transactions).
 */
export function durableCommits(wal: WalSync, native: { connection?: NativeConnection }, syncedByCaller: () => boolean = () => false): (connection: unknown) => void {
  return (connection) => {
    const c = connection as KyselyConnection;
    const execute = c.executeQuery.bind(c);
    c.executeQuery = async (query) => {
      if (BEGIN_OR_COMMIT.test(query.sql) && syncedByCaller()) return execute(query);
      const outside = native.connection?.inTransaction !== true;
      // a commit whose sync failed did commit on the connection: the rollback kysely sends after
      // the failure finds no transaction, and must still end it so the connection is released
      if (outside && native.connection && ROLLBACK.test(query.sql)) return { rows: [] };
      const result = await execute(query);
      if (native.connection?.inTransaction === true) return result;
      // a reader (select, pragma query) answers rows only; a writer also a count of changed rows
      const wrote = result.numAffectedRows !== undefined && !NOTHING_WRITTEN.test(query.sql);
      if (wrote) {
        await wal.flush();
      } else if (outside || ROLLBACK.test(query.sql)) {
        // a read outside a transaction, or a transaction that gave up, may have seen a commit
        // whose sync is under way (made past MikroORM, or by a transaction that syncs after
        // releasing the connection): answered once that commit is on disk
        const seen = wal.seenDurable();
        // a rollback never fails for it (its caller has its own error, and the connection must be released)
        if (seen) await (outside ? seen : seen.catch(() => undefined));
      }
      return result;
    };
  };
}
