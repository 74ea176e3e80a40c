/**
 * Runs async sections one at a time, in the order they were asked for. A failing section does
 * not stop the ones queued behind it. Used wherever two requests or tasks must not interleave
 * (wallet creation and deletion, key derivation, the mailbox consumer, on-chain spends).
 */
export class AsyncLock {
  private tail: Promise<unknown> = Promise.resolve();

  /** Runs `fn` once every section queued before it has finished; resolves with its result. */
  run<T>(fn: () => Promise<T> | T): Promise<T> {
    const next = this.tail.then(fn, fn);
    this.tail = next.catch(() => undefined);
    return next;
  }
}
