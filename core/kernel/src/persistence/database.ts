import { AsyncLocalStorage } from "node:async_hooks";
import { existsSync, rmSync } from "node:fs";
import { MikroORM, type EntityManager } from "@mikro-orm/core";
import { ReflectMetadataProvider } from "@mikro-orm/decorators/legacy";
import { Migration, Migrator } from "@mikro-orm/migrations";
import { SqliteDriver } from "@mikro-orm/sqlite";
import { PostgreSqlDriver } from "@mikro-orm/postgresql";
import type { Logger } from "../log/logger.js";
import type { MigrationDefinition, SqlDialect } from "./migration.js";
import { SqliteStatements } from "./sqlite-statements.js";
import { PoolCloseGuard, type GuardedPool } from "./pool-close-guard.js";
import { WalSync, type FileSync } from "./wal-sync.js";
import { durableCommits, type NativeConnection } from "./durable-commits.js";

/** How long a close waits for the queries under way to end before it closes anyway. */
const CLOSE_SETTLE_MS = 10_000;

/** Where the data lives: an SQLite file (default, in the datadir) or a PostgreSQL schema. */
export type DatabaseLocation =
  | { dialect: "sqlite"; path: string }
  | { dialect: "postgresql"; url: string; schema: string };

/** The entities and migrations the plugins contributed. */
export interface DatabaseModel {
  entities: Function[];
  migrations: MigrationDefinition[];
}

const MIGRATIONS_TABLE = "tender_migrations";

/** Whether an SQLite location is a database in memory (nothing on disk to sync). */
function isInMemory(path: string): boolean {
  return path === "" || path === ":memory:" || path.startsWith("file::memory:") || /[?&]mode=memory\b/.test(path);
}

function migrationClass(def: MigrationDefinition, dialect: SqlDialect) {
  return class extends Migration {
    override up(): void {
      for (const sql of def.up(dialect)) this.addSql(sql);
    }
  };
}

/**
 * The kernel's persistence: MikroORM over SQLite or PostgreSQL, with the plugins' migrations
 * applied in order on open (never schema sync). The wallet lifecycle opens, closes and destroys it.
 */
export class Database {
  private orm: MikroORM | undefined;
  private location: DatabaseLocation | undefined;
  private readonly tx = new AsyncLocalStorage<{ em: EntityManager; afterCommit: (() => void)[] }>();
  /** Set while {@link transaction} begins and commits on SQLite: it syncs the log itself, once the connection is free. */
  private readonly syncAfter = new AsyncLocalStorage<true>();
  private readonly drains: (() => Promise<void>)[] = [];
  private sqlite: SqliteStatements | undefined;
  private poolGuard: PoolCloseGuard | undefined;
  private wal: WalSync | undefined;

  /** `fileSync` replaces the fsync of the write-ahead log (tests hold or fail it). */
  constructor(private readonly model: DatabaseModel, private readonly logger: Logger, private readonly fileSync?: FileSync) {}

  get isOpen(): boolean {
    return this.orm !== undefined;
  }

  get dialect(): SqlDialect {
    if (!this.location) throw new Error("database is not open");
    return this.location.dialect;
  }

