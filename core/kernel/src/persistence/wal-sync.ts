/**
 * Durable SQLite commits without stopping the event loop.
 *
 * better-sqlite3 is synchronous: with `synchronous = full` every commit's fsync of the write-ahead
 * log ran on the daemon's only JavaScript thread (≈ 0.4 ms on an idle disk, 1–1.5 ms under load,
 * three times per payment), and nothing else — HTTP, gRPC, signatures — ran meanwhile. The
 * connection now commits with `synchronous = normal` (SQLite writes the log but does not sync it)
 * and this class syncs the log file on libuv's thread pool; whoever committed waits for that sync
 * before going on, so a commit is as durable as before when its caller hears of it.
 *
 * Rules (kept by `Database` and by every user of the raw connection):
 * - a write that leaves the connection outside a transaction (a commit, or a statement on its
 *   own) is followed by {@link flush} before its caller continues (`Database.transaction` asks
 *   for it once the connection is free again, so the next transaction runs during the sync and
 *   transactions committed meanwhile share the next one: group commit);
 * - a read outside a transaction is answered only once what it saw is on disk
 *   ({@link seenDurable}, asked right after the read): nobody hears of a commit that is not on
 *   disk yet. What a read saw is measured by the connection's count of changed rows
 *   (`total_changes()`, {@link changes}), which a commit raises the moment it runs, before its
 *   committer even asks for the flush; each sync records the count it started at;
 * - a failed sync fails every later flush and read too: after an fsync error the kernel may have
 *   dropped the unwritten pages and a later sync could succeed without them, so no later commit
 *   may be taken for durable. The daemon's database answers errors until it is reopened.
 *
 * Flushes coalesce: a flush asked while one runs waits for the next one (the running one may have
 * started before the caller's commit), and every caller waiting then shares it. A writer never
 * waits for a sync before writing: its own flush comes after every earlier commit's.
 */
import { close, fsync, open } from "node:fs";
import { promisify } from "node:util";
import { dirname } from "node:path";

/** Syncs one file to disk (tests replace it to hold or fail a sync). */
export type FileSync = (path: string) => Promise<void>;

// plain descriptors, not `FileHandle`s: one left open (a database a test never closes) leaks
// instead of being closed by the garbage collector, which Node warns about
const openFd = promisify(open);
const fsyncFd = promisify(fsync);
const closeFd = promisify(close);

/** fsync of `path` through a short-lived read-only descriptor (Linux syncs the file's data whatever descriptor asks). */
export const fsyncFile: FileSync = async (path) => {
  const fd = await openFd(path, "r");
  try {
    await fsyncFd(fd);
  } finally {
    await closeFd(fd);
  }
};

/** A sync of the write-ahead log failed; the database must be reopened. */
export class DurabilityError extends Error {
  constructor(cause: unknown) {
    super(`the database could not make its commits durable (${cause instanceof Error ? cause.message : String(cause)}); it must be reopened`, { cause });
  }
}

/**
 * fsync of the files of one database, keeping the write-ahead log's descriptor open (one trip to
 * the thread pool per sync instead of three). SQLite keeps the log file while the connection is
 * open (it truncates and reuses it, never replaces it), so the descriptor stays good until
 * {@link close}.
 */
class KeptDescriptorSync {
  private fds = new Map<string, Promise<number>>();

  readonly sync: FileSync = async (path) => {
    if (!path.endsWith("-wal")) return fsyncFile(path);
    let fd = this.fds.get(path);
    if (!fd) {
      fd = openFd(path, "r");
      this.fds.set(path, fd);
      // a failed open is not kept: the next sync opens again
      fd.catch(() => this.fds.delete(path));
    }
    await fsyncFd(await fd);
  };

  async close(): Promise<void> {
    const fds = [...this.fds.values()];
    this.fds.clear();
    await Promise.allSettled(fds.map(async (fd) => closeFd(await fd)));
  }
}

