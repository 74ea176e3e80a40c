/**
 * Persistent state of the reference Ark server: VTXOs with their spend state (as captaind's),
 * virtual and funding transactions, mailbox entries with checkpoints, and key material.
 * Stored through `@tender/core`'s {@link Database} (MikroORM; SQLite by default) with plain SQL
 * statements, so every state change is one conditional statement inside one transaction.
 *
 * All writes go through one {@link AsyncLock} (`write`): SQLite has a single connection, and a
 * serialized writer also gives the mailbox its "no higher checkpoint visible before a lower one"
 * guarantee (a reader that advanced its cursor must not skip a late commit).
 */
import { AsyncLock, Database, defineMigration, type DatabaseLocation, type FileSync, type Logger, type MigrationDefinition, type SqlDialect } from "@tender/core";
import { NativeSqlite } from "./native-sqlite.js";
import { arkServerRoundsMigration } from "./rounds/round-migration.js";
import { arkServerOffboardsMigration } from "./offboard/offboard-migration.js";
import { arkServerLightningMigration } from "./lightning/lightning-migration.js";
import { arkServerLightningReceiveMigration } from "./lightning/receive-migration.js";

/**
 * The captaind spend states this server uses. `unclaimed`: a round output whose participant has
 * not forfeited its inputs yet; `htlc-recv-unclaimed`: a granted HTLC-recv VTXO whose preimage
 * the server has not learned yet.
 */
export type VtxoSpendState = "spendable" | "unregistered" | "spent" | "unclaimed" | "htlc-recv-unclaimed";

/** One stored VTXO. */
export interface StoredVtxo {
  /** `txid:vout` (display order). */
  readonly id: string;
  /** Protocol encoding; full (signed) once registered. */
  readonly bytes: Uint8Array;
  readonly state: VtxoSpendState;
  /** Txid (display) of the checkpoint/arkoor tx that spent it. */
  readonly oorSpentTxid: string | null;
  readonly bannedUntilHeight: number | null;
  /** User key (hex) of a user policy, else null. */
  readonly userPubkey: string | null;
  readonly policyType: string;
}

/** A stored transaction. */
export interface StoredTx {
  readonly txid: string;
  readonly raw: Uint8Array;
  /** Whether `raw` carries the signatures (funding txs and registered virtual txs). */
  readonly signed: boolean;
  readonly isFunding: boolean;
}

/** One mailbox row; rows of one post share the checkpoint. */
export interface MailboxRow {
  readonly checkpoint: bigint;
  readonly kind: MailboxKind;
  readonly payload: Uint8Array;
}

/** Mailbox entry kinds this server posts. */
export type MailboxKind = "arkoor" | "recovery" | "round-participation-completed" | "ln-send-done" | "ln-incoming";

/** A VTXO to insert. */
export interface NewVtxo {
  readonly id: string;
  readonly bytes: Uint8Array;
  readonly state: VtxoSpendState;
  readonly userPubkey: string | null;
  readonly policyType: string;
}

/**
 * A server-internal VTXO that is created already spent (an arkoor checkpoint output, spent by
 * its arkoor or fan-out tx). Recording it again with another spender is a double spend of
 * `inputId`.
 */
export interface InternalSpentVtxo {
  readonly vtxo: NewVtxo;
  readonly spentBy: string;
  readonly inputId: string;
}

/** An input whose spend must be recorded: it must be spendable, or already spent by `spendTxid`. */
export interface SpendRecord {
  readonly id: string;
  readonly spendTxid: string;
}

/** A spend could not be recorded because the VTXO is no longer spendable (lost race). */
export class DoubleSpendError extends Error {
  constructor(readonly id: string) {
    super(`vtxo ${id} is already spent`);
  }
}

const blob = (d: SqlDialect) => (d === "postgresql" ? "bytea" : "blob");
const serial = (d: SqlDialect) => (d === "postgresql" ? "bigserial primary key" : "integer primary key autoincrement");

/** A write waiting for the next group commit. */
interface QueuedWrite {
  readonly statements: () => Statements<unknown>;
  /** Whether it is an arkoor spend (counted in {@link ArkServerStore.spendCommits}). */
  readonly spend: boolean;
  readonly resolve: (value: unknown) => void;
  readonly reject: (e: unknown) => void;
}

