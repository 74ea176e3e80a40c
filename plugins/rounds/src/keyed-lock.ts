import { AsyncLock } from "@tender/core";

/** One {@link AsyncLock} per key: work on one participation runs one at a time, different participations run side by side. */
export class KeyedLock<K> {
  private readonly locks = new Map<K, { lock: AsyncLock; users: number }>();

  async run<T>(key: K, fn: () => Promise<T>): Promise<T> {
    let entry = this.locks.get(key);
    if (!entry) {
      entry = { lock: new AsyncLock(), users: 0 };
      this.locks.set(key, entry);
    }
    entry.users++;
    try {
      return await entry.lock.run(fn);
    } finally {
      if (--entry.users === 0) this.locks.delete(key);
    }
  }
}
