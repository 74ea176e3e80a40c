import type { InjectionToken } from "tsyringe";

/**
 * Where a service lives. A `daemon` service exists from plugin registration until shutdown (an
 * extension point, a store over the wallet database). A `wallet` service exists only while a
 * wallet is loaded: the kernel creates it when the wallet loads and disposes of it when the wallet
 * is unloaded or deleted (the wallet's chain source, its Ark server connection, its keys).
 */
export type ServiceScope = "daemon" | "wallet";

/**
 * A typed reference to a service: the value a provider registers and a consumer asks for. Made
 * once with {@link defineService} or {@link defineWalletService} by the package that owns the
 * service's interface, and exported as a value (never re-created from its id).
 */
export interface ServiceRef<T> {
  /** Unique, `<owner>.<service>`; shown in error messages. */
  readonly id: string;
  readonly scope: ServiceScope;
  /** The tsyringe token the value is registered under in the kernel's container. */
  readonly token: InjectionToken<T>;
  /** Phantom field carrying the service type; never set. */
  readonly __type?: T;
}

function define<T>(id: string, scope: ServiceScope): ServiceRef<T> {
  return Object.freeze({ id, scope, token: Symbol.for(`tender.${id}`) as InjectionToken<T> });
}

/**
 * Declares a daemon-scoped service. An extension point (Backstage's term: a registry one plugin
 * owns and others add to) is a daemon-scoped service whose value is that registry.
 */
export function defineService<T>(id: string): ServiceRef<T> {
  return define<T>(id, "daemon");
}

/** Declares a service that exists only while a wallet is loaded (see {@link ServiceScope}). */
export function defineWalletService<T>(id: string): ServiceRef<T> {
  return define<T>(id, "wallet");
}
