import { expect } from "chai";
import type { Daemon } from "./daemon-process.js";

/** Calls the daemon and asserts a 200; returns the JSON body. A POST without a body sends `{}`. */
export async function ok<T>(d: Daemon, method: string, path: string, body?: unknown): Promise<T> {
  const r = await d.api(method, path, body === undefined ? (method === "POST" ? { body: {} } : {}) : { body });
  expect(r.status, `${method} ${path}: ${r.text}`).to.equal(200);
  return r.json as T;
}

/** Polls `probe` every 100 ms until it returns a value (not `undefined`), or fails after `ms`. */
export async function until<T>(what: string, probe: () => Promise<T | undefined>, ms = 20_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await probe();
    if (v !== undefined) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
