import { expect } from "chai";
import type { Daemon } from "./daemon-process.js";

/** Calls the daemon and asserts a 200; returns the JSON body. A POST without a body sends `{}`. */
export async function ok<T>(d: Daemon, method: string, path: string, body?: unknown): Promise<T> {
  const r = await d.api(method, path, body === undefined ? (method === "POST" ? { body: {} } : {}) : { body });
  expect(r.status, `${method} ${path}: ${r.text}`).to.equal(200);
  return r.json as T;
}

/** Resolves after `ms` milliseconds. */
export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** A probe of {@link until}: a value once the awaited state is there, `undefined` before. */
export type Probe<T> = () => Promise<T | undefined> | T | undefined;

/** Polls `probe` every `everyMs` (100 ms) until it returns a value (not `undefined`), or fails after `ms`. */
export async function until<T>(what: string, probe: Probe<T>, ms = 20_000, everyMs = 100): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await probe();
    if (v !== undefined) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(everyMs);
  }
}