  /** Opens the database and applies pending migrations. */
  async open(location: DatabaseLocation): Promise<void> {
    if (this.orm) throw new Error("database is already open");
    const migrations = {
      tableName: MIGRATIONS_TABLE,
      snapshot: false,
      silent: true,
      transactional: true,
      allOrNothing: true,
      migrationsList: this.model.migrations.map((m) => ({ name: m.name, class: migrationClass(m, location.dialect) })),
      ...(location.dialect === "postgresql" ? { schema: location.schema } : {}),
    };
    const common = {
      entities: this.model.entities,
      metadataProvider: ReflectMetadataProvider,
      extensions: [Migrator],
      migrations,
      debug: false,
      allowGlobalContext: false,
      discovery: { warnWhenNoEntities: false },
    };
    let orm: MikroORM;
    const guard = new PoolCloseGuard();
    let wal: WalSync | undefined;
    if (location.dialect === "sqlite") {
      // Write-ahead log, synced once per commit (a committed transaction survives a power loss):
      // SQLite writes the log (`synchronous = normal`) and `WalSync` syncs it off the event loop
      // before the committer goes on (see wal-sync.ts).
      // (an in-memory database has nothing to make durable)
      wal = isInMemory(location.path) ? undefined : new WalSync(location.path, this.fileSync, (e) => this.logger.error(e.message), (seconds) => this.logSyncObserver?.(seconds));
      const native: { connection?: NativeConnection } = {};
      // the begin and commit of `transaction` (outside the caller's own function, whose context holds `tx`)
      const syncedByCaller = () => this.syncAfter.getStore() === true && this.tx.getStore() === undefined;
      orm = await MikroORM.init({ ...common, driver: SqliteDriver, dbName: location.path, ...(wal ? { onCreateConnection: durableCommits(wal, native, syncedByCaller) } : {}) } as never);
      native.connection = await (orm.em.getConnection() as unknown as { getNativeClient(): Promise<NativeConnection> }).getNativeClient();
      if (wal) {
        const connection = native.connection;
        const total = connection.prepare("select total_changes()").pluck();
        wal.changes = () => (connection.open && !connection.inTransaction ? Number(total.get()) : undefined);
      }
      await orm.em.getConnection().execute("pragma journal_mode = wal");
      await orm.em.getConnection().execute("pragma synchronous = normal");
    } else {
      orm = await MikroORM.init({
        ...common, driver: PostgreSqlDriver, clientUrl: location.url, schema: location.schema,
        driverOptions: { onPoolCreated: (pool: GuardedPool) => guard.attach(pool) },
      } as never);
      await orm.em.getConnection().execute(`create schema if not exists "${location.schema}"`);
    }
    try {
      const applied = await orm.migrator.up();
      if (applied.length) this.logger.debug(`applied migrations: ${applied.map((m) => m.name).join(", ")}`);
    } catch (e) {
      await orm.close(true);
      throw e;
    }
    this.orm = orm;
    this.wal = wal;
    this.location = location;
    this.poolGuard = location.dialect === "postgresql" ? guard : undefined;
    this.sqlite = location.dialect === "sqlite" ? await SqliteStatements.of(orm.em.getConnection()) : undefined;
  }

  /**
   * The SQLite connection's prepared statements when a plain statement may run on it at this
   * moment without landing in someone else's transaction: inside this context's
   * {@link transaction} once it has begun on the connection (the transaction holds the connection
   * until it ends), or outside any transaction (the statement commits on its own, like any
   * statement MikroORM runs there). `undefined` otherwise (PostgreSQL, or another caller's
   * transaction is open): the statement then goes through MikroORM, which waits for it.
   */
  sqliteNow(): SqliteStatements | undefined {
    const s = this.sqlite;
    if (!s || !this.orm) return undefined;
    return this.tx.getStore() ? (s.inTransaction ? s : undefined) : s.inTransaction ? undefined : s;
  }

  /**
   * Resolves once every commit made so far is on disk (SQLite: the write-ahead log synced off
   * the event loop; PostgreSQL: at once, its commits are durable when they return). Whoever
   * commits on the SQLite connection past MikroORM (prepared statements outside a transaction,
   * its own transactions) awaits it before telling anyone; MikroORM's commits do it themselves.
   */
  async durable(): Promise<void> {
    await this.wal?.flush();
  }

  /**
   * Asked right after a raw read outside a transaction, in the same turn of the event loop:
   * resolves once every commit the read could have seen is on disk, `undefined` when they already
   * are (SQLite; PostgreSQL's commits are durable when they return). The reader answers only then.
   */
  seenDurable(): Promise<void> | undefined {
    return this.wal?.seenDurable();
  }

  /** Whether a sync of the write-ahead log failed: no commit counts as durable until the database is reopened. */
  get durabilityFailed(): boolean {
    return this.wal?.failed ?? false;
  }

  /** How many times the write-ahead log was synced since the database was opened (0 on PostgreSQL). */
  get walSyncs(): number {
    return this.wal?.syncs ?? 0;
  }

  /** Seconds the syncs of the write-ahead log took since the database was opened, summed (0 on PostgreSQL). */
  get walSyncSeconds(): number {
    return this.wal?.syncSeconds ?? 0;
  }

  /**
   * Hears how long each sync of the write-ahead log took, in seconds (SQLite; the kernel's
   * metrics): the time a commit's caller waits for the disk, whatever the code does.
   */
  logSyncObserver: ((seconds: number) => void) | undefined;

