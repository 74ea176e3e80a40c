import type { Database } from "@tender/core";
import { decodeVtxo, encodeVtxo, fromHex, toHex, vtxoIdString, type Vtxo } from "@tender/ark-protocol";
import { ArkVtxoRow } from "../persistence/entities.js";

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

function toStored(r: ArkVtxoRow): StoredVtxo {
  return {
    id: r.id, vtxo: decodeVtxo(fromHex(r.encoded)), amountSat: BigInt(r.amountSat), state: r.state as VtxoState,
    lockedBy: r.lockedBy, createdAtMs: Number(r.createdAtMs),
  };
}

/**
 * The wallet's VTXOs and their states (`ark_vtxo`). Locks tie VTXOs to the action spending them,
 * so a crashed action finds its inputs again and no two actions spend the same VTXO.
 */
export class VtxoStore {
  constructor(private readonly db: Database, private readonly now: () => number = Date.now) {}

  /**
   * Stores `vtxo` with `state` unless a VTXO with its id is already stored (then the stored one
   * is kept: adding is idempotent). Returns whether it was new. A `locked` VTXO names the action
   * holding it in `lockedBy` (e.g. a board waiting for confirmations).
   */
  async add(vtxo: Vtxo, state: VtxoState = "spendable", lockedBy: string | null = null): Promise<boolean> {
    const em = this.db.em();
    const id = vtxoIdString(vtxo);
    if (await em.findOne(ArkVtxoRow, { id })) return false;
    const t = BigInt(this.now());
    em.create(ArkVtxoRow, {
      id, encoded: toHex(encodeVtxo(vtxo)), amountSat: vtxo.amount, expiryHeight: vtxo.expiryHeight, state,
      lockedBy: state === "locked" ? lockedBy : null, createdAtMs: t, updatedAtMs: t,
    });
    await em.flush();
    return true;
  }

  /** The stored VTXO with `id`, or `undefined`. */
  async get(id: string): Promise<StoredVtxo | undefined> {
    const r = await this.db.em().findOne(ArkVtxoRow, { id });
    return r ? toStored(r) : undefined;
  }

  /** VTXOs in the given states (default: all but `spent`), oldest first. */
  async list(states: readonly VtxoState[] = ["spendable", "locked", "exited"]): Promise<StoredVtxo[]> {
    const rows = await this.db.em().find(ArkVtxoRow, { state: { $in: [...states] } }, { orderBy: { createdAtMs: "asc", id: "asc" } });
    return rows.map(toStored);
  }

  /** Every stored VTXO, spent ones included. */
  listAll(): Promise<StoredVtxo[]> {
    return this.list(["spendable", "locked", "spent", "exited"]);
  }

  /** VTXOs locked by `actionId`. */
  async lockedBy(actionId: string): Promise<StoredVtxo[]> {
    return (await this.db.em().find(ArkVtxoRow, { state: "locked", lockedBy: actionId })).map(toStored);
  }

  /**
   * Locks `ids` for `actionId`, all or none. Locking again for the same action is a no-op, so a
   * resumed action may call it twice. Throws {@link VtxoNotSpendableError} otherwise.
   */
  async lock(ids: readonly string[], actionId: string): Promise<void> {
    await this.db.transaction(async () => {
      const tx = this.db.em();
      const unique = [...new Set(ids)];
      const rows = await tx.find(ArkVtxoRow, { id: { $in: unique } });
      const byId = new Map(rows.map((r) => [r.id, r]));
      // every check before any write: a caller inside a larger transaction may catch the refusal
      for (const id of unique) {
        const r = byId.get(id);
        if (!r) throw new VtxoNotSpendableError(id, "unknown");
        if (r.state === "locked" && r.lockedBy === actionId) continue;
        if (r.state !== "spendable") throw new VtxoNotSpendableError(id, r.state as VtxoState);
      }
      // one conditional update: a row another writer took meanwhile is not counted, and the
      // error then rolls the whole transaction back
      const n = await tx.nativeUpdate(
        ArkVtxoRow,
        { id: { $in: unique }, $or: [{ state: "spendable" }, { state: "locked", lockedBy: actionId }] },
        { state: "locked", lockedBy: actionId, updatedAtMs: BigInt(this.now()) },
      );
      if (n !== unique.length) throw new Error(`VTXOs changed while being locked for ${actionId}`);
    });
  }

  /** Returns every VTXO locked by `actionId` to `spendable`. */
  async unlock(actionId: string): Promise<void> {
    await this.db.em().nativeUpdate(ArkVtxoRow, { state: "locked", lockedBy: actionId }, { state: "spendable", lockedBy: null, updatedAtMs: BigInt(this.now()) });
  }

  /** Marks `ids` spent (they leave the balance and the default listing). */
  async markSpent(ids: readonly string[]): Promise<void> {
    await this.setState(ids, "spent");
  }

  /** Marks `ids` exited (handed to the exit subsystem). */
  async markExited(ids: readonly string[]): Promise<void> {
    await this.setState(ids, "exited");
  }

  private async setState(ids: readonly string[], state: VtxoState): Promise<void> {
    if (ids.length === 0) return;
    await this.db.em().nativeUpdate(ArkVtxoRow, { id: { $in: [...ids] } }, { state, lockedBy: null, updatedAtMs: BigInt(this.now()) });
  }

  /**
   * The VTXOs whose recovery state may be missing on the server (not marked
   * {@link markRecoveryRegistered}), spent ones left out: spendable, locked and exited, oldest first.
   * Exited ones are included: their exit being on chain does not mean their outputs were claimed.
   */
  async notRecoveryRegistered(): Promise<StoredVtxo[]> {
    const rows = await this.db.em().find(ArkVtxoRow, { recoveryRegistered: false, state: { $ne: "spent" } }, { orderBy: { createdAtMs: "asc", id: "asc" } });
    return rows.map(toStored);
  }

  /** Records that the ids of `ids` are in the recovery mailbox and their chains registered with the server. */
  async markRecoveryRegistered(ids: readonly string[]): Promise<void> {
    if (ids.length === 0) return;
    await this.db.em().nativeUpdate(ArkVtxoRow, { id: { $in: [...ids] } }, { recoveryRegistered: true });
  }

  /** Whether `id` is marked {@link markRecoveryRegistered} (false for an unknown id). */
  async isRecoveryRegistered(id: string): Promise<boolean> {
    return (await this.db.em().findOne(ArkVtxoRow, { id }))?.recoveryRegistered ?? false;
  }

  /** Sums of the spendable and the locked VTXOs. */
  async balance(): Promise<VtxoBalance> {
    const rows = await this.db.em().find(ArkVtxoRow, { state: { $in: ["spendable", "locked"] } }, { fields: ["amountSat", "state"] });
    const b: VtxoBalance = { spendableSat: 0n, lockedSat: 0n };
    for (const r of rows) {
      if (r.state === "spendable") b.spendableSat += BigInt(r.amountSat);
      else b.lockedSat += BigInt(r.amountSat);
    }
    return b;
  }
}
