/**
 * Round persistence on the server's database: finished rounds, hArk participations (interactive
 * ones written at round finish, delegated ones at submission), and forfeits. Every state change
 * is one transaction of the store's single writer, and every spend is a conditional update, so
 * a VTXO spent by a round can never also be spent by arkoor (or the reverse).
 */
import { decodeTx, formatOutPoint, fromHex, toHex, decodeUserPolicy, encodePolicy, type VtxoPolicy } from "@tender/ark-protocol";
import { DoubleSpendError, type ArkServerStore, type NewVtxo, type Row, type Sql, type StoredTx } from "../server-store.js";

/** A requested round output. */
export interface RoundOutputSpec {
  readonly amount: bigint;
  readonly policy: VtxoPolicy;
}

/** Interactive (joined an attempt) or delegated (handed over to the server). */
export type ParticipationKind = "interactive" | "delegated";

/** One hArk participation. */
export interface StoredParticipation {
  /** Hex of SHA-256(preimage). */
  readonly unlockHash: string;
  readonly unlockPreimage: Uint8Array;
  readonly kind: ParticipationKind;
  /** Input VTXO ids (`txid:vout`) in request order. */
  readonly inputs: readonly string[];
  readonly outputs: readonly RoundOutputSpec[];
  /** Hex mailbox id to notify (delegated). */
  readonly mailboxId: string | null;
  readonly scheduledHeight: number | null;
  /** Funding txid of the round it is in; null while pending. */
  readonly roundId: string | null;
  /** Ids of its output VTXOs, in output order (once in a round). */
  readonly outputVtxoIds: readonly string[] | null;
  readonly forfeitedAt: string | null;
}

/** One finished round. */
export interface StoredRound {
  /** Display txid of the funding tx. */
  readonly roundId: string;
  readonly roundSeq: bigint;
  readonly attemptSeq: number;
  /** Signed tree spec encoding. */
  readonly signedTree: Uint8Array;
  readonly expiryHeight: number;
}

/** Everything a round finish writes, in one transaction. */
export interface FinishedRoundRecord {
  readonly round: StoredRound;
  /** The signed funding tx. */
  readonly fundingTx: StoredTx;
  /** Internal node txs (signed) and leaf txs (unsigned). */
  readonly treeTxs: readonly StoredTx[];
  /** Every input (interactive and delegated): must be spendable now. */
  readonly inputs: readonly string[];
  /** Output VTXOs, written `unclaimed`. */
  readonly outputs: readonly NewVtxo[];
  /** New interactive participations (roundId and outputVtxoIds set). */
  readonly interactive: readonly StoredParticipation[];
  /** Pending delegated participations included in the round, with their output ids. */
  readonly delegated: readonly { unlockHash: string; outputVtxoIds: readonly string[] }[];
}

/** One forfeited input with its signed forfeit tx. */
export interface ForfeitRecord {
  readonly vtxoId: string;
  readonly forfeitTxid: string;
  readonly forfeitTx: Uint8Array;
}

/** A delegated participation included in a round is no longer pending (the round must not finish with it). */
export class ParticipationGoneError extends Error {}

/** A forfeit could not be recorded because the input is not spent by the participation's round, or was forfeited differently. */
export class ForfeitStateError extends Error {
  constructor(readonly id: string) {
    super(`vtxo not round-spent or already forfeited differently: ${id}`);
  }
}

const u8 = (v: unknown): Uint8Array => (v instanceof Uint8Array ? new Uint8Array(v) : new Uint8Array(0));
const buf = (v: Uint8Array) => Buffer.from(v.buffer, v.byteOffset, v.byteLength);
const now = () => new Date().toISOString();

function encodeOutputs(outputs: readonly RoundOutputSpec[]): string {
  return JSON.stringify(outputs.map((o) => ({ amount: o.amount.toString(), policy: toHex(encodePolicy(o.policy)) })));
}

function decodeOutputs(text: string): RoundOutputSpec[] {
  return (JSON.parse(text) as { amount: string; policy: string }[]).map((o) => ({ amount: BigInt(o.amount), policy: decodeUserPolicy(fromHex(o.policy)) }));
}

async function all(sql: Sql, q: string, params: unknown[] = []): Promise<Row[]> {
  return (await sql.execute(q, params, "all")) as Row[];
}

async function affected(sql: Sql, q: string, params: unknown[]): Promise<number> {
  const r = (await sql.execute(q, params, "run")) as { affectedRows?: number };
  return r.affectedRows ?? 0;
}

async function insertTx(sql: Sql, t: StoredTx): Promise<void> {
  await sql.execute("insert into ark_server_tx (txid, tx, signed, is_funding) values (?, ?, ?, ?) on conflict (txid) do nothing", [t.txid, buf(t.raw), t.signed ? 1 : 0, t.isFunding ? 1 : 0], "run");
}

