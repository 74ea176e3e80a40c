import { Database, EventBus, NotFoundError, WalletNotificationRaised, type WalletNotification } from "@tender/core";
import { MovementRecord } from "./movement-record.js";
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
 */
export class MovementStore {
  private readonly journals: MovementJournal[] = [];

  constructor(
    private readonly db: Database,
    private readonly events: EventBus,
    private readonly parsers: PaymentMethodParsers,
    private readonly now: () => number = Date.now,
  ) {}

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
      const em = this.db.em();
      const t = BigInt(this.now());
      const status = m.status ?? "pending";
      const r = em.create(MovementRecord, {
        status,
        subsystemName: m.subsystem.name,
        subsystemKind: m.subsystem.kind,
        metadata: JSON.stringify(m.metadata ?? {}),
        intendedBalanceSat: BigInt(m.intendedBalanceSat),
        effectiveBalanceSat: BigInt(m.effectiveBalanceSat),
        offchainFeeSat: BigInt(m.offchainFeeSat ?? 0),
        sentTo: JSON.stringify(m.sentTo ?? []),
        receivedOn: JSON.stringify(m.receivedOn ?? []),
        inputVtxos: JSON.stringify(m.inputVtxos ?? []),
        outputVtxos: JSON.stringify(m.outputVtxos ?? []),
        exitedVtxos: JSON.stringify(m.exitedVtxos ?? []),
        createdAt: t,
        updatedAt: t,
        completedAt: status === "pending" ? null : t,
      });
      await em.flush();
      return { type: "movement-created", movement: movementJson(r) as unknown as Record<string, unknown> };
    });
  }

  async update(id: number, c: MovementChanges): Promise<Movement> {
    return this.change(id, (r) => {
      if (c.status && c.status !== r.status) {
        r.status = c.status;
        if (c.status !== "pending") r.completedAt ??= BigInt(this.now());
      }
      if (c.metadata) r.metadata = JSON.stringify({ ...(JSON.parse(r.metadata) as object), ...c.metadata });
      if (c.effectiveBalanceSat !== undefined) r.effectiveBalanceSat = BigInt(c.effectiveBalanceSat);
      if (c.offchainFeeSat !== undefined) r.offchainFeeSat = BigInt(c.offchainFeeSat);
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

  private async change(id: number, apply: (r: MovementRecord) => void): Promise<Movement> {
    return this.journaled(async () => {
      const em = this.db.em();
      const r = await em.findOne(MovementRecord, { id });
      if (!r) throw new NotFoundError(`not found [resources=${id}]: movement not found`, [String(id)]);
      apply(r);
      r.updatedAt = BigInt(this.now());
      await em.flush();
      return { type: "movement-updated", movement: movementJson(r) as unknown as Record<string, unknown> };
    });
  }

  async get(id: number): Promise<Movement | undefined> {
    const r = await this.db.em().findOne(MovementRecord, { id });
    return r ? movementJson(r) : undefined;
  }

  /** All movements, newest first (creation time, then id, descending). */
  async list(): Promise<Movement[]> {
    const rows = await this.db.em().find(MovementRecord, {}, { orderBy: { createdAt: "desc", id: "desc" } });
    return rows.map(movementJson);
  }

  /** Movements paying to or received on the given payment method, oldest first (barkd's order). */
  async listByPaymentMethod(type: string, value: string): Promise<Movement[]> {
    const wanted = this.parsers.canonical(type, value);
    const rows = await this.db.em().find(MovementRecord, {}, { orderBy: { id: "asc" } });
    return rows.map(movementJson).filter((m) =>
      [...m.sent_to, ...m.received_on].some((d) =>
        d.destination.type === wanted.type && this.parsers.canonicalOrSelf(wanted.type, d.destination.value) === wanted.value));
  }
}
