import { LeanSql, type Database } from "@tender/core";
import { FINAL_STATUSES, type Participation, type ParticipationChanges, type ParticipationKind, type ParticipationOrigin, type RequestedOutput } from "./participation.js";
import { ACTIVE_PARTICIPATION, RoundParticipationRow } from "./participation-row.js";

interface StoredOutput { amountSat: string; keyIndex: number; pubkey: string }

function toParticipation(r: RoundParticipationRow): Participation {
  return {
    id: r.id, kind: r.kind as ParticipationKind, origin: r.origin as ParticipationOrigin, status: r.status as Participation["status"],
    inputs: JSON.parse(r.inputs) as string[],
    outputs: (JSON.parse(r.outputs) as StoredOutput[]).map((o) => ({ amountSat: BigInt(o.amountSat), keyIndex: o.keyIndex, pubkey: o.pubkey })),
    feeSat: BigInt(r.feeSat), scheduledHeight: r.scheduledHeight,
    roundSeq: r.roundSeq === null ? null : BigInt(r.roundSeq), attemptSeq: r.attemptSeq === null ? null : BigInt(r.attemptSeq),
    unlockHash: r.unlockHash, fundingTxid: r.fundingTxid, fundingTx: r.fundingTx,
    outputVtxos: r.outputVtxos === null ? null : (JSON.parse(r.outputVtxos) as string[]),
    unlockPreimage: r.unlockPreimage, inputsLocked: Boolean(r.inputsLocked), movementId: r.movementId, error: r.error,
  };
}

const outputsJson = (o: readonly RequestedOutput[]) => JSON.stringify(o.map((x) => ({ amountSat: x.amountSat.toString(), keyIndex: x.keyIndex, pubkey: x.pubkey })));

/** What a new participation is created with. */
export interface NewParticipation {
  kind: ParticipationKind;
  origin: ParticipationOrigin;
  inputs: readonly string[];
  outputs: readonly RequestedOutput[];
  feeSat: bigint;
  scheduledHeight?: number;
  inputsLocked: boolean;
}

/** The ids of the participations that have not ended, oldest first (read from the index `round_participation_active`). */
export const ACTIVE_IDS_SQL = `select id from {t} where ${ACTIVE_PARTICIPATION} order by id`;

/** The wallet's round participations (`round_participation`). Writes join a surrounding `db.transaction`. */
export class ParticipationStore {
  private readonly rows: LeanSql;

  constructor(private readonly db: Database, private readonly now: () => number = Date.now) {
    this.rows = new LeanSql(db, "round_participation");
  }

  async create(n: NewParticipation): Promise<Participation> {
    const em = this.db.em();
    const t = BigInt(this.now());
    const r = em.create(RoundParticipationRow, {
      kind: n.kind, origin: n.origin, status: "pending", inputs: JSON.stringify(n.inputs), outputs: outputsJson(n.outputs), feeSat: n.feeSat,
      scheduledHeight: n.scheduledHeight ?? null, inputsLocked: n.inputsLocked, createdAtMs: t, updatedAtMs: t,
    });
    await em.flush();
    return toParticipation(r);
  }

  async get(id: number): Promise<Participation | undefined> {
    const r = await this.db.em().findOne(RoundParticipationRow, { id });
    return r ? toParticipation(r) : undefined;
  }

  /**
   * Participations that have not ended, oldest first: their ids from the partial index of the
   * active ones (ended participations stay in the table), then those rows by key.
   */
  async active(): Promise<Participation[]> {
    const ids = (await this.rows.all<{ id: number }>(ACTIVE_IDS_SQL)).map((r) => Number(r.id));
    if (ids.length === 0) return [];
    const rows = await this.db.em().find(RoundParticipationRow, { id: { $in: ids }, status: { $nin: [...FINAL_STATUSES] } }, { orderBy: { id: "asc" } });
    return rows.map(toParticipation);
  }

  /** Every participation, oldest first. */
  async all(): Promise<Participation[]> {
    return (await this.db.em().find(RoundParticipationRow, {}, { orderBy: { id: "asc" } })).map(toParticipation);
  }

  /** Applies `c` to participation `id` and returns it as stored. */
  async update(id: number, c: ParticipationChanges): Promise<Participation> {
    const em = this.db.em();
    const r = await em.findOneOrFail(RoundParticipationRow, { id });
    if (c.status !== undefined) r.status = c.status;
    if (c.inputs !== undefined) r.inputs = JSON.stringify(c.inputs);
    if (c.outputs !== undefined) r.outputs = outputsJson(c.outputs);
    if (c.feeSat !== undefined) r.feeSat = c.feeSat;
    if (c.scheduledHeight !== undefined) r.scheduledHeight = c.scheduledHeight;
    if (c.roundSeq !== undefined) r.roundSeq = c.roundSeq === null ? null : c.roundSeq.toString();
    if (c.attemptSeq !== undefined) r.attemptSeq = c.attemptSeq === null ? null : c.attemptSeq.toString();
    if (c.unlockHash !== undefined) r.unlockHash = c.unlockHash;
    if (c.fundingTxid !== undefined) r.fundingTxid = c.fundingTxid;
    if (c.fundingTx !== undefined) r.fundingTx = c.fundingTx;
    if (c.outputVtxos !== undefined) r.outputVtxos = c.outputVtxos === null ? null : JSON.stringify(c.outputVtxos);
    if (c.unlockPreimage !== undefined) r.unlockPreimage = c.unlockPreimage;
    if (c.inputsLocked !== undefined) r.inputsLocked = c.inputsLocked;
    if (c.movementId !== undefined) r.movementId = c.movementId;
    if (c.error !== undefined) r.error = c.error;
    r.updatedAtMs = BigInt(this.now());
    await em.flush();
    return toParticipation(r);
  }
}