/** The server's schema. */
export const arkServerInitMigration = defineMigration({
  name: "ark_server_0001_init",
  up: (d) => [
    `create table ark_server_meta (key varchar(64) not null primary key, value ${blob(d)} not null)`,
    `create table ark_server_vtxo (vtxo_id varchar(80) not null primary key, vtxo ${blob(d)} not null, state varchar(32) not null, oor_spent_txid varchar(64) null, banned_until_height integer null, user_pubkey varchar(66) null, policy_type varchar(32) not null, created_at varchar(40) not null)`,
    `create table ark_server_tx (txid varchar(64) not null primary key, tx ${blob(d)} not null, signed integer not null, is_funding integer not null)`,
    `create table ark_server_mailbox (id ${serial(d)}, mailbox_id varchar(66) not null, checkpoint bigint not null, kind varchar(16) not null, item_key varchar(80) not null, payload ${blob(d)} not null)`,
    `create unique index ark_server_mailbox_item on ark_server_mailbox (mailbox_id, kind, item_key)`,
    `create index ark_server_mailbox_cursor on ark_server_mailbox (mailbox_id, checkpoint)`,
  ],
});

/**
 * An index on the mailbox checkpoint alone. A post's checkpoint is the highest one of every
 * mailbox plus one (`max(checkpoint)`), and the cursor index leads with the mailbox id: SQLite read
 * the whole index for it, in every post's group commit (6 ms at 200,000 rows, three rows a
 * payment). With this index it reads one entry.
 */
export const arkServerMailboxCheckpointMigration = defineMigration({
  name: "ark_server_0006_mailbox_checkpoint",
  up: () => ["create index ark_server_mailbox_checkpoint on ark_server_mailbox (checkpoint)"],
});

/** A result row of a plain SQL query. */
export type Row = Record<string, unknown>;
/** A connection (or transaction) plain SQL statements run on. */
export interface Sql {
  execute(query: string, params?: unknown[], method?: "all" | "get" | "run"): Promise<unknown>;
}
interface Em extends Sql {
  transactional<T>(cb: (em: Em) => Promise<T>): Promise<T>;
}

const u8 = (v: unknown): Uint8Array => (v instanceof Uint8Array ? new Uint8Array(v) : new Uint8Array(0));
const buf = (v: Uint8Array) => Buffer.from(v.buffer, v.byteOffset, v.byteLength);
const now = () => new Date().toISOString();

function toVtxo(r: Row): StoredVtxo {
  return {
    id: String(r.vtxo_id),
    bytes: u8(r.vtxo),
    state: String(r.state) as VtxoSpendState,
    oorSpentTxid: r.oor_spent_txid == null ? null : String(r.oor_spent_txid),
    bannedUntilHeight: r.banned_until_height == null ? null : Number(r.banned_until_height),
    userPubkey: r.user_pubkey == null ? null : String(r.user_pubkey),
    policyType: String(r.policy_type),
  };
}

const INSERT_VTXO = "insert into ark_server_vtxo (vtxo_id, vtxo, state, user_pubkey, policy_type, created_at) values (?, ?, ?, ?, ?, ?) on conflict do nothing";
const insertVtxoParams = (v: NewVtxo) => [v.id, buf(v.bytes), v.state, v.userPubkey, v.policyType, now()];
const INSERT_TX =
  "insert into ark_server_tx as t (txid, tx, signed, is_funding) values (?, ?, ?, ?) on conflict (txid) do update set tx = case when t.signed = 1 then t.tx else excluded.tx end, signed = case when t.signed = 1 then 1 else excluded.signed end";
const insertTxParams = (t: StoredTx) => [t.txid, buf(t.raw), t.signed ? 1 : 0, t.isFunding ? 1 : 0];

/** One statement of a write that runs on either connection ({@link runStatements}, {@link runStatementsNow}). */
interface Statement {
  readonly query: string;
  readonly params: readonly unknown[];
  readonly method: "all" | "run";
}
/** What a {@link Statement} gives back: rows (`all`) or the count of changed rows (`run`). */
type StatementResult = Row[] & { affectedRows?: number };
/** A write as a sequence of statements, each chosen after the previous one's result; returns the write's result. */
type Statements<T = void> = Generator<Statement, T, StatementResult>;

