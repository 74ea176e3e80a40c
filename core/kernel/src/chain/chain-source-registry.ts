import { defineService, type ServiceRef } from "../services/service-ref.js";
import type { ChainSource } from "./chain-source.js";
import type { RetryPolicy } from "./retry.js";

/** Connection settings a chain source is built with (the chain plugin's configuration). */
export interface ChainSourceTuning {
  /** Per-request timeout. */
  readonly timeoutMs?: number;
  /** Attempts and backoff while the backend cannot be reached. */
  readonly retry?: RetryPolicy;
  /**
   * First block a source without an address index (bitcoind) scans for the wallet's scripts:
   * the wallet's chain birthday.
   */
  readonly scanStartHeight?: number;
}

/** What a {@link ChainSourceFactory} builds a source from. */
export interface ChainSourceRequest {
  /** The wallet's backend configuration (`config.toml`, with bark's key names such as `esplora_address`). */
  readonly config: Readonly<Record<string, unknown>>;
  /** The wallet's network as bark names it: `mainnet`, `signet`, `mutinynet` or `regtest`. */
  readonly walletNetwork: string;
  readonly tuning: ChainSourceTuning;
}

/** Builds a {@link ChainSource} of one kind from a wallet's configuration. Makes no network call. */
export type ChainSourceFactory = (request: ChainSourceRequest) => ChainSource;

/** The wallet's configuration names a chain-source kind this daemon has no factory for. */
export class UnknownChainSourceKindError extends Error {
  constructor(readonly kind: string, readonly available: readonly string[]) {
    super(`the wallet's chain source is of kind ${kind}, but this daemon has no ${kind} chain source (available: ${available.length ? available.join(", ") : "none"})`);
  }
}

/**
 * The chain-source kinds a daemon can build, keyed by the kind a wallet's configuration names
 * (`esplora` for `esplora_address`, `bitcoind` for `bitcoind_address`). The composition root (the
 * `tenderd` binary, or a test) fills it with the adapters it ships; the chain plugin asks it for
 * the loaded wallet's source, so no plugin depends on a concrete adapter.
 */
export class ChainSourceRegistry {
  private readonly factories = new Map<string, ChainSourceFactory>();

  /** Adds the factory of `kind`; a kind registered twice is an error. */
  register(kind: string, factory: ChainSourceFactory): this {
    if (this.factories.has(kind)) throw new Error(`chain source kind ${kind} is registered twice`);
    this.factories.set(kind, factory);
    return this;
  }

  /** The registered kinds, in registration order. */
  get kinds(): string[] {
    return [...this.factories.keys()];
  }

  /** Builds a source of `kind`; {@link UnknownChainSourceKindError} when no factory is registered for it. */
  create(kind: string, request: ChainSourceRequest): ChainSource {
    const factory = this.factories.get(kind);
    if (!factory) throw new UnknownChainSourceKindError(kind, this.kinds);
    return factory(request);
  }
}

/** The daemon's {@link ChainSourceRegistry}: provided by the host (`hostServices`), consumed by the chain plugin. */
export const ChainSourceRegistryService: ServiceRef<ChainSourceRegistry> = defineService<ChainSourceRegistry>("core.chain-source-registry");
