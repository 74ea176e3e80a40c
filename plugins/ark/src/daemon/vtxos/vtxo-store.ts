import { decodeVtxo, encodeVtxo, vtxoIdString, type Vtxo } from "@tender/ark-protocol";
import { LeanSql, sqlBool, type Database } from "@tender/core";

/** Where a VTXO stands in the wallet. */
export type VtxoState = "spendable" | "locked" | "spent" | "exited";

/** A VTXO as the wallet stores it. */
export interface StoredVtxo {
  /** `txid:vout`. */
  readonly id: string;
  readonly vtxo: Vtxo;
  readonly amountSat: bigint;
  readonly state: VtxoState;
  /** The action id holding the lock, when `state` is `locked`. */
  readonly lockedBy: string | null;
  readonly createdAtMs: number;
}

/** Sums of the stored VTXOs by state, in sats. */
export interface VtxoBalance {
  spendableSat: bigint;
  lockedSat: bigint;
}

/** A lock request named a VTXO that is not spendable (unknown, spent, or locked by another action). */
export class VtxoNotSpendableError extends Error {
  constructor(readonly vtxoId: string, readonly state: VtxoState | "unknown") {
    super(`VTXO ${vtxoId} is not spendable (${state})`);
  }
}

/** A row of `ark_vtxo` as the driver returns it (SQLite: numbers and 0/1; PostgreSQL: bigints as strings, booleans). */
interface RawVtxoRow {
  id: string;
  amount_sat: number | string | bigint;
  state: string;
  locked_by: string | null;
  created_at_ms: number | string | bigint;
  recovery_registered?: boolean | number | string;
}

/** The columns of a row (its encoding is in `ark_vtxo_encoding`, and in the decoded cache once read). */
const COLUMNS = "id, amount_sat, state, locked_by, created_at_ms, recovery_registered";
const ORDER = "order by created_at_ms asc, id asc";
/**
 * The VTXOs the recovery catch-up looks at (each sync): the terms of the partial index
 * `ark_vtxo_recovery_pending`, so that it reads those rows only, not every VTXO ever stored.
 */
export const NOT_RECOVERY_REGISTERED = "recovery_registered = false and state <> 'spent'";

/** Decoded VTXOs kept at most (the live ones of a large wallet; spent ones are never kept). */
const DECODED_CACHE_MAX = 20_000;

/**
 * The wallet's VTXOs and their states (`ark_vtxo`). Locks tie VTXOs to the action spending them,
 * so a crashed action finds its inputs again and no two actions spend the same VTXO.
 *
 * Reads and writes are plain SQL through the entity manager of the moment (inside a caller's
 * transaction they join it), with no entity tracking: a payment touches these rows several times
 * and the unit of work's bookkeeping cost more than the queries. A row's encoding never changes
 * once stored, so each VTXO is decoded once and kept while it is not spent; queries leave the
 * encoding out for VTXOs already decoded.
 */
export class VtxoStore {
  private readonly decoded = new Map<string, Vtxo>();
  private readonly sql: LeanSql;
  /** Each VTXO's encoding, written once with its row (a state change rewrites the row, never this). */
  private readonly encodings: LeanSql;

  constructor(private readonly db: Database, private readonly now: () => number = Date.now) {
    this.sql = new LeanSql(db, "ark_vtxo");
    this.encodings = new LeanSql(db, "ark_vtxo_encoding");
  }

  /** Forgets the decoded VTXOs (a wallet unloaded: the next one has other rows). */
  forgetDecoded(): void {
    this.decoded.clear();
  }

  private remember(id: string, vtxo: Vtxo, state: string): void {
    if (state === "spent") return;
    if (this.decoded.size >= DECODED_CACHE_MAX) this.decoded.clear();
    this.decoded.set(id, vtxo);
  }

