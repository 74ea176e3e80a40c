import { Database, EventBus, LeanSql, NotFoundError, WalletNotificationRaised, type WalletNotification } from "@tender/core";
import { MOVEMENT_COLUMNS, MUTABLE_COLUMNS, movementValues, wholeNumber, type MovementRow, type MovementValues } from "./movement-row.js";
import { movementJson, type Movement, type MovementDestination, type MovementStatus } from "./movement.js";
import { patchMetadata } from "./merge-patch.js";
import type { PaymentMethodParsers } from "../payment-methods/payment-method-parsers.js";

/** What a rail records when it starts a movement. */
export interface NewMovement {
  status?: MovementStatus;
  subsystem: { name: string; kind: string };
  metadata?: Record<string, unknown>;
  intendedBalanceSat: number;
  effectiveBalanceSat: number;
  offchainFeeSat?: number;
  sentTo?: MovementDestination[];
  receivedOn?: MovementDestination[];
  inputVtxos?: string[];
  outputVtxos?: string[];
  exitedVtxos?: string[];
}

/** Changes to an existing movement; `metadata` is merged into the stored object. */
export interface MovementChanges {
  status?: MovementStatus;
  metadata?: Record<string, unknown>;
  effectiveBalanceSat?: number;
  offchainFeeSat?: number;
  sentTo?: MovementDestination[];
  receivedOn?: MovementDestination[];
  inputVtxos?: string[];
  outputVtxos?: string[];
  exitedVtxos?: string[];
}

/**
 * Records a movement's notification in the database transaction that writes the movement (an event
 * log): it writes through `Database.em()`, so the record commits or rolls back with the change.
 */
export type MovementJournal = (notification: WalletNotification) => Promise<void>;

/**
 * The wallet's movements (barkd's `Movement`s): rails create and update them here, and every change
 * raises a `movement-created` / `movement-updated` notification. Journals added with
 * {@link addJournal} record that notification in the same transaction as the change.
 *
 * Rows are read and written in plain SQL through the entity manager of the moment (inside a
 * caller's transaction they join it), with no entity tracking: every payment creates and updates
 * a movement, and the unit of work's bookkeeping cost more than the statements.
 */
export class MovementStore {
  private readonly journals: MovementJournal[] = [];
  private readonly sql: LeanSql;

  constructor(
    private readonly db: Database,
    private readonly events: EventBus,
    private readonly parsers: PaymentMethodParsers,
    private readonly now: () => number = Date.now,
  ) {
    this.sql = new LeanSql(db, "movement");
  }

  /** Adds a journal: every later create and change is recorded by it before its transaction commits. */
  addJournal(journal: MovementJournal): void {
    this.journals.push(journal);
  }

  /** Runs `write` (which persists a movement and returns its notification) with the journals, in one transaction. */
  private async journaled(write: () => Promise<WalletNotification & { movement: Record<string, unknown> }>): Promise<Movement> {
    const n = this.journals.length === 0 ? await write() : await this.db.transaction(async () => {
      const written = await write();
      for (const journal of this.journals) await journal(written);
      return written;
    });
    // heard of only once committed (the change may sit inside a caller's larger transaction)
    this.db.afterCommit(() => this.events.emit(WalletNotificationRaised, n));
    return n.movement as unknown as Movement;
  }

  async create(m: NewMovement): Promise<Movement> {
    return this.journaled(async () => {
      const t = wholeNumber(this.now(), "the clock");
      const status = m.status ?? "pending";
      const v: Omit<MovementValues, "id"> = {
        status,
        subsystemName: m.subsystem.name,
        subsystemKind: m.subsystem.kind,
        metadata: JSON.stringify(m.metadata ?? {}),
        intendedBalanceSat: wholeNumber(m.intendedBalanceSat, "intendedBalanceSat"),
        effectiveBalanceSat: wholeNumber(m.effectiveBalanceSat, "effectiveBalanceSat"),
        offchainFeeSat: wholeNumber(m.offchainFeeSat ?? 0, "offchainFeeSat"),
        sentTo: JSON.stringify(m.sentTo ?? []),
        receivedOn: JSON.stringify(m.receivedOn ?? []),
        inputVtxos: JSON.stringify(m.inputVtxos ?? []),
        outputVtxos: JSON.stringify(m.outputVtxos ?? []),
        exitedVtxos: JSON.stringify(m.exitedVtxos ?? []),
        createdAt: t,
        updatedAt: t,
        completedAt: status === "pending" ? null : t,
      };
      const [row] = await this.sql.all<{ id: number | string }>(
        "insert into {t} (status, subsystem_name, subsystem_kind, metadata, intended_balance_sat, effective_balance_sat, offchain_fee_sat, " +
          "sent_to, received_on, input_vtxos, output_vtxos, exited_vtxos, created_at, updated_at, completed_at) " +
          "values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) returning id",
        [v.status, v.subsystemName, v.subsystemKind, v.metadata, v.intendedBalanceSat, v.effectiveBalanceSat, v.offchainFeeSat,
          v.sentTo, v.receivedOn, v.inputVtxos, v.outputVtxos, v.exitedVtxos, v.createdAt, v.updatedAt, v.completedAt],
      );
      if (!row) throw new Error("inserting a movement returned no id");
      return { type: "movement-created", movement: movementJson({ id: Number(row.id), ...v }) as unknown as Record<string, unknown> };
    });
  }