/** Runs `statements` through MikroORM (`sql`); the write's result. */
async function runStatements<T>(sql: Sql, statements: Statements<T>): Promise<T> {
  let step = statements.next();
  while (!step.done) {
    const { query, params, method } = step.value;
    const r = await sql.execute(query, [...params], method);
    step = statements.next(method === "all" ? (r as StatementResult) : Object.assign([], { affectedRows: (r as { affectedRows?: number }).affectedRows ?? 0 }));
  }
  return step.value;
}

/** Runs `statements` on the SQLite connection itself, at once (prepared statements); the write's result. */
function runStatementsNow<T>(native: NativeSqlite, statements: Statements<T>): T {
  let step = statements.next();
  while (!step.done) {
    const { query, params, method } = step.value;
    step = statements.next(method === "all" ? (native.execute(query, params, "all") as StatementResult) : Object.assign([], native.execute(query, params, "run")));
  }
  return step.value;
}

/**
 * The statements of one arkoor spend ({@link ArkServerStore.recordArkoorSpend}): the checkpoint
 * outputs inserted as spent by their arkoor txs (or already so), the inputs flipped from
 * `spendable` (or already spent by the same txid), the txs and the outputs inserted. Throws
 * {@link DoubleSpendError} on a conflict (the caller's transaction rolls back).
 */
function* arkoorSpendStatements(inputs: readonly SpendRecord[], internal: readonly InternalSpentVtxo[], outputs: readonly NewVtxo[], txs: readonly StoredTx[]): Statements {
  for (const c of internal) {
    const rows = yield { query: "select oor_spent_txid from ark_server_vtxo where vtxo_id = ?", params: [c.vtxo.id], method: "all" };
    if (rows[0] && String(rows[0].oor_spent_txid) !== c.spentBy) throw new DoubleSpendError(c.inputId);
    if (!rows[0]) {
      yield {
        query: "insert into ark_server_vtxo (vtxo_id, vtxo, state, oor_spent_txid, user_pubkey, policy_type, created_at) values (?, ?, 'spent', ?, null, ?, ?)",
        params: [c.vtxo.id, buf(c.vtxo.bytes), c.spentBy, c.vtxo.policyType, now()],
        method: "run",
      };
    }
  }
  for (const i of inputs) {
    const r = yield {
      query: "update ark_server_vtxo set state = 'spent', oor_spent_txid = ? where vtxo_id = ? and (state = 'spendable' or (state = 'spent' and oor_spent_txid = ?))",
      params: [i.spendTxid, i.id, i.spendTxid],
      method: "run",
    };
    if (r.affectedRows !== 1) throw new DoubleSpendError(i.id);
  }
  for (const t of txs) yield { query: INSERT_TX, params: insertTxParams(t), method: "run" };
  for (const v of outputs) yield { query: INSERT_VTXO, params: insertVtxoParams(v), method: "run" };
}

/**
 * The statements of a chain registration ({@link ArkServerStore.registerChains}): the signed txs,
 * then each VTXO's full bytes with `unregistered` flipped to `spendable`.
 */
function* registerChainsStatements(vtxos: readonly { id: string; bytes: Uint8Array }[], txs: readonly StoredTx[]): Statements {
  for (const t of txs) yield { query: INSERT_TX, params: insertTxParams(t), method: "run" };
  for (const v of vtxos) {
    yield {
      query: "update ark_server_vtxo set vtxo = ?, state = case when state = 'unregistered' then 'spendable' else state end where vtxo_id = ?",
      params: [buf(v.bytes), v.id],
      method: "run",
    };
  }
}

/** The highest checkpoint of every mailbox (a post's is the next one): read from `ark_server_mailbox_checkpoint`. */
export const NEXT_CHECKPOINT_QUERY = "select max(checkpoint) as cp from ark_server_mailbox";

/**
 * The statements of a mailbox post ({@link ArkServerStore.appendMailbox}): the items not yet in
 * the mailbox, under the checkpoint after the highest one; the checkpoint, or null when every
 * item was a duplicate.
 */