  /** The rows matching `where`, decoded, with their recovery flag: encodings are read only for VTXOs not decoded yet. */
  private async readFlagged(where: string, params: readonly unknown[], order = ""): Promise<{ stored: StoredVtxo; recoveryRegistered: boolean }[]> {
    const rows = await this.sql.all<RawVtxoRow>(`select ${COLUMNS} from {t} where ${where} ${order}`, params);
    const missing = rows.filter((r) => !this.decoded.has(r.id)).map((r) => r.id);
    const fetched = new Map<string, Vtxo>();
    for (let i = 0; i < missing.length; i += 500) {
      const chunk = missing.slice(i, i + 500);
      const enc = await this.encodings.all<{ id: string; encoded: Uint8Array }>("select id, encoded from {t} where id in (?)", [chunk]);
      for (const e of enc) fetched.set(e.id, decodeVtxo(e.encoded));
    }
    return rows.map((r) => {
      let vtxo = this.decoded.get(r.id);
      if (!vtxo) {
        vtxo = fetched.get(r.id);
        if (!vtxo) throw new Error(`VTXO ${r.id} disappeared while being read`);
        this.remember(r.id, vtxo, r.state);
      }
      const stored: StoredVtxo = {
        id: r.id, vtxo, amountSat: BigInt(r.amount_sat), state: r.state as VtxoState, lockedBy: r.locked_by ?? null,
        createdAtMs: Number(r.created_at_ms),
      };
      return { stored, recoveryRegistered: sqlBool(r.recovery_registered) };
    });
  }

  private async read(where: string, params: readonly unknown[], order = ""): Promise<StoredVtxo[]> {
    return (await this.readFlagged(where, params, order)).map((r) => r.stored);
  }

  /**
   * Stores `vtxo` with `state` unless a VTXO with its id is already stored (then the stored one
   * is kept: adding is idempotent). Returns whether it was new. A `locked` VTXO names the action
   * holding it in `lockedBy` (e.g. a board waiting for confirmations). `recoveryRegistered`: its
   * chain is registered and its id posted already (see {@link markRecoveryRegistered}), recorded
   * with the row (or on the stored one).
   */
  async add(vtxo: Vtxo, state: VtxoState = "spendable", lockedBy: string | null = null, opts: { recoveryRegistered?: boolean } = {}): Promise<boolean> {
    const id = vtxoIdString(vtxo);
    const t = this.now();
    const registered = opts.recoveryRegistered === true;
    // the row and its encoding commit together (in the caller's transaction, or one of their own)
    const added = await this.db.transaction(async () => {
      await this.encodings.run("insert into {t} (id, encoded) values (?, ?) on conflict (id) do nothing", [id, Buffer.from(encodeVtxo(vtxo))]);
      return this.sql.run(
        "insert into {t} (id, amount_sat, expiry_height, state, locked_by, created_at_ms, updated_at_ms, recovery_registered) " +
          "values (?, ?, ?, ?, ?, ?, ?, ?) on conflict (id) do nothing",
        [id, vtxo.amount, vtxo.expiryHeight, state, state === "locked" ? lockedBy : null, t, t, registered],
      );
    });
    if (added > 0) this.remember(id, vtxo, state);
    else if (registered) await this.markRecoveryRegistered([id]);
    return added > 0;
  }

  /** The stored VTXO with `id`, or `undefined`. */
  async get(id: string): Promise<StoredVtxo | undefined> {
    return (await this.read("id = ?", [id]))[0];
  }

  /**
   * The stored VTXOs with `ids`, each with whether its recovery backup is recorded
   * ({@link markRecoveryRegistered}), in the order of `ids`; `undefined` for an unknown id. One query.
   */
  async getMany(ids: readonly string[]): Promise<({ stored: StoredVtxo; recoveryRegistered: boolean } | undefined)[]> {
    if (ids.length === 0) return [];
    const unique = [...new Set(ids)];
    const found = new Map((await this.readFlagged("id in (?)", [unique])).map((r) => [r.stored.id, r]));
    return ids.map((id) => found.get(id));
  }

  /** VTXOs in the given states (default: all but `spent`), oldest first. */
  async list(states: readonly VtxoState[] = ["spendable", "locked", "exited"]): Promise<StoredVtxo[]> {
    if (states.length === 0) return [];
    return this.read("state in (?)", [[...states]], ORDER);
  }

  /** Every stored VTXO, spent ones included. */
  listAll(): Promise<StoredVtxo[]> {
    return this.list(["spendable", "locked", "spent", "exited"]);
  }

