/**
 * The server's Lightning receive rows over the server store's plain SQL: receive subscriptions
 * and their transitions, each a conditional update (a transition applies only from the states it
 * names, so two racing requests cannot both win), and single-use anti-DoS tokens.
 *
 * The claim is one transaction: the preimage goes to the settlement log (the source of truth for
 * "paid", shared with Lightning send), the subscription becomes `settled`, and the granted
 * HTLC-recv VTXOs become spendable by their claim arkoor.
 */
import type { LightningReceiveState } from "@tender/ark-protocol/server";
import type { ArkServerStore, Row, Sql } from "../server-store.js";

/** One receive subscription. */
export interface ReceiveSubscription {
  readonly paymentHash: string;
  readonly invoice: string;
  readonly amountSat: bigint;
  readonly mailboxId: string | null;
  readonly status: LightningReceiveState;
  readonly lowestHtlcExpiry: number | null;
  /** ISO time the payer's HTLCs were accepted. */
  readonly acceptedAt: string | null;
  readonly htlcVtxoIds: readonly string[];
  readonly preimage: string | null;
  readonly holdSettled: boolean;
  /** The Lightning-send attempt paying this receive from inside the Ark, if any. */
  readonly intraArkAttempt: number | null;
  readonly notified: boolean;
}

const now = () => new Date().toISOString();
const all = async (sql: Sql, q: string, p: unknown[] = []) => (await sql.execute(q, p, "all")) as Row[];
const affected = async (sql: Sql, q: string, p: unknown[]) => ((await sql.execute(q, p, "run")) as { affectedRows?: number }).affectedRows ?? 0;

function toSub(r: Row): ReceiveSubscription {
  return {
    paymentHash: String(r.payment_hash),
    invoice: String(r.invoice),
    amountSat: BigInt(String(r.amount_sat)),
    mailboxId: r.mailbox_id == null ? null : String(r.mailbox_id),
    status: String(r.status) as LightningReceiveState,
    lowestHtlcExpiry: r.lowest_htlc_expiry == null ? null : Number(r.lowest_htlc_expiry),
    acceptedAt: r.accepted_at == null ? null : String(r.accepted_at),
    htlcVtxoIds: JSON.parse(String(r.htlc_vtxo_ids)) as string[],
    preimage: r.preimage == null ? null : String(r.preimage),
    holdSettled: Number(r.hold_settled) === 1,
    intraArkAttempt: r.intra_ark_attempt == null ? null : Number(r.intra_ark_attempt),
    notified: Number(r.notified) === 1,
  };
}

/** Receive rows of the server database. */
export class ReceiveStore {
  constructor(readonly store: ArkServerStore) {}

  get(paymentHash: string): Promise<ReceiveSubscription | undefined> {
    return this.store.read(async (sql) => {
      const rows = await all(sql, "select * from ark_server_ln_receive where payment_hash = ?", [paymentHash]);
      return rows[0] ? toSub(rows[0]) : undefined;
    });
  }

  /** Subscriptions the background work still has to look at: open ones, and settled ones whose hold invoice is not settled yet or whose receiver was not told. */
  open(): Promise<ReceiveSubscription[]> {
    return this.store.read(async (sql) =>
      (await all(sql, "select * from ark_server_ln_receive where status in ('created', 'accepted', 'htlcs-ready') or (status = 'settled' and hold_settled = 0) or (status <> 'created' and status <> 'canceled' and notified = 0) order by created_at")).map(toSub),
    );
  }

  /** A new `created` subscription, or a previous one (e.g. canceled) made `created` again with a new invoice text. */
  async create(s: { paymentHash: string; invoice: string; amountSat: bigint; mailboxId: string | null }): Promise<void> {
    await this.store.write(async (sql) => {
      const n = await affected(
        sql,
        "update ark_server_ln_receive set invoice = ?, amount_sat = ?, mailbox_id = ?, status = 'created', lowest_htlc_expiry = null, accepted_at = null, htlc_vtxo_ids = '[]', notified = 0, intra_ark_attempt = null, updated_at = ? where payment_hash = ? and status = 'canceled'",
        [s.invoice, s.amountSat.toString(), s.mailboxId, now(), s.paymentHash],
      );
      if (n === 1) return;
      await sql.execute(
        "insert into ark_server_ln_receive (payment_hash, invoice, amount_sat, mailbox_id, status, lowest_htlc_expiry, accepted_at, htlc_vtxo_ids, preimage, hold_settled, intra_ark_attempt, notified, created_at, updated_at) values (?, ?, ?, ?, 'created', null, null, '[]', null, 0, null, 0, ?, ?) on conflict do nothing",
        [s.paymentHash, s.invoice, s.amountSat.toString(), s.mailboxId, now(), now()],
        "run",
      );
    });
  }

  /** `created` → `accepted` with the lowest incoming HTLC expiry (and the intra-Ark attempt); false if it was not `created`. */
  accept(paymentHash: string, lowestHtlcExpiry: number, intraArkAttempt: number | null): Promise<boolean> {
    return this.store.write(async (sql) =>
      (await affected(sql, "update ark_server_ln_receive set status = 'accepted', lowest_htlc_expiry = ?, accepted_at = ?, intra_ark_attempt = ?, updated_at = ? where payment_hash = ? and status = 'created'", [lowestHtlcExpiry, now(), intraArkAttempt, now(), paymentHash])) === 1,
    );
  }

  /** → `canceled` from one of `from`; false if the subscription was in none of them. */
  cancel(paymentHash: string, from: readonly LightningReceiveState[]): Promise<boolean> {
    return this.store.write(async (sql) =>
      (await affected(sql, `update ark_server_ln_receive set status = 'canceled', updated_at = ? where payment_hash = ? and status in (${from.map(() => "?").join(", ")})`, [now(), paymentHash, ...from])) === 1,
    );
  }

