/**
 * A sleep that can be cut short: the round coordinator sleeps until a deadline and is woken by a
 * trigger, a full round, the last signature or shutdown. Waking while nobody sleeps is not
 * remembered; callers re-check their condition before every sleep.
 */
export class Wakeable {
  private pending: { timer: NodeJS.Timeout; resolve: () => void } | undefined;

  /** Resolves after `ms` or at the next {@link wake}, whichever comes first. */
  sleep(ms: number): Promise<void> {
    this.wake();
    return new Promise((resolve) => {
      const timer = setTimeout(() => this.wake(), Math.max(0, ms));
      this.pending = { timer, resolve };
    });
  }

  /** Ends the current sleep now. */
  wake(): void {
    const p = this.pending;
    if (!p) return;
    this.pending = undefined;
    clearTimeout(p.timer);
    p.resolve();
  }
}