  /** VTXOs locked by `actionId`. */
  async lockedBy(actionId: string): Promise<StoredVtxo[]> {
    return this.read("state = 'locked' and locked_by = ?", [actionId]);
  }

  /**
   * Locks `ids` for `actionId`, all or none. Locking again for the same action is a no-op, so a
   * resumed action may call it twice. Throws {@link VtxoNotSpendableError} otherwise.
   */
  async lock(ids: readonly string[], actionId: string): Promise<void> {
    await this.db.transaction(async () => {
      const unique = [...new Set(ids)];
      if (unique.length === 0) return;
      const rows = await this.sql.all<RawVtxoRow>("select id, state, locked_by from {t} where id in (?)", [unique]);
      const byId = new Map(rows.map((r) => [r.id, r]));
      // every check before any write: a caller inside a larger transaction may catch the refusal
      for (const id of unique) {
        const r = byId.get(id);
        if (!r) throw new VtxoNotSpendableError(id, "unknown");
        if (r.state === "locked" && r.locked_by === actionId) continue;
        if (r.state !== "spendable") throw new VtxoNotSpendableError(id, r.state as VtxoState);
      }
      // one conditional update: a row another writer took meanwhile is not counted, and the
      // error then rolls the whole transaction back
      const n = await this.sql.run(
        "update {t} set state = 'locked', locked_by = ?, updated_at_ms = ? where id in (?) and (state = 'spendable' or (state = 'locked' and locked_by = ?))",
        [actionId, this.now(), unique, actionId],
      );
      if (n !== unique.length) throw new Error(`VTXOs changed while being locked for ${actionId}`);
    });
  }

  /** Returns every VTXO locked by `actionId` to `spendable`. */
  async unlock(actionId: string): Promise<void> {
    await this.sql.run("update {t} set state = 'spendable', locked_by = null, updated_at_ms = ? where state = 'locked' and locked_by = ?", [this.now(), actionId]);
  }

  /** Marks `ids` spent (they leave the balance and the default listing). */
  async markSpent(ids: readonly string[]): Promise<void> {
    await this.setState(ids, "spent");
    for (const id of ids) this.decoded.delete(id);
  }

  /** Marks `ids` exited (handed to the exit subsystem). */
  async markExited(ids: readonly string[]): Promise<void> {
    await this.setState(ids, "exited");
  }

  private async setState(ids: readonly string[], state: VtxoState): Promise<void> {
    if (ids.length === 0) return;
    const unique = [...new Set(ids)];
    await this.sql.run("update {t} set state = ?, locked_by = null, updated_at_ms = ? where id in (?)", [state, this.now(), unique]);
  }

  /**
   * The VTXOs whose recovery state may be missing on the server (not marked
   * {@link markRecoveryRegistered}), spent ones left out: spendable, locked and exited, oldest first.
   * Exited ones are included: their exit being on chain does not mean their outputs were claimed.
   */
  async notRecoveryRegistered(): Promise<StoredVtxo[]> {
    return this.read(NOT_RECOVERY_REGISTERED, [], ORDER);
  }

  /** Records that the ids of `ids` are in the recovery mailbox and their chains registered with the server. */
  async markRecoveryRegistered(ids: readonly string[]): Promise<void> {
    if (ids.length === 0) return;
    const unique = [...new Set(ids)];
    await this.sql.run("update {t} set recovery_registered = true where id in (?)", [unique]);
  }

  /** Whether `id` is marked {@link markRecoveryRegistered} (false for an unknown id). */
  async isRecoveryRegistered(id: string): Promise<boolean> {
    const rows = await this.sql.all<RawVtxoRow>("select id, recovery_registered from {t} where id = ?", [id]);
    return sqlBool(rows[0]?.recovery_registered);
  }

  /** Sums of the spendable and the locked VTXOs. */
  async balance(): Promise<VtxoBalance> {
    const rows = await this.sql.all<RawVtxoRow>("select amount_sat, state from {t} where state in ('spendable', 'locked')");
    const b: VtxoBalance = { spendableSat: 0n, lockedSat: 0n };
    for (const r of rows) {
      if (r.state === "spendable") b.spendableSat += BigInt(r.amount_sat);
      else b.lockedSat += BigInt(r.amount_sat);
    }
    return b;
  }
}
