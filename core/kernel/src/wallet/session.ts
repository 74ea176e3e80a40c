import { defineEvent, type EventBus } from "../events/event-bus.js";
import type { WalletScope } from "../services/wallet-scope.js";

/** What the kernel knows about the loaded wallet. */
export interface LoadedWallet {
  fingerprint: string;
  network: string;
  /** `daemon_manual_sync`: periodic background work is off; clients drive it with the sync routes. */
  manualSync?: boolean;
}

/** Raised after a wallet was created or opened (its database is open, its wallet services exist). */
export const WalletLoaded = defineEvent<LoadedWallet>("wallet.loaded");
/** Raised once every {@link WalletLoaded} handler has finished: the plugins are attached to the wallet. */
export const WalletReady = defineEvent<LoadedWallet>("wallet.ready");
/** Raised after the wallet was unloaded (deleted, or the daemon is stopping); its wallet services are disposed of after the handlers ran. */
export const WalletUnloaded = defineEvent<LoadedWallet>("wallet.unloaded");

/**
 * A `WalletNotification` as barkd sends it: `movement-created`,
 * `movement-updated` (with the movement) or `channel-lagging`. Plugins that create or change
 * movements raise it; the notifications plugin delivers it.
 */
export type WalletNotification =
  | { type: "movement-created"; movement: Record<string, unknown> }
  | { type: "movement-updated"; movement: Record<string, unknown> }
  | { type: "channel-lagging" };

/** Raised for every wallet notification. */
export const WalletNotificationRaised = defineEvent<WalletNotification>("wallet.notification");

/**
 * The kernel's record of whether a wallet is loaded; routes marked `requiresWallet` answer
 * `422 No wallet set` without one. The wallet plugin is the only writer.
 */
export class WalletSession {
  private wallet: LoadedWallet | undefined;
  private locked = false;
  private readonly work = new Set<Promise<unknown>>();
  /** Mutating requests being answered: locking waits for them before the wallet's services go. */
  private readonly requests = new Set<Promise<unknown>>();
  private readonly unloadBarriers: (() => Promise<void>)[] = [];
  constructor(private readonly events: EventBus, private readonly scope?: WalletScope) {}

  /**
   * Whether the loaded wallet's seed is still encrypted: its database is open (reads work) but
   * no wallet service exists, {@link WalletLoaded} was not raised and no action resumes.
   */
  get isLocked(): boolean {
    return this.wallet !== undefined && this.locked;
  }

  get current(): LoadedWallet | undefined {
    return this.wallet;
  }

  get isLoaded(): boolean {
    return this.wallet !== undefined;
  }

  /**
   * Marks `wallet` as loaded, creates its wallet services, raises {@link WalletLoaded} and waits
   * for its handlers, then raises {@link WalletReady}.
   */
  async load(wallet: LoadedWallet): Promise<void> {
    if (this.wallet) throw new Error("a wallet is already loaded");
    this.wallet = wallet;
    await this.attach(wallet);
  }

  /**
   * Marks `wallet` as loaded but locked (its seed is encrypted and no passphrase was given yet):
   * routes see a wallet, wallet services answer {@link WalletLockedError}, nothing is raised.
   */
  loadLocked(wallet: LoadedWallet): void {
    if (this.wallet) throw new Error("a wallet is already loaded");
    this.wallet = wallet;
    this.locked = true;
    if (this.scope) this.scope.locked = true;
  }

  /**
   * Runs a mutating request's handler (the kernel wraps every non-GET route that cannot run while
   * locked), so {@link lock} lets a payment being answered finish before the keys go.
   */
  async track<T>(handler: () => Promise<T>): Promise<T> {
    const run = handler();
    const settled = run.then(() => undefined, () => undefined);
    this.requests.add(settled);
    try {
      return await run;
    } finally {
      this.requests.delete(settled);
    }
  }

  /** The locked wallet's keys are available: creates its wallet services and raises the load events, as {@link load}. */
  async unlock(): Promise<void> {
    const wallet = this.wallet;
    if (!wallet || !this.locked) return;
    this.locked = false;
    if (this.scope) this.scope.locked = false;
    await this.attach(wallet);
  }

  /**
   * Locks the loaded wallet again: raises {@link WalletUnloaded}, waits for its handlers and
   * background work, disposes of its wallet services; the wallet stays loaded (its database open).
   */
  async lock(): Promise<void> {
    const wallet = this.wallet;
    if (!wallet || this.locked) return;
    this.locked = true;
    if (this.scope) this.scope.locked = true;
    // new mutating requests now answer 423; those already running end first
    while (this.requests.size) await Promise.allSettled([...this.requests]);
    await this.detach(wallet);
  }

  private async attach(wallet: LoadedWallet): Promise<void> {
    await this.scope?.open(wallet);
    if (this.wallet !== wallet || this.locked) return;
    await this.events.emitAndWait(WalletLoaded, wallet);
    if (this.wallet === wallet && !this.locked) this.events.emit(WalletReady, wallet);
  }

  /**
   * Adds work that must end before an unloaded wallet's services and database go: the kernel's
   * scheduler ends its runs under way here (a background task's query must not outlive the database).
   */
  addUnloadBarrier(barrier: () => Promise<void>): void {
    this.unloadBarriers.push(barrier);
  }

  private async detach(wallet: LoadedWallet): Promise<void> {
    await this.events.emitAndWait(WalletUnloaded, wallet);
    // background work of this wallet (a start-up sync, a scheduled task's run…) ends before its services and database go
    while (this.work.size) await Promise.allSettled([...this.work]);
    for (const barrier of this.unloadBarriers) await barrier();
    await this.scope?.close();
  }

  /**
   * Runs `work` for the loaded wallet in the background (its failure is the caller's to log).
   * Unloading the wallet (delete, daemon stop) waits for it before the wallet's services and
   * database are closed, so no query runs against a closed database.
   */
  background(work: () => Promise<unknown>): void {
    const run: Promise<unknown> = work().catch(() => undefined).finally(() => this.work.delete(run));
    this.work.add(run);
  }

  /** Marks the wallet unloaded (a locked one silently), raises {@link WalletUnloaded}, waits for its handlers and background work, then disposes of its wallet services. */
  async unload(): Promise<void> {
    const w = this.wallet;
    if (!w) return;
    this.wallet = undefined;
    const wasLocked = this.locked;
    this.locked = false;
    if (this.scope) this.scope.locked = false;
    // a locked wallet raised no load event and has no services: there is nothing to undo
    if (!wasLocked) await this.detach(w);
  }
}