function* appendMailboxStatements(mailboxId: string, kind: MailboxKind, items: readonly { key: string; payload: Uint8Array }[]): Statements<bigint | null> {
  const rows = yield {
    query: `select item_key from ark_server_mailbox where mailbox_id = ? and kind = ? and item_key in (${items.map(() => "?").join(",")})`,
    params: [mailboxId, kind, ...items.map((i) => i.key)],
    method: "all",
  };
  const existing = new Set(rows.map((r) => String(r.item_key)));
  const fresh = items.filter((i, k) => !existing.has(i.key) && items.findIndex((j) => j.key === i.key) === k);
  if (fresh.length === 0) return null;
  const last = yield { query: NEXT_CHECKPOINT_QUERY, params: [], method: "all" };
  const checkpoint = BigInt(String(last[0]?.cp ?? 0)) + 1n;
  for (const i of fresh) {
    yield { query: "insert into ark_server_mailbox (mailbox_id, checkpoint, kind, item_key, payload) values (?, ?, ?, ?, ?)", params: [mailboxId, Number(checkpoint), kind, i.key, buf(i.payload)], method: "run" };
  }
  return checkpoint;
}

/** The server's migrations, in the order they apply. */
export function arkServerMigrations(): MigrationDefinition[] {
  return [arkServerInitMigration, arkServerRoundsMigration, arkServerOffboardsMigration, arkServerLightningMigration, arkServerLightningReceiveMigration, arkServerMailboxCheckpointMigration];
}

/** The server's database. */
export class ArkServerStore {
  private readonly writer = new AsyncLock();

  /** `tablePrefix`: the quoted PostgreSQL schema and a dot (the migrator creates the tables there), or "" on SQLite. */
  private constructor(
    private readonly db: Database,
    private readonly tablePrefix: string,
    /** The SQLite connection itself, for the group commit of spends (undefined on PostgreSQL). */
    private readonly native: NativeSqlite | undefined,
  ) {}

