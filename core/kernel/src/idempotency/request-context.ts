import { AsyncLocalStorage } from "node:async_hooks";

/**
 * What the kernel tracks for one mutating HTTP request while its handler runs (it follows the
 * handler's async calls): the movements it created, and — when the request carries an
 * `Idempotency-Key` — the record that actions started by it are linked to.
 */
export class MutationContext {
  /** Ids of the movements created while the handler ran, in order. */
  readonly movementIds: number[] = [];
  /** The idempotency record id of the request, once its `running` row is stored. */
  recordId: string | undefined;
}

const storage = new AsyncLocalStorage<MutationContext>();

/** Runs `fn` with `ctx` as the current mutation context. */
export function runInMutationContext<T>(ctx: MutationContext, fn: () => Promise<T>): Promise<T> {
  return storage.run(ctx, fn);
}

/** The mutation context of the request whose handler is running here, if any. */
export function currentMutationContext(): MutationContext | undefined {
  return storage.getStore();
}