/** Syncs an SQLite database's write-ahead log (`<path>-wal`) after commits, off the event loop. */
export class WalSync {
  private running: Promise<void> | undefined;
  /** The count of changed rows the running sync started at (undefined: unknown). */
  private runningFrom: number | undefined;
  private next: Promise<void> | undefined;
  /** The connection's count of changed rows that the last completed sync started at (all of them on disk). */
  private syncedChanges = 0;
  private failure: DurabilityError | undefined;
  private directorySynced = false;
  private readonly kept: KeptDescriptorSync | undefined;
  private readonly sync: FileSync;
  /** How many syncs ran (tests and metrics read it). */
  syncs = 0;
  /** Seconds the syncs of the log took, summed (each from its request to the disk's answer). */
  syncSeconds = 0;
  /**
   * The connection's count of changed rows so far (SQLite's `total_changes()`), `undefined` while
   * the connection is inside a transaction (its rows are counted before they are committed). Set
   * once the connection is open; until then a read outside a transaction waits for the flushes
   * under way.
   */
  changes: (() => number | undefined) | undefined;

  /**
   * `sync` replaces the file sync (tests); by default the log's handle stays open between syncs.
   * `onFailure` hears the first failed sync (the database logs it).
   */
  constructor(
    private readonly dbPath: string,
    sync?: FileSync,
    private readonly onFailure?: (e: DurabilityError) => void,
    /** Hears how long each completed sync of the log took, in seconds (the daemon's metrics). */
    private readonly onSynced?: (seconds: number) => void,
  ) {
    this.kept = sync ? undefined : new KeptDescriptorSync();
    this.sync = sync ?? this.kept!.sync;
  }

  /** Whether a sync failed (every later commit fails until the database is reopened). */
  get failed(): boolean {
    return this.failure !== undefined;
  }

  /**
   * Asked right after a read outside a transaction, in the same turn of the event loop: resolves
   * once every commit the read could have seen is on disk (`undefined` when they already are, so
   * the reader awaits nothing); rejects with the {@link DurabilityError} once a sync failed.
   */
  seenDurable(): Promise<void> | undefined {
    if (this.failure) return Promise.reject(this.failure);
    const seen = this.changes?.();
    if (seen === undefined) return this.running || this.next ? this.flush() : undefined;
    if (seen <= this.syncedChanges) return undefined;
    // the running sync started after every commit the read saw: it is enough
    if (this.running && this.runningFrom !== undefined && this.runningFrom >= seen) return this.running;
    return this.flush();
  }

  /** Resolves once every commit made before the call is on disk; rejects with a {@link DurabilityError} when that cannot be. */
  flush(): Promise<void> {
    if (this.failure) return Promise.reject(this.failure);
    if (!this.running) return this.start();
    // the running sync may have begun before this caller's commit: the next one covers it
    this.next ??= this.running.then(
      () => this.afterRunning(),
      () => this.afterRunning(),
    );
    return this.next;
  }

  private afterRunning(): Promise<void> {
    this.next = undefined;
    if (this.failure) return Promise.reject(this.failure);
    return this.running ?? this.start();
  }

  private start(): Promise<void> {
    // everything committed so far is in the log: this sync covers it (unknown inside a transaction)
    const from = this.changes?.();
    const run = this.syncNow().then(() => {
      if (from !== undefined && from > this.syncedChanges) this.syncedChanges = from;
    }).finally(() => {
      if (this.running === run) this.running = undefined;
    });
    this.running = run;
    this.runningFrom = from;
    return run;
  }

  private async syncNow(): Promise<void> {
    try {
      this.syncs++;
      const started = performance.now();
      await this.sync(`${this.dbPath}-wal`).catch(async (e: unknown) => {
        // no log yet (nothing committed in WAL mode so far): what was written is in the database file
        if ((e as NodeJS.ErrnoException)?.code !== "ENOENT") throw e;
        await this.sync(this.dbPath);
      });
      const seconds = (performance.now() - started) / 1000;
      this.syncSeconds += seconds;
      this.onSynced?.(seconds);
      if (!this.directorySynced) {
        // the log's directory entry, once: a log file created since the last power loss survives it
        await this.sync(dirname(this.dbPath));
        this.directorySynced = true;
      }
    } catch (e) {
      if (!this.failure) {
        this.failure = new DurabilityError(e);
        this.onFailure?.(this.failure);
      }
      throw this.failure;
    }
  }

  /** Waits for the flushes under way (before the connection closes). */
  async settle(): Promise<void> {
    await Promise.allSettled([this.running, this.next]);
  }

  /** Waits for the flushes under way and closes the log's handle (after the connection closed). */
  async close(): Promise<void> {
    await this.settle();
    await this.kept?.close();
  }
}
