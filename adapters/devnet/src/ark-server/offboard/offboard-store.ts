/**
 * Offboards in the server's database. {@link OffboardStore.recordOffboard} is the one atomic
 * step of a finish: the signed offboard tx, its forfeits and the connector fan-out are stored and
 * every input flips from `spendable` to `spent` by the offboard txid — or nothing is written (an
 * input lost a race: {@link DoubleSpendError}).
 */
import { encodeTx, txidHex, type Transaction } from "@tender/ark-protocol";
import { DoubleSpendError, type ArkServerStore, type Row, type Sql } from "../server-store.js";

/** A stored offboard. */
export interface StoredOffboard {
  readonly txid: string;
  readonly signedTx: Uint8Array;
  readonly inputIds: readonly string[];
  readonly committed: boolean;
}

const u8 = (v: unknown): Uint8Array => (v instanceof Uint8Array ? new Uint8Array(v) : new Uint8Array(0));
const buf = (v: Uint8Array) => Buffer.from(v.buffer, v.byteOffset, v.byteLength);

async function all(sql: Sql, q: string, params: unknown[] = []): Promise<Row[]> {
  return (await sql.execute(q, params, "all")) as Row[];
}

function toOffboard(r: Row): StoredOffboard {
  return { txid: String(r.offboard_txid), signedTx: u8(r.signed_tx), inputIds: JSON.parse(String(r.input_vtxo_ids)) as string[], committed: Number(r.committed) === 1 };
}

/** The offboard tables. */
export class OffboardStore {
  constructor(private readonly store: ArkServerStore) {}

  /**
   * Stores a finished offboard and marks its inputs spent by it (replaying the same offboard
   * changes nothing). Throws {@link DoubleSpendError} when an input is no longer spendable.
   */
  async recordOffboard(o: { signedTx: Transaction; inputIds: readonly string[]; forfeits: readonly Transaction[]; connectorTx?: Transaction }): Promise<void> {
    const offboardTxid = txidHex(o.signedTx);
    await this.store.write(async (sql) => {
      for (const id of o.inputIds) {
        const n = (await sql.execute(
          "update ark_server_vtxo set state = 'spent', offboard_spent_txid = ? where vtxo_id = ? and (state = 'spendable' or (state = 'spent' and offboard_spent_txid = ?))",
          [offboardTxid, id, offboardTxid],
          "run",
        )) as { affectedRows?: number };
        if ((n.affectedRows ?? 0) !== 1) throw new DoubleSpendError(id);
      }
      await sql.execute(
        "insert into ark_server_offboard (offboard_txid, signed_tx, input_vtxo_ids, connector_tx, committed, created_at) values (?, ?, ?, ?, 0, ?) on conflict do nothing",
        [offboardTxid, buf(encodeTx(o.signedTx)), JSON.stringify(o.inputIds), o.connectorTx ? buf(encodeTx(o.connectorTx)) : null, new Date().toISOString()],
        "run",
      );
      for (const [i, f] of o.forfeits.entries()) {
        await sql.execute(
          "insert into ark_server_offboard_forfeit (vtxo_id, offboard_txid, forfeit_txid, forfeit_tx) values (?, ?, ?, ?) on conflict do nothing",
          [o.inputIds[i], offboardTxid, txidHex(f), buf(encodeTx(f))],
          "run",
        );
      }
      await sql.execute(
        "insert into ark_server_tx (txid, tx, signed, is_funding) values (?, ?, 1, 0) on conflict (txid) do nothing",
        [offboardTxid, buf(encodeTx(o.signedTx))],
        "run",
      );
    });
  }

  /** The handed-to-chain flag: set once the node accepted (or already knew) the tx. */
  async markCommitted(txid: string): Promise<void> {
    await this.store.write((sql) => sql.execute("update ark_server_offboard set committed = 1 where offboard_txid = ?", [txid], "run"));
  }

  async get(txid: string): Promise<StoredOffboard | undefined> {
    return this.store.read(async (sql) => {
      const r = (await all(sql, "select * from ark_server_offboard where offboard_txid = ?", [txid]))[0];
      return r ? toOffboard(r) : undefined;
    });
  }

  /** Offboards stored but not yet handed to the chain (the background task retries them). */
  async uncommitted(): Promise<StoredOffboard[]> {
    return this.store.read(async (sql) => (await all(sql, "select * from ark_server_offboard where committed = 0 order by created_at")).map(toOffboard));
  }

  /** The most recent offboards (newest first), whose wallet inputs stay reserved until they confirm. */
  async recent(limit = 100): Promise<StoredOffboard[]> {
    return this.store.read(async (sql) => (await all(sql, "select * from ark_server_offboard order by created_at desc limit ?", [limit])).map(toOffboard));
  }

  /** The signed forfeit tx of an offboarded VTXO. */
  async forfeitOf(vtxoId: string): Promise<{ offboardTxid: string; forfeitTx: Uint8Array } | undefined> {
    return this.store.read(async (sql) => {
      const r = (await all(sql, "select offboard_txid, forfeit_tx from ark_server_offboard_forfeit where vtxo_id = ?", [vtxoId]))[0];
      return r ? { offboardTxid: String(r.offboard_txid), forfeitTx: u8(r.forfeit_tx) } : undefined;
    });
  }
}
