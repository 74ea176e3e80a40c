import { AsyncLocalStorage } from "node:async_hooks";
import type { Principal } from "./api-key.js";

/** What the spending caps need while one request's handler runs. */
export interface AccessContext {
  principal: Principal;
  /** Ids of the spend rows this request reserved (released when it is refused with a 4xx). */
  reservations: string[];
  /** The kernel's cap service of this daemon. */
  caps: { reserve(ctx: AccessContext, rail: string, amountSat: bigint | undefined, what: string): Promise<void> };
}

const storage = new AsyncLocalStorage<AccessContext>();

export function runInAccessContext<T>(ctx: AccessContext, fn: () => Promise<T>): Promise<T> {
  return storage.run(ctx, fn);
}

export function currentAccessContext(): AccessContext | undefined {
  return storage.getStore();
}

/**
 * Who made the request being served (the owner token or an API key), for a handler that hands out
 * something outliving the request (a websocket ticket); `undefined` outside a request and in no-auth mode.
 */
export function currentPrincipal(): Principal | undefined {
  return storage.getStore()?.principal;
}