async function insertParticipation(sql: Sql, p: StoredParticipation): Promise<void> {
  await sql.execute(
    "insert into ark_server_round_participation (unlock_hash, unlock_preimage, kind, outputs, mailbox_id, scheduled_height, round_id, output_vtxo_ids, forfeited_at, created_at) values (?, ?, ?, ?, ?, ?, ?, ?, null, ?)",
    [p.unlockHash, buf(p.unlockPreimage), p.kind, encodeOutputs(p.outputs), p.mailboxId, p.scheduledHeight, p.roundId, p.outputVtxoIds ? JSON.stringify(p.outputVtxoIds) : null, now()],
    "run",
  );
  for (const [idx, id] of p.inputs.entries()) {
    await sql.execute("insert into ark_server_round_participation_input (unlock_hash, vtxo_id, idx) values (?, ?, ?)", [p.unlockHash, id, idx], "run");
  }
}

async function deleteParticipation(sql: Sql, unlockHash: string): Promise<void> {
  await sql.execute("delete from ark_server_round_participation_input where unlock_hash = ?", [unlockHash], "run");
  await sql.execute("delete from ark_server_round_participation where unlock_hash = ?", [unlockHash], "run");
}

/** Round tables of the server store. */
export class RoundStore {
  constructor(private readonly store: ArkServerStore) {}

  private async participationFrom(sql: Sql, r: Row): Promise<StoredParticipation> {
    const hash = String(r.unlock_hash);
    const inputs = await all(sql, "select vtxo_id from ark_server_round_participation_input where unlock_hash = ? order by idx", [hash]);
    return {
      unlockHash: hash,
      unlockPreimage: u8(r.unlock_preimage),
      kind: String(r.kind) as ParticipationKind,
      inputs: inputs.map((i) => String(i.vtxo_id)),
      outputs: decodeOutputs(String(r.outputs)),
      mailboxId: r.mailbox_id == null ? null : String(r.mailbox_id),
      scheduledHeight: r.scheduled_height == null ? null : Number(r.scheduled_height),
      roundId: r.round_id == null ? null : String(r.round_id),
      outputVtxoIds: r.output_vtxo_ids == null ? null : (JSON.parse(String(r.output_vtxo_ids)) as string[]),
      forfeitedAt: r.forfeited_at == null ? null : String(r.forfeited_at),
    };
  }

  /** A participation by unlock hash (hex). */
  getParticipation(unlockHash: string): Promise<StoredParticipation | undefined> {
    return this.store.read(async (sql) => {
      const rows = await all(sql, "select * from ark_server_round_participation where unlock_hash = ?", [unlockHash]);
      return rows[0] ? this.participationFrom(sql, rows[0]) : undefined;
    });
  }

  /** Delegated participations not in a round yet, oldest first. */
  pendingDelegated(): Promise<StoredParticipation[]> {
    return this.store.read(async (sql) => {
      const rows = await all(sql, "select * from ark_server_round_participation where round_id is null order by created_at, unlock_hash");
      const out: StoredParticipation[] = [];
      for (const r of rows) out.push(await this.participationFrom(sql, r));
      return out;
    });
  }

  /** Stores a delegated participation, replacing older pending ones that share any input. Returns the replaced unlock hashes. */
  insertDelegated(p: StoredParticipation): Promise<string[]> {
    return this.store.write(async (sql) => {
      const marks = p.inputs.map(() => "?").join(",");
      const older = await all(
        sql,
        `select distinct i.unlock_hash from ark_server_round_participation_input i join ark_server_round_participation p on p.unlock_hash = i.unlock_hash where p.round_id is null and i.vtxo_id in (${marks})`,
        [...p.inputs],
      );
      const replaced = older.map((r) => String(r.unlock_hash));
      for (const h of replaced) await deleteParticipation(sql, h);
      await insertParticipation(sql, p);
      return replaced;
    });
  }

  /** Drops a pending delegated participation (it failed the checks at round time). */
  async deletePending(unlockHash: string): Promise<void> {
    await this.store.write(async (sql) => {
      const rows = await all(sql, "select round_id from ark_server_round_participation where unlock_hash = ?", [unlockHash]);
      if (rows[0] && rows[0].round_id == null) await deleteParticipation(sql, unlockHash);
    });
  }

  /** The finished round whose funding tx has this txid. */
  getRound(roundId: string): Promise<StoredRound | undefined> {
    return this.store.read(async (sql) => {
      const r = (await all(sql, "select * from ark_server_round where round_id = ?", [roundId]))[0];
      return r ? { roundId: String(r.round_id), roundSeq: BigInt(String(r.round_seq)), attemptSeq: Number(r.attempt_seq), signedTree: u8(r.signed_tree), expiryHeight: Number(r.expiry_height) } : undefined;
    });
  }

  /** Funding txids of the most recent rounds (for re-broadcasting and the wallet's trusted change). */
  async recentRoundIds(limit = 100): Promise<string[]> {
    return this.store.read(async (sql) => (await all(sql, "select round_id from ark_server_round order by round_seq desc limit ?", [limit])).map((r) => String(r.round_id)));
  }

