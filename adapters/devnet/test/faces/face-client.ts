import { readFile } from "node:fs/promises";
import type { Devnet } from "../../src/devnet.js";

/** A raw HTTP answer: status, content type and body text. */
export interface RawReply {
  readonly status: number;
  readonly type: string;
  readonly text: string;
}

/** GET/POST on the Esplora face, returning the raw reply. */
export async function esplora(devnet: Devnet, path: string, init: { method?: string; body?: string; json?: unknown } = {}): Promise<RawReply> {
  const headers: Record<string, string> = {};
  let body = init.body;
  if (init.json !== undefined) {
    headers["content-type"] = "application/json";
    body = JSON.stringify(init.json);
  }
  const res = await fetch(`${devnet.esploraUrl}${path}`, { method: init.method ?? (body === undefined ? "GET" : "POST"), headers, ...(body !== undefined ? { body } : {}) });
  return { status: res.status, type: res.headers.get("content-type") ?? "", text: await res.text() };
}

/** GET returning parsed JSON (asserting 200). */
export async function esploraJson(devnet: Devnet, path: string): Promise<any> {
  const r = await esplora(devnet, path);
  if (r.status !== 200) throw new Error(`${path}: HTTP ${r.status} ${r.text}`);
  return JSON.parse(r.text);
}

/** POSTs a raw JSON-RPC body with the cookie (or given) credentials. */
export async function rpcRaw(devnet: Devnet, body: unknown, auth?: string): Promise<RawReply> {
  const pair = auth ?? (await readFile(devnet.cookieFile, "utf8"));
  const res = await fetch(devnet.rpcUrl, {
    method: "POST",
    headers: { authorization: `Basic ${Buffer.from(pair).toString("base64")}`, "content-type": "application/json" },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
  return { status: res.status, type: res.headers.get("content-type") ?? "", text: await res.text() };
}

/** Calls one method (JSON-RPC 1.0 envelope) and returns `{result, error}` parsed. */
export async function rpc(devnet: Devnet, method: string, params: unknown[] = []): Promise<{ status: number; result: any; error: { code: number; message: string } | null; text: string }> {
  const r = await rpcRaw(devnet, { jsonrpc: "1.0", id: "t", method, params });
  const parsed = JSON.parse(r.text) as { result: unknown; error: { code: number; message: string } | null };
  return { status: r.status, result: parsed.result, error: parsed.error, text: r.text };
}