  /**
   * A fresh entity manager (one per unit of work) — or, inside {@link transaction}, the
   * transaction's entity manager, so every store called there writes in that one transaction.
   */
  em(): EntityManager {
    const inTx = this.tx.getStore();
    if (inTx) return inTx.em;
    if (!this.orm) throw new Error("database is not open");
    return this.orm.em.fork();
  }

  /**
   * Runs `fn` in one database transaction: everything written through `em()` during `fn`, by any
   * plugin's store, commits together or not at all. Nested calls join the outer transaction.
   * Returns (and runs the {@link afterCommit} work) once the commit is on disk. On SQLite the
   * connection is free as soon as the transaction committed: other transactions run while its log
   * is synced, and commits made meanwhile share the next sync. A transaction that fails is
   * answered once what it read is on disk (it may have refused on a commit still syncing).
   */
  async transaction<T>(fn: () => Promise<T>): Promise<T> {
    if (this.tx.getStore()) return fn();
    if (!this.orm) throw new Error("database is not open");
    const afterCommit: (() => void)[] = [];
    const orm = this.orm;
    const wal = this.wal;
    // a failure is answered once what the transaction read is on disk: its rollback waits for that (`durable-commits.ts`)
    const result = await this.syncAfter.run(true, () => orm.em.fork().transactional((em) => this.tx.run({ em: em as EntityManager, afterCommit }, fn)));
    await wal?.flush();
    for (const f of afterCommit) {
      try {
        f();
      } catch (e) {
        this.logger.warn(`a listener of a committed transaction failed: ${e instanceof Error ? e.message : String(e)}`);
      }
    }
    return result;
  }

  /**
   * Runs `fn` once what is written now is committed: at once outside a transaction, after the
   * outermost {@link transaction} commits inside one, never when it rolls back. For telling others
   * about a change (notifications), so nobody hears of a change that is not there.
   */
  afterCommit(fn: () => void): void {
    const t = this.tx.getStore();
    if (t) t.afterCommit.push(fn);
    else fn();
  }

  /** Names of the applied migrations, in order. */
  async appliedMigrations(): Promise<string[]> {
    if (!this.orm) throw new Error("database is not open");
    return (await this.orm.migrator.getExecuted()).map((m) => m.name);
  }

  /**
   * Registers work to finish before the database closes (writes queued after an answer went out,
   * such as audit rows): {@link close} awaits each drain while the database is still open, so no
   * such write runs against a closed connection pool.
   */
  addDrain(drain: () => Promise<void>): void {
    this.drains.push(drain);
  }

  async close(): Promise<void> {
    if (this.orm) {
      for (const drain of this.drains) await drain().catch((e: unknown) => this.logger.warn(`a write pending at database close failed: ${e instanceof Error ? e.message : String(e)}`));
    }
    const orm = this.orm;
    const guard = this.poolGuard;
    const wal = this.wal;
    this.orm = undefined;
    this.sqlite = undefined;
    this.wal = undefined;
    await wal?.settle();
    this.poolGuard = undefined;
    if (guard) {
      // queries under way end first; new ones are refused (a connection handed out after the pool
      // began to end would never be given back, and the close would wait for it forever)
      guard.closing();
      if (!(await guard.settled(CLOSE_SETTLE_MS))) this.logger.warn(`database close: queries still under way after ${CLOSE_SETTLE_MS / 1000} s; closing the pool anyway`);
      guard.closed();
    }
    await orm?.close(true);
    await wal?.close();
  }

  /** Closes and deletes all data: the SQLite file, or the PostgreSQL schema. */
  async destroy(location: DatabaseLocation | undefined = this.location): Promise<void> {
    await this.close();
    if (location?.dialect === "postgresql") {
      // A bare connection: dropping must not depend on the migrations (a failed creation is rolled back this way).
      const bare = await MikroORM.init({
        driver: PostgreSqlDriver, clientUrl: location.url, entities: [], metadataProvider: ReflectMetadataProvider,
        discovery: { warnWhenNoEntities: false }, debug: false,
      } as never);
      try {
        await bare.em.getConnection().execute(`drop schema if exists "${location.schema}" cascade`);
      } finally {
        await bare.close(true);
      }
    }
    if (location?.dialect === "sqlite") {
      for (const suffix of ["", "-wal", "-shm", "-journal"]) {
        if (existsSync(location.path + suffix)) rmSync(location.path + suffix, { force: true });
      }
    }
    this.location = undefined;
  }
}