  /** Marks the receiver as told about the incoming payment. */
  async markNotified(paymentHash: string): Promise<void> {
    await this.store.write((sql) => sql.execute("update ark_server_ln_receive set notified = 1 where payment_hash = ?", [paymentHash], "run"));
  }

  /** Marks the hold invoice (or the intra-Ark sender's attempt) as settled. */
  async markHoldSettled(paymentHash: string): Promise<void> {
    await this.store.write((sql) => sql.execute("update ark_server_ln_receive set hold_settled = 1 where payment_hash = ?", [paymentHash], "run"));
  }

  /**
   * The grant: the HTLC-recv VTXOs (state `htlc-recv-unclaimed`), the spent pool inputs, the
   * signed arkoor txs and the server's change go in with the subscription's `accepted` →
   * `htlcs-ready`, all in one transaction. Returns false (and writes nothing) if the subscription
   * was no longer `accepted` or a pool input was no longer spendable.
   */
  grant(
    paymentHash: string,
    g: {
      inputs: readonly { id: string; spendTxid: string }[];
      outputs: readonly { id: string; bytes: Uint8Array; state: "spendable" | "htlc-recv-unclaimed"; userPubkey: string; policyType: string }[];
      txs: readonly { txid: string; raw: Uint8Array }[];
      htlcVtxoIds: readonly string[];
    },
  ): Promise<boolean> {
    return this.store.write(async (sql) => {
      const moved = await affected(sql, "update ark_server_ln_receive set status = 'htlcs-ready', htlc_vtxo_ids = ?, updated_at = ? where payment_hash = ? and status = 'accepted'", [JSON.stringify(g.htlcVtxoIds), now(), paymentHash]);
      if (moved !== 1) return false;
      for (const i of g.inputs) {
        if ((await affected(sql, "update ark_server_vtxo set state = 'spent', oor_spent_txid = ? where vtxo_id = ? and state = 'spendable'", [i.spendTxid, i.id])) !== 1) throw new PoolRaceError(i.id);
      }
      for (const t of g.txs) await sql.execute("insert into ark_server_tx (txid, tx, signed, is_funding) values (?, ?, 1, 0) on conflict (txid) do nothing", [t.txid, Buffer.from(t.raw)], "run");
      for (const v of g.outputs) {
        await sql.execute(
          "insert into ark_server_vtxo (vtxo_id, vtxo, state, user_pubkey, policy_type, created_at) values (?, ?, ?, ?, ?, ?)",
          [v.id, Buffer.from(v.bytes), v.state, v.userPubkey, v.policyType, now()],
          "run",
        );
      }
      return true;
    });
  }

  /**
   * The claim's first write: preimage into the settlement log, `htlcs-ready` → `settled`, and the
   * HTLC-recv VTXOs `htlc-recv-unclaimed` → `spendable` (for their claim arkoor). False if the
   * subscription was not `htlcs-ready`.
   */
  settle(paymentHash: string, preimage: string, htlcVtxoIds: readonly string[]): Promise<boolean> {
    return this.store.write(async (sql) => {
      const moved = await affected(sql, "update ark_server_ln_receive set status = 'settled', preimage = ?, updated_at = ? where payment_hash = ? and status = 'htlcs-ready'", [preimage, now(), paymentHash]);
      if (moved !== 1) return false;
      await sql.execute("insert into ark_server_ln_settlement (payment_hash, preimage, created_at) values (?, ?, ?) on conflict do nothing", [paymentHash, preimage, now()], "run");
      for (const id of htlcVtxoIds) await sql.execute("update ark_server_vtxo set state = 'spendable' where vtxo_id = ? and state = 'htlc-recv-unclaimed'", [id], "run");
      return true;
    });
  }

  /** HTLC-recv VTXOs of a canceled receive go back to the server (the payer was refunded): they become spent. */
  async retireHtlcs(ids: readonly string[]): Promise<void> {
    await this.store.write(async (sql) => {
      for (const id of ids) await sql.execute("update ark_server_vtxo set state = 'spent' where vtxo_id = ? and state = 'htlc-recv-unclaimed'", [id], "run");
    });
  }

  // ---- anti-DoS tokens ----------------------------------------------------------------

  /** Stores a new single-use token. */
  async addToken(token: string, kind: string, expiresAtSecs: bigint): Promise<void> {
    await this.store.write((sql) => sql.execute("insert into ark_server_ln_receive_token (token, kind, status, expires_at_secs, created_at) values (?, ?, 'unused', ?, ?)", [token, kind, expiresAtSecs.toString(), now()], "run"));
  }

  /** A token as stored. */
  token(token: string): Promise<{ kind: string; status: string; expiresAtSecs: bigint } | undefined> {
    return this.store.read(async (sql) => {
      const rows = await all(sql, "select kind, status, expires_at_secs from ark_server_ln_receive_token where token = ?", [token]);
      return rows[0] ? { kind: String(rows[0].kind), status: String(rows[0].status), expiresAtSecs: BigInt(String(rows[0].expires_at_secs)) } : undefined;
    });
  }

  /** `unused` → `used`; false if someone used it first. */
  useToken(token: string): Promise<boolean> {
    return this.store.write(async (sql) => (await affected(sql, "update ark_server_ln_receive_token set status = 'used' where token = ? and status = 'unused'", [token])) === 1);
  }
}

/** A pool input was spent by someone else between selection and the grant's write. */
export class PoolRaceError extends Error {
  constructor(readonly id: string) {
    super(`pool vtxo ${id} is no longer spendable`);
  }
}
