import { UnprocessableEntityError } from "../http/errors.js";
import type { Logger } from "../log/logger.js";
import type { LoadedWallet } from "../wallet/session.js";
import type { ServiceRef } from "./service-ref.js";
import { WalletLockedError } from "../wallet/wallet-locked.js";

/** What a wallet service's factory receives. */
export interface WalletServiceContext {
  /** The wallet being loaded. */
  readonly wallet: LoadedWallet;
  /** Another wallet service of the same wallet (created first when it was not yet). */
  get<T>(ref: ServiceRef<T>): Promise<T>;
}

/** How a plugin makes (and later disposes of) one wallet service. */
export interface WalletServiceProvider<T> {
  create(ctx: WalletServiceContext): Promise<T> | T;
  /** Runs when the wallet is unloaded or deleted, in reverse creation order. Errors are logged. */
  dispose?(value: T): Promise<void> | void;
}

/** A consumer's handle on a wallet service. Keep it for the daemon's lifetime. */
export interface WalletService<T> {
  /**
   * The loaded wallet's instance; waits while the wallet is still loading. Throws 422
   * `No wallet set` without a wallet, or the factory's error when it could not be created.
   */
  get(): Promise<T>;
  /** The instance when a wallet is loaded and the service was created, else `undefined`. */
  readonly current: T | undefined;
}

/** No wallet is loaded, so there is no wallet service to hand out. */
export class NoWalletError extends UnprocessableEntityError {
  constructor() {
    super("No wallet set");
  }
}

interface Registration {
  readonly ref: ServiceRef<unknown>;
  readonly plugin: string;
  readonly provider: WalletServiceProvider<unknown>;
}

/** One loaded wallet's services. */
class Generation {
  readonly pending = new Map<string, Promise<unknown>>();
  readonly ready = new Map<string, unknown>();
  readonly order: string[] = [];
  constructor(readonly wallet: LoadedWallet) {}
}

/**
 * The kernel's wallet scope: the services plugins provide per loaded wallet. On wallet load the
 * kernel creates every one of them (in plugin load order, a factory may ask for another one
 * first); on unload it disposes of them in reverse. This replaces per-plugin "attached wallet"
 * holders: a consumer keeps a {@link WalletService} handle and asks it for the current instance.
 */
export class WalletScope {
  private readonly registrations = new Map<string, Registration>();
  private generation: Generation | undefined;
  /**
   * A wallet is loaded but its seed is still encrypted: no wallet service exists, and a consumer
   * asking for one gets {@link WalletLockedError} instead of `No wallet set`.
   */
  locked = false;

  constructor(private readonly logger: Logger) {}

  /** Registers the provider of `ref` (the kernel checked that `plugin` declared it). */
  register<T>(plugin: string, ref: ServiceRef<T>, provider: WalletServiceProvider<T>): void {
    const prior = this.registrations.get(ref.id);
    if (prior) throw new Error(`wallet service ${ref.id} is provided by both plugin ${prior.plugin} and plugin ${plugin}`);
    this.registrations.set(ref.id, { ref, plugin, provider: provider as WalletServiceProvider<unknown> });
  }

  /** Whether some plugin provides `ref`. */
  has(ref: ServiceRef<unknown>): boolean {
    return this.registrations.has(ref.id);
  }

  /** Creates every wallet service for `wallet`. A factory that fails is logged; its consumers get its error. */
  async open(wallet: LoadedWallet): Promise<void> {
    if (this.generation) await this.close();
    const gen = new Generation(wallet);
    this.generation = gen;
    for (const reg of this.registrations.values()) {
      await this.instance(gen, reg.ref).catch((e: unknown) =>
        this.logger.error(`wallet service ${reg.ref.id} (plugin ${reg.plugin}) could not be created: ${e instanceof Error ? e.message : String(e)}`));
    }
  }

  /** Disposes of the current wallet's services, last created first. */
  async close(): Promise<void> {
    const gen = this.generation;
    if (!gen) return;
    this.generation = undefined;
    await Promise.allSettled([...gen.pending.values()]);
    for (const id of [...gen.order].reverse()) {
      const reg = this.registrations.get(id)!;
      try {
        await reg.provider.dispose?.(gen.ready.get(id));
      } catch (e) {
        this.logger.warn(`wallet service ${id} (plugin ${reg.plugin}) failed to dispose: ${e instanceof Error ? e.message : String(e)}`);
      }
    }
  }

  /** A consumer's handle on `ref`. */
  handle<T>(ref: ServiceRef<T>): WalletService<T> {
    const scope = this;
    return {
      get: () => {
        const gen = this.generation;
        if (!gen) return Promise.reject(this.locked ? new WalletLockedError() : new NoWalletError());
        return this.instance(gen, ref);
      },
      get current() {
        return scope.generation?.ready.get(ref.id) as T | undefined;
      },
    };
  }

  private instance<T>(gen: Generation, ref: ServiceRef<T>): Promise<T> {
    const known = gen.pending.get(ref.id);
    if (known) return known as Promise<T>;
    const reg = this.registrations.get(ref.id);
    if (!reg) return Promise.reject(new Error(`no enabled plugin provides the wallet service ${ref.id}`));
    const ctx: WalletServiceContext = { wallet: gen.wallet, get: (other) => this.instance(gen, other) };
    const p = (async () => {
      const value = await reg.provider.create(ctx);
      if (this.generation === gen) {
        gen.ready.set(ref.id, value);
        gen.order.push(ref.id);
      } else {
        // the wallet was unloaded while this was being created: dispose of it at once
        await reg.provider.dispose?.(value);
      }
      return value;
    })();
    gen.pending.set(ref.id, p);
    return p as Promise<T>;
  }
}