  /** Qualifies the table names of a statement with the schema. */
  private qualified(sql: Sql): Sql {
    if (!this.tablePrefix) return sql;
    return { execute: (q, params, method) => sql.execute(q.replace(/(?<![."\w])(ark_server_\w+)\b/g, `${this.tablePrefix}$1`), params, method) };
  }

  /**
   * Opens (and migrates) the store. On SQLite, spends are written with prepared statements on the
   * connection itself unless `preparedSpends` is false; `fileSync` replaces the sync of the
   * write-ahead log (tests).
   */
  static async open(location: DatabaseLocation, logger: Logger, opts: { preparedSpends?: boolean; fileSync?: FileSync } = {}): Promise<ArkServerStore> {
    const db = new Database({ entities: [], migrations: arkServerMigrations() }, logger, opts.fileSync);
    await db.open(location);
    // `preparedSpends: false` writes spends through MikroORM on SQLite too (as on PostgreSQL)
    const native = location.dialect === "sqlite" && opts.preparedSpends !== false ? await NativeSqlite.of(db.em().getConnection()) : undefined;
    return new ArkServerStore(db, location.dialect === "postgresql" ? `"${location.schema}".` : "", native);
  }

  async close(): Promise<void> {
    await this.writer.run(() => this.db.close());
  }

  /** Closes and deletes all data (the SQLite file, or the PostgreSQL schema). */
  async destroy(): Promise<void> {
    await this.writer.run(() => this.db.destroy());
  }

  private em(): Sql {
    return this.qualified(this.db.em() as unknown as Em);
  }

  private async all(sql: Sql, q: string, params: unknown[] = []): Promise<Row[]> {
    return (await sql.execute(q, params, "all")) as Row[];
  }

  /**
   * A read of committed state: on SQLite with a prepared statement on the connection itself when
   * no transaction is open on it (a MikroORM read would wait for that transaction's end), else
   * through MikroORM.
   */
  private async committed(q: string, params: unknown[] = []): Promise<Row[]> {
    if (this.native && !this.native.inTransaction) {
      const rows = this.native.execute(q, params, "all");
      // answered once what the read saw is on disk (a group commit may still be syncing)
      const seen = this.db.seenDurable();
      if (seen) await seen;
      return rows;
    }
    return this.all(this.em(), q, params);
  }

  private async affected(sql: Sql, q: string, params: unknown[]): Promise<number> {
    const r = (await sql.execute(q, params, "run")) as { affectedRows?: number };
    return r.affectedRows ?? 0;
  }

  /**
   * Runs read-only statements outside the writer (they see committed state): on SQLite prepared
   * on the connection itself ({@link committed}; the background pollers read every 200 ms), else
   * through MikroORM.
   */
  read<T>(fn: (sql: Sql) => Promise<T>): Promise<T> {
    if (!this.native) return fn(this.em());
    return fn({
      execute: (q, params = [], method = "all") => (method === "all" ? this.committed(q, params) : this.em().execute(q, params, method)),
    });
  }

  /** Runs `fn` as the only writer, inside one transaction. */
  write<T>(fn: (sql: Sql) => Promise<T>): Promise<T> {
    return this.writer.run(() => this.transaction(fn));
  }

  /** One transaction (the caller is the writer). */
  private transaction<T>(fn: (sql: Sql) => Promise<T>): Promise<T> {
    return (this.db.em() as unknown as Em).transactional((em) => fn(this.qualified(em)));
  }

  // ---- meta ---------------------------------------------------------------------------

  async getMeta(key: string): Promise<Uint8Array | undefined> {
    const rows = await this.committed("select value from ark_server_meta where key = ?", [key]);
    return rows[0] ? u8(rows[0].value) : undefined;
  }

  /** Stores `value` under `key` unless a value exists; returns the stored value. */
  async initMeta(key: string, value: Uint8Array): Promise<Uint8Array> {
    await this.write((sql) => sql.execute("insert into ark_server_meta (key, value) values (?, ?) on conflict do nothing", [key, buf(value)], "run"));
    return (await this.getMeta(key))!;
  }

  // ---- VTXOs --------------------------------------------------------------------------

  async getVtxo(id: string): Promise<StoredVtxo | undefined> {
    const rows = await this.committed("select * from ark_server_vtxo where vtxo_id = ?", [id]);
    return rows[0] ? toVtxo(rows[0]) : undefined;
  }

  private insertVtxos(sql: Sql, vtxos: readonly NewVtxo[]): Promise<unknown[]> {
    return Promise.all(vtxos.map((v) => sql.execute(INSERT_VTXO, insertVtxoParams(v), "run")));
  }

  private insertTxs(sql: Sql, txs: readonly StoredTx[]): Promise<unknown[]> {
    return Promise.all(txs.map((t) => sql.execute(INSERT_TX, insertTxParams(t), "run")));
  }

  /** Registers a board: its funding tx and the VTXO as spendable. Re-registration changes nothing. */
  async insertBoard(vtxo: NewVtxo, fundingTx: StoredTx): Promise<void> {
    await this.write(async (sql) => {
      await this.insertTxs(sql, [fundingTx]);
      await this.insertVtxos(sql, [vtxo]);
    });
  }

  /**
   * Records an arkoor spend atomically, before anything is signed: each input flips from
   * `spendable` to `spent` by its txid (or already is spent by that same txid: replay), the
   * unsigned virtual txs and the output VTXOs (`unregistered`) are inserted. Throws
   * {@link DoubleSpendError} — and records nothing — if any input lost a race.
   *
   * Group commit: spends (and chain registrations and mailbox posts) that arrive while the
   * writer is busy (or in the same turn of the event loop) are written in one transaction, one
   * commit (one fsync) for all of them, and each promise resolves only once that commit is
   * durable. If any of them fails, the group is rolled back and each is written again in its own
   * transaction, in arrival order, so a failure refuses only its own write — as if they had come
   * one by one.
   */
  recordArkoorSpend(inputs: readonly SpendRecord[], internal: readonly InternalSpentVtxo[], outputs: readonly NewVtxo[], txs: readonly StoredTx[]): Promise<void> {
    return this.queueWrite(() => arkoorSpendStatements(inputs, internal, outputs, txs), true);
  }

  /** How many group commits wrote how many spends (the bench reads it). */
  readonly spendCommits = { commits: 0, spends: 0 };

  /** How many times the server's write-ahead log was synced, and the seconds the syncs took (SQLite; benches read it). */
  get logSyncs(): { syncs: number; seconds: number } {
    return { syncs: this.db.walSyncs, seconds: this.db.walSyncSeconds };
  }

  /** How many group commits wrote how many writes of any kind (spends, registrations, mailbox posts). */
  readonly groupCommits = { commits: 0, writes: 0 };

  private writeQueue: QueuedWrite[] = [];

  /**
   * Queues a write for the next group commit (see {@link recordArkoorSpend}); resolves with its
   * result once the commit is durable. `statements` is called again when the write is retried alone.
   */
  private queueWrite<T>(statements: () => Statements<T>, spend = false): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.writeQueue.push({ statements, spend, resolve: resolve as (v: unknown) => void, reject });
      if (this.writeQueue.length === 1) setImmediate(() => void this.writer.run(() => this.flushWrites()));
    });
  }

  /**
   * Writes the queued writes (runs as the writer): on SQLite with prepared statements at once
   * ({@link writeNow}), else (PostgreSQL, or the connection unexpectedly inside a transaction)
   * through MikroORM.
   */
  private async flushWrites(): Promise<void> {
    const batch = this.writeQueue;
    this.writeQueue = [];
    const native = this.native?.inTransaction === false ? this.native : undefined;
    if (native) return this.writeNow(native, batch);
    const group = (items: readonly QueuedWrite[]) =>
      this.transaction(async (sql) => {
        const results: unknown[] = [];
        for (const b of items) results.push(await runStatements(sql, b.statements()));
        return results;
      });
    if (batch.length > 1) {
      try {
        const results = await group(batch);
        this.counted(batch);
        batch.forEach((b, k) => b.resolve(results[k]));
        return;
      } catch {
        // one of them failed (rolled back, nothing of the group is written): one by one below
      }
    }
    for (const b of batch) {
      try {
        const [result] = await group([b]);
        this.counted([b]);
        b.resolve(result);
      } catch (e) {
        b.reject(e);
      }
    }
  }

  /**
   * Writes a batch on the SQLite connection itself, within this turn of the event loop: in one
   * transaction, or each write in its own when one of them fails (rolled back, it refuses only
   * itself). The writer is free again as soon as the batch is written, so the next batch is
   * written while this one's log is synced; every caller hears once the log is on disk — a
   * refusal too, since it may rest on a commit still syncing.
   */
  private writeNow(native: NativeSqlite, batch: readonly QueuedWrite[]): void {
    const outcomes: { write: QueuedWrite; ok: boolean; value: unknown }[] = [];
    let grouped = false;
    if (batch.length > 1) {
      try {
        // the connection's own transaction commits as it returns (the log written, not yet synced)
        const results = native.transaction(() => batch.map((b) => runStatementsNow(native, b.statements())));
        batch.forEach((write, k) => outcomes.push({ write, ok: true, value: results[k] }));
        this.counted(batch);
        grouped = true;
      } catch {
        // one of them failed (rolled back, nothing of the group is written): one by one below
      }
    }
    if (!grouped) {
      for (const write of batch) {
        try {
          const value = native.transaction(() => runStatementsNow(native, write.statements()));
          outcomes.push({ write, ok: true, value });
          this.counted([write]);
        } catch (e) {
          outcomes.push({ write, ok: false, value: e });
        }
      }
    }
    const onDisk = outcomes.some((o) => o.ok) ? this.db.durable() : (this.db.seenDurable() ?? Promise.resolve());
    void onDisk.then(
      () => outcomes.forEach((o) => (o.ok ? o.write.resolve(o.value) : o.write.reject(o.value))),
      (e: unknown) => outcomes.forEach((o) => o.write.reject(o.ok ? e : o.value)),
    );
  }

  /** Counts a commit of `items` (see {@link groupCommits}, {@link spendCommits}). */
  private counted(items: readonly QueuedWrite[]): void {
    this.groupCommits.commits++;
    this.groupCommits.writes += items.length;
    const spends = items.filter((b) => b.spend).length;
    if (spends === 0) return;
    this.spendCommits.commits++;
    this.spendCommits.spends += spends;
  }

  /**
   * Stores the full VTXO bytes and signed txs of registered chains and flips `unregistered` →
   * `spendable` (other states are kept; a spent VTXO is never resurrected). Group-committed
   * with the other writes (see {@link recordArkoorSpend}).
   */
  async registerChains(vtxos: readonly { id: string; bytes: Uint8Array }[], txs: readonly StoredTx[]): Promise<void> {
    await this.queueWrite(() => registerChainsStatements(vtxos, txs));
  }

  /** The spender recorded for `id`, if it is spent. */
  async spentBy(id: string): Promise<string | null> {
    const rows = await this.committed("select oor_spent_txid from ark_server_vtxo where vtxo_id = ? and state = 'spent'", [id]);
    return rows[0]?.oor_spent_txid == null ? null : String(rows[0].oor_spent_txid);
  }

  /** Sets (or clears, with null) a ban. Returns false when the VTXO is unknown. */
  async setBan(id: string, untilHeight: number | null): Promise<boolean> {
    return this.write(async (sql) => (await this.affected(sql, "update ark_server_vtxo set banned_until_height = ? where vtxo_id = ?", [untilHeight, id])) === 1);
  }

  /** VTXOs with a ban still active at `tip`. */
  async activeBans(tip: number): Promise<{ id: string; until: number }[]> {
    const rows = await this.committed("select vtxo_id, banned_until_height from ark_server_vtxo where banned_until_height > ?", [tip]);
    return rows.map((r) => ({ id: String(r.vtxo_id), until: Number(r.banned_until_height) }));
  }

  // ---- transactions -------------------------------------------------------------------

  /** Which of `txids` are stored with their signatures. */
  async signedTxids(txids: readonly string[]): Promise<Set<string>> {
    const found = new Set<string>();
    for (let i = 0; i < txids.length; i += 500) {
      const part = txids.slice(i, i + 500);
      const rows = await this.committed(`select txid from ark_server_tx where signed = 1 and txid in (${part.map(() => "?").join(", ")})`, part);
      for (const r of rows) found.add(String(r.txid));
    }
    return found;
  }

  async getTx(txid: string): Promise<StoredTx | undefined> {
    const rows = await this.committed("select * from ark_server_tx where txid = ?", [txid]);
    const r = rows[0];
    return r ? { txid: String(r.txid), raw: u8(r.tx), signed: Number(r.signed) === 1, isFunding: Number(r.is_funding) === 1 } : undefined;
  }

  // ---- mailbox ------------------------------------------------------------------------

  /**
   * Appends the items not yet in `mailboxId` (dedup by kind + key) under one new checkpoint.
   * Returns the checkpoint, or null when every item was a duplicate (no entry is created).
   * Group-committed with the other writes (see {@link recordArkoorSpend}); posts of one group
   * take increasing checkpoints in arrival order.
   */
  appendMailbox(mailboxId: string, kind: MailboxKind, items: readonly { key: string; payload: Uint8Array }[]): Promise<bigint | null> {
    return this.queueWrite(() => appendMailboxStatements(mailboxId, kind, items));
  }

  /** Rows of the first `maxEntries` entries (distinct checkpoints) after `after`, ascending. */
  async readMailbox(mailboxId: string, after: bigint, maxEntries: number): Promise<MailboxRow[]> {
    const cps = await this.committed("select distinct checkpoint from ark_server_mailbox where mailbox_id = ? and checkpoint > ? order by checkpoint limit ?", [mailboxId, Number(after), maxEntries]);
    if (cps.length === 0) return [];
    const last = Number(cps[cps.length - 1]!.checkpoint);
    const rows = await this.committed("select checkpoint, kind, payload from ark_server_mailbox where mailbox_id = ? and checkpoint > ? and checkpoint <= ? order by checkpoint, id", [mailboxId, Number(after), last]);
    return rows.map((r) => ({ checkpoint: BigInt(String(r.checkpoint)), kind: String(r.kind) as MailboxKind, payload: u8(r.payload) }));
  }
}
