/**
 * In-process locks of the reference server.
 *
 * (The FIFO lock of the single database writer and the mailbox checkpoint generator is the
 * kernel's `AsyncLock`.)
 *
 * - {@link VtxoFluxLocks}: captaind's "flux" locks — the set of VTXO ids an operation is
 *   currently working on. A second operation touching any of them is refused at once
 *   ("some VTXO is already locked by another process"), so two concurrent requests spending
 *   the same VTXO can never both reach the spend-recording step.
 */

/** Ids that could not be locked because another operation holds them. */
export class VtxoLockedError extends Error {
  constructor(readonly ids: readonly string[]) {
    super(`some VTXO is already locked by another process: ${ids.join(", ")}`);
  }
}

/** The set of VTXO ids in use by in-flight operations. */
export class VtxoFluxLocks {
  private readonly held = new Set<string>();

  /**
   * Locks all `ids` (all or nothing) while `fn` runs. Throws {@link VtxoLockedError} listing the
   * ids already held by someone else.
   */
  async with<T>(ids: readonly string[], fn: () => Promise<T>): Promise<T> {
    const unique = [...new Set(ids)];
    const busy = unique.filter((id) => this.held.has(id));
    if (busy.length) throw new VtxoLockedError(busy);
    for (const id of unique) this.held.add(id);
    try {
      return await fn();
    } finally {
      for (const id of unique) this.held.delete(id);
    }
  }

  /**
   * Locks all `ids` (all or nothing) until {@link release}; for operations that hold their
   * inputs across several calls (a round attempt). Throws {@link VtxoLockedError} listing the
   * ids already held.
   */
  acquire(ids: readonly string[]): void {
    const unique = [...new Set(ids)];
    const busy = unique.filter((id) => this.held.has(id));
    if (busy.length) throw new VtxoLockedError(busy);
    for (const id of unique) this.held.add(id);
  }

  /** Releases ids taken with {@link acquire}. */
  release(ids: readonly string[]): void {
    for (const id of ids) this.held.delete(id);
  }

  /** Whether `id` is currently locked. */
  isLocked(id: string): boolean {
    return this.held.has(id);
  }
}
