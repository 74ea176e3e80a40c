/** The part of a `pg` pool the guard uses. */
export interface GuardedPool {
  connect(): Promise<{ release(err?: unknown): void }>;
  readonly totalCount: number;
  readonly idleCount: number;
}

/** A query reached the database after its close began: it did not run. */
export class DatabaseClosedError extends Error {
  constructor() {
    super("database is closed");
  }
}

/**
 * Makes closing a PostgreSQL database safe while queries are still taking connections.
 *
 * Without it, a connection the pool handed out after the close began (kysely had already dropped
 * its pool, so it could neither use nor give back the client) stayed checked out forever, and the
 * pool's `end()` — which waits for every checked-out client — never returned: deleting the wallet
 * or stopping the daemon hung. With it, once {@link closing} is called no new connection is taken
 * (the query is refused with {@link DatabaseClosedError}), {@link settled} waits for those already
 * being taken and used, and a connection that still arrives after {@link closed} is given back at
 * once instead of being handed out.
 */
export class PoolCloseGuard {
  private state: "open" | "closing" | "closed" = "open";
  private readonly pools = new Set<GuardedPool>();
  private taking = 0;
  private readonly onClosed = new Set<() => void>();

  /** Guards `pool` (MikroORM's `onPoolCreated` hook hands each new pool here). */
  attach(pool: GuardedPool): void {
    this.pools.add(pool);
    const take = pool.connect.bind(pool) as (cb?: unknown) => Promise<{ release(err?: unknown): void }>;
    (pool as { connect: unknown }).connect = (cb?: unknown) => {
      if (cb !== undefined) return take(cb); // the callback form: nothing here uses it
      if (this.state !== "open") return Promise.reject(new DatabaseClosedError());
      this.taking++;
      return new Promise((resolve, reject) => {
        let answered = false;
        const refuse = () => { answered = true; reject(new DatabaseClosedError()); };
        this.onClosed.add(refuse);
        take().then((client) => {
          this.taking--;
          this.onClosed.delete(refuse);
          if (answered) client.release(); // the close gave up waiting for it: hand it back, never out
          else resolve(client);
        }, (e: unknown) => {
          this.taking--;
          this.onClosed.delete(refuse);
          if (!answered) reject(e);
        });
      });
    };
  }

  /** The close begins: connections not yet asked for are refused. */
  closing(): void {
    if (this.state === "open") this.state = "closing";
  }

  /** Whether no connection is being taken and none is in use. */
  get idle(): boolean {
    return this.taking === 0 && [...this.pools].every((p) => p.totalCount === p.idleCount);
  }

  /** Waits (at most `timeoutMs`) until {@link idle}: the queries under way end. Answers whether they did. */
  async settled(timeoutMs: number, pollMs = 5): Promise<boolean> {
    const until = Date.now() + timeoutMs;
    while (!this.idle) {
      if (Date.now() >= until) return false;
      await new Promise((resolve) => setTimeout(resolve, pollMs));
    }
    return true;
  }

  /** The pool is about to end: connections still being taken are refused (and given back when they come). */
  closed(): void {
    this.state = "closed";
    for (const refuse of [...this.onClosed]) refuse();
    this.onClosed.clear();
  }
}