  /**
   * Outpoints (`txid:vout`) spent by the most recent round funding txs that are not yet
   * confirmed: they stay reserved even if the node dropped the tx, so a later round can never
   * double-spend (and invalidate) an earlier one.
   */
  async reservedFundingInputs(isConfirmed: (txid: string) => Promise<boolean>, limit = 100): Promise<Set<string>> {
    const out = new Set<string>();
    for (const id of await this.recentRoundIds(limit)) {
      if (await isConfirmed(id)) continue;
      const raw = await this.store.read(async (sql) => (await all(sql, "select tx from ark_server_tx where txid = ?", [id]))[0]);
      if (!raw) continue;
      for (const input of decodeTx(u8(raw.tx)).inputs) out.add(formatOutPoint(input.prevout));
    }
    return out;
  }

  /** Whether `txid` funds a round of this server. */
  async isRoundFundingTx(txid: string): Promise<boolean> {
    return (await this.getRound(txid)) !== undefined;
  }

  /**
   * Records a finished round atomically. Throws {@link DoubleSpendError} (and records nothing)
   * when an input is no longer spendable.
   */
  async finishRound(r: FinishedRoundRecord): Promise<void> {
    await this.store.write(async (sql) => {
      for (const id of r.inputs) {
        const n = await affected(sql, "update ark_server_vtxo set state = 'spent', round_spent_id = ? where vtxo_id = ? and state = 'spendable'", [r.round.roundId, id]);
        if (n !== 1) throw new DoubleSpendError(id);
      }
      await sql.execute(
        "insert into ark_server_round (round_id, round_seq, attempt_seq, signed_tree, expiry_height, created_at) values (?, ?, ?, ?, ?, ?)",
        [r.round.roundId, r.round.roundSeq.toString(), r.round.attemptSeq, buf(r.round.signedTree), r.round.expiryHeight, now()],
        "run",
      );
      await insertTx(sql, r.fundingTx);
      for (const t of r.treeTxs) await insertTx(sql, t);
      for (const v of r.outputs) {
        await sql.execute(
          "insert into ark_server_vtxo (vtxo_id, vtxo, state, user_pubkey, policy_type, created_at) values (?, ?, 'unclaimed', ?, ?, ?)",
          [v.id, buf(v.bytes), v.userPubkey, v.policyType, now()],
          "run",
        );
      }
      for (const p of r.interactive) await insertParticipation(sql, p);
      for (const d of r.delegated) {
        const n = await affected(sql, "update ark_server_round_participation set round_id = ?, output_vtxo_ids = ? where unlock_hash = ? and round_id is null", [
          r.round.roundId,
          JSON.stringify(d.outputVtxoIds),
          d.unlockHash,
        ]);
        if (n !== 1) throw new ParticipationGoneError(`delegated participation ${d.unlockHash} is no longer pending`);
      }
    });
  }

  /** Ids among `ids` that already have a forfeit, with its txid. */
  async forfeitsOf(ids: readonly string[]): Promise<Map<string, string>> {
    if (ids.length === 0) return new Map();
    return this.store.read(async (sql) => {
      const rows = await all(sql, `select vtxo_id, forfeit_txid from ark_server_round_forfeit where vtxo_id in (${ids.map(() => "?").join(",")})`, [...ids]);
      return new Map(rows.map((r) => [String(r.vtxo_id), String(r.forfeit_txid)]));
    });
  }

  /**
   * Records a participation's forfeits atomically: each input must be spent by the
   * participation's round (and not forfeited by another tx), the signed forfeit txs are stored,
   * the outputs flip `unclaimed` → `spendable` and the participation is marked forfeited.
   * Throws {@link ForfeitStateError} (recording nothing) when an input is in another state.
   */
  async recordForfeits(p: StoredParticipation, forfeits: readonly ForfeitRecord[]): Promise<void> {
    if (!p.roundId) throw new Error("participation is not in a round");
    const roundId = p.roundId;
    await this.store.write(async (sql) => {
      for (const f of forfeits) {
        const row = (await all(sql, "select state, round_spent_id from ark_server_vtxo where vtxo_id = ?", [f.vtxoId]))[0];
        if (!row || String(row.state) !== "spent" || String(row.round_spent_id) !== roundId) throw new ForfeitStateError(f.vtxoId);
        const existing = (await all(sql, "select forfeit_txid from ark_server_round_forfeit where vtxo_id = ?", [f.vtxoId]))[0];
        if (existing && String(existing.forfeit_txid) !== f.forfeitTxid) throw new ForfeitStateError(f.vtxoId);
        if (!existing) {
          await sql.execute("insert into ark_server_round_forfeit (vtxo_id, unlock_hash, forfeit_txid, forfeit_tx) values (?, ?, ?, ?)", [f.vtxoId, p.unlockHash, f.forfeitTxid, buf(f.forfeitTx)], "run");
        }
        await insertTx(sql, { txid: f.forfeitTxid, raw: f.forfeitTx, signed: true, isFunding: false });
      }
      for (const id of p.outputVtxoIds ?? []) {
        await sql.execute("update ark_server_vtxo set state = 'spendable' where vtxo_id = ? and state = 'unclaimed'", [id], "run");
      }
      await sql.execute("update ark_server_round_participation set forfeited_at = ? where unlock_hash = ? and forfeited_at is null", [now(), p.unlockHash], "run");
    });
  }
}