  async update(id: number, c: MovementChanges): Promise<Movement> {
    return this.change(id, (r) => {
      if (c.status && c.status !== r.status) {
        r.status = c.status;
        if (c.status !== "pending") r.completedAt ??= wholeNumber(this.now(), "the clock");
      }
      if (c.metadata) r.metadata = JSON.stringify({ ...(JSON.parse(r.metadata) as object), ...c.metadata });
      if (c.effectiveBalanceSat !== undefined) r.effectiveBalanceSat = wholeNumber(c.effectiveBalanceSat, "effectiveBalanceSat");
      if (c.offchainFeeSat !== undefined) r.offchainFeeSat = wholeNumber(c.offchainFeeSat, "offchainFeeSat");
      if (c.sentTo) r.sentTo = JSON.stringify(c.sentTo);
      if (c.receivedOn) r.receivedOn = JSON.stringify(c.receivedOn);
      if (c.inputVtxos) r.inputVtxos = JSON.stringify(c.inputVtxos);
      if (c.outputVtxos) r.outputVtxos = JSON.stringify(c.outputVtxos);
      if (c.exitedVtxos) r.exitedVtxos = JSON.stringify(c.exitedVtxos);
    });
  }

  /** Applies an RFC 7396 merge patch to the metadata (`POST /api/v1/history/{id}/metadata`). */
  async patchMetadata(id: number, patch: unknown): Promise<Movement> {
    return this.change(id, (r) => {
      r.metadata = JSON.stringify(patchMetadata(JSON.parse(r.metadata) as Record<string, unknown>, patch));
    });
  }

  /**
   * Reads the movement, lets `apply` change its fields and writes back only the columns that
   * changed (so concurrent changes to other columns are not overwritten with what was read).
   */
  private async change(id: number, apply: (r: MovementValues) => void): Promise<Movement> {
    return this.journaled(async () => {
      const read = await this.read(id);
      if (!read) throw notFound(id);
      const r = { ...read };
      apply(r);
      r.updatedAt = wholeNumber(this.now(), "the clock");
      const set: string[] = [];
      const params: unknown[] = [];
      for (const [field, column] of Object.entries(MUTABLE_COLUMNS) as [keyof typeof MUTABLE_COLUMNS, string][]) {
        if (r[field] === read[field]) continue;
        set.push(`${column} = ?`);
        params.push(r[field]);
      }
      if (set.length > 0 && (await this.sql.run(`update {t} set ${set.join(", ")} where id = ?`, [...params, id])) === 0) throw notFound(id);
      return { type: "movement-updated", movement: movementJson(r) as unknown as Record<string, unknown> };
    });
  }

  private async read(id: number): Promise<MovementValues | undefined> {
    const [row] = await this.sql.all<MovementRow>(`select ${MOVEMENT_COLUMNS} from {t} where id = ?`, [id]);
    return row ? movementValues(row) : undefined;
  }

  async get(id: number): Promise<Movement | undefined> {
    const r = await this.read(id);
    return r ? movementJson(r) : undefined;
  }

  /** All movements, newest first (creation time, then id, descending). */
  async list(): Promise<Movement[]> {
    const rows = await this.sql.all<MovementRow>(`select ${MOVEMENT_COLUMNS} from {t} order by created_at desc, id desc`);
    return rows.map((r) => movementJson(movementValues(r)));
  }

  /** Movements paying to or received on the given payment method, oldest first (barkd's order). */
  async listByPaymentMethod(type: string, value: string): Promise<Movement[]> {
    const wanted = this.parsers.canonical(type, value);
    const rows = await this.sql.all<MovementRow>(`select ${MOVEMENT_COLUMNS} from {t} order by id asc`);
    return rows.map((r) => movementJson(movementValues(r))).filter((m) =>
      [...m.sent_to, ...m.received_on].some((d) =>
        d.destination.type === wanted.type && this.parsers.canonicalOrSelf(wanted.type, d.destination.value) === wanted.value));
  }
}

function notFound(id: number): NotFoundError {
  return new NotFoundError(`not found [resources=${id}]: movement not found`, [String(id)]);
}
