/**
 * The server's Lightning records: payment attempts (one row per `InitiateLightningPayment` that
 * paid) and the settlement log, over the server store's plain SQL. Recording success writes the
 * settlement and flips the HTLC-send VTXOs to spent in one transaction, and only while they are
 * still spendable — the same statement a revocation's spend needs to win, so a payment can never
 * end both paid and revoked.
 */
import type { ArkServerStore, Row, Sql } from "../server-store.js";

/** Status of an attempt. */
export type AttemptStatus = "pending" | "succeeded" | "failed";

/** One payment attempt. */
export interface PaymentAttempt {
  readonly id: number;
  readonly paymentHash: string;
  readonly invoice: string;
  readonly amountMsat: bigint;
  readonly senderMailbox: string | null;
  readonly htlcVtxoIds: readonly string[];
  readonly status: AttemptStatus;
  readonly preimage: string | null;
  readonly failure: string | null;
  readonly notified: boolean;
}

const now = () => new Date().toISOString();

function toAttempt(r: Row): PaymentAttempt {
  return {
    id: Number(r.id),
    paymentHash: String(r.payment_hash),
    invoice: String(r.invoice),
    amountMsat: BigInt(String(r.amount_msat)),
    senderMailbox: r.sender_mailbox == null ? null : String(r.sender_mailbox),
    htlcVtxoIds: JSON.parse(String(r.htlc_vtxo_ids)) as string[],
    status: String(r.status) as AttemptStatus,
    preimage: r.preimage == null ? null : String(r.preimage),
    failure: r.failure == null ? null : String(r.failure),
    notified: Number(r.notified) === 1,
  };
}

const all = async (sql: Sql, q: string, p: unknown[] = []) => (await sql.execute(q, p, "all")) as Row[];

/** Lightning rows of the server database. */
export class LightningStore {
  constructor(private readonly store: ArkServerStore) {}

  /** The latest attempt for a payment hash. */
  latest(paymentHash: string): Promise<PaymentAttempt | undefined> {
    return this.store.read(async (sql) => {
      const rows = await all(sql, "select * from ark_server_ln_attempt where payment_hash = ? order by id desc limit 1", [paymentHash]);
      return rows[0] ? toAttempt(rows[0]) : undefined;
    });
  }

  /** Attempts still pending, or final but not yet told to the sender. */
  unfinished(): Promise<PaymentAttempt[]> {
    return this.store.read(async (sql) => (await all(sql, "select * from ark_server_ln_attempt where status = 'pending' or notified = 0 order by id")).map(toAttempt));
  }

  /** The preimage in the settlement log, if the hash was settled. */
  settlement(paymentHash: string): Promise<string | undefined> {
    return this.store.read(async (sql) => {
      const rows = await all(sql, "select preimage from ark_server_ln_settlement where payment_hash = ?", [paymentHash]);
      return rows[0] ? String(rows[0].preimage) : undefined;
    });
  }

  /** Records a new pending attempt. */
  async insert(a: Omit<PaymentAttempt, "id" | "status" | "preimage" | "failure" | "notified">): Promise<PaymentAttempt> {
    await this.store.write((sql) =>
      sql.execute(
        "insert into ark_server_ln_attempt (payment_hash, invoice, amount_msat, sender_mailbox, htlc_vtxo_ids, status, preimage, failure, notified, created_at, updated_at) values (?, ?, ?, ?, ?, 'pending', null, null, 0, ?, ?)",
        [a.paymentHash, a.invoice, a.amountMsat.toString(), a.senderMailbox, JSON.stringify(a.htlcVtxoIds), now(), now()],
        "run",
      ),
    );
    return (await this.latest(a.paymentHash))!;
  }

  /**
   * Success: the preimage goes to the settlement log and the attempt's HTLC VTXOs that are still
   * spendable become spent, in one transaction. Returns the ids that could not be flipped
   * (already spent otherwise, e.g. revoked).
   */
  async succeed(attempt: PaymentAttempt, preimage: string): Promise<string[]> {
    return this.store.write(async (sql) => {
      await sql.execute("insert into ark_server_ln_settlement (payment_hash, preimage, created_at) values (?, ?, ?) on conflict do nothing", [attempt.paymentHash, preimage, now()], "run");
      await sql.execute("update ark_server_ln_attempt set status = 'succeeded', preimage = ?, updated_at = ? where id = ?", [preimage, now(), attempt.id], "run");
      const missed: string[] = [];
      for (const id of attempt.htlcVtxoIds) {
        const r = (await sql.execute("update ark_server_vtxo set state = 'spent' where vtxo_id = ? and state = 'spendable'", [id], "run")) as { affectedRows?: number };
        if ((r.affectedRows ?? 0) !== 1) {
          const rows = await all(sql, "select state, oor_spent_txid from ark_server_vtxo where vtxo_id = ?", [id]);
          // spent by an earlier success (no arkoor spender) is fine
          if (!(rows[0] && String(rows[0].state) === "spent" && rows[0].oor_spent_txid == null)) missed.push(id);
        }
      }
      return missed;
    });
  }

  /** Failure of an attempt (nothing else changes). */
  async fail(attempt: PaymentAttempt, why: string): Promise<void> {
    await this.store.write((sql) => sql.execute("update ark_server_ln_attempt set status = 'failed', failure = ?, updated_at = ? where id = ? and status = 'pending'", [why, now(), attempt.id], "run"));
  }

  /** Marks the sender as told about the attempt's end. */
  async markNotified(id: number): Promise<void> {
    await this.store.write((sql) => sql.execute("update ark_server_ln_attempt set notified = 1 where id = ?", [id], "run"));
  }

  /** Whether `hash` (hex) is the unlock hash of a round participation. */
  isUnlockHash(hash: string): Promise<boolean> {
    return this.store.read(async (sql) => (await all(sql, "select 1 as x from ark_server_round_participation where unlock_hash = ?", [hash])).length > 0);
  }
}
