import { AsyncLock } from "@tender/core";
import type { Vtxo } from "@tender/ark-protocol";
import type { StoredVtxo, VtxoStore } from "./vtxo-store.js";

/**
 * How every rail selects VTXOs for an action, locks them to it and releases them (the daemon
 * service `VtxoLocksService`), so no two actions ever spend one VTXO:
 *
 * - {@link select} runs one selection at a time: whatever the selecting action locked before its
 *   selection returns is no longer spendable for the next one. An action locks its inputs in its
 *   first persisted step (so a crash never leaves a lock without its action) and starts inside
 *   its selection.
 * - {@link lock} is all or none, and idempotent for the same action (a resumed action locks again).
 * - {@link release} returns an action's VTXOs to spendable (the action failed, or what it waited
 *   for happened); spent VTXOs are marked through the store.
 * - {@link holdNew} stores a VTXO an action creates, locked by it until released (a board until
 *   the server registered it).
 */
export class VtxoLocks {
  private readonly selection = new AsyncLock();
  private readonly writes = new AsyncLock();

  constructor(private readonly store: VtxoStore) {}

  /** Runs `choose` with the spendable VTXOs (oldest first) while no other selection runs. */
  select<T>(choose: (spendable: readonly StoredVtxo[]) => Promise<T>): Promise<T> {
    return this.selection.run(async () => choose(await this.store.list(["spendable"])));
  }

  /**
   * Locks `ids` for `actionId`, all or none; throws `VtxoNotSpendableError` when one is not
   * spendable (or held by another action). Atomic in the database (checked, then one conditional
   * update), so it takes no in-process lock and may run inside an action's transaction.
   */
  lock(ids: readonly string[], actionId: string): Promise<void> {
    return this.store.lock(ids, actionId);
  }

  /** Returns every VTXO `actionId` holds to spendable (one update; may run inside a transaction). */
  release(actionId: string): Promise<void> {
    return this.store.unlock(actionId);
  }

  /** Stores `vtxo` (idempotent) locked by `actionId`: never spendable before {@link release}. */
  holdNew(vtxo: Vtxo, actionId: string): Promise<void> {
    return this.writes.run(async () => {
      await this.store.add(vtxo, "locked", actionId);
    });
  }

  /** The VTXOs `actionId` holds. */
  heldBy(actionId: string): Promise<StoredVtxo[]> {
    return this.store.lockedBy(actionId);
  }
}
