import { ChainSourceProtocolError, ChainSourceRejectedError, type PackageBroadcastResult } from "@tender/core";

/**
 * Extracts bitcoind's reason from an Esplora 400 body such as
 * `sendrawtransaction RPC error: {"code":-26,"message":"min relay fee not met, 0 < 110"}`;
 * a body without embedded JSON is taken as the reason itself.
 */
export function parseRejection(body: string): { reason: string; code?: number } {
  const text = body.trim();
  const brace = text.indexOf("{");
  if (brace >= 0) {
    try {
      const parsed = JSON.parse(text.slice(brace)) as { code?: unknown; message?: unknown; error?: unknown };
      const message = typeof parsed.message === "string" ? parsed.message : typeof parsed.error === "string" ? parsed.error : null;
      if (message !== null) return typeof parsed.code === "number" ? { reason: message, code: parsed.code } : { reason: message };
    } catch {
      // not JSON after all: fall through
    }
  }
  return { reason: text.replace(/^[a-z]+ RPC error:\s*/i, "") || "rejected" };
}

/**
 * Reads a Bitcoin Core `submitpackage` result (as relayed by mempool.space's `/txs/package`):
 * success yields the txids; any per-transaction error or a non-success `package_msg` is a
 * rejection carrying the first specific reason.
 */
export function parsePackageReply(label: string, body: unknown, expected: number): PackageBroadcastResult {
  if (typeof body !== "object" || body === null) throw new ChainSourceProtocolError(label, "package reply is not an object");
  const o = body as { package_msg?: unknown; "tx-results"?: unknown };
  const results = o["tx-results"];
  if (typeof o.package_msg !== "string" || typeof results !== "object" || results === null) {
    throw new ChainSourceProtocolError(label, "package reply lacks package_msg / tx-results");
  }
  const entries = Object.values(results as Record<string, { txid?: unknown; error?: unknown }>);
  const firstError = entries.find((e) => typeof e.error === "string")?.error as string | undefined;
  if (o.package_msg !== "success" || firstError !== undefined) {
    throw new ChainSourceRejectedError(label, firstError ?? o.package_msg);
  }
  const txids = entries.map((e) => (typeof e.txid === "string" ? e.txid : ""));
  if (txids.length !== expected || txids.some((t) => !/^[0-9a-f]{64}$/.test(t))) {
    throw new ChainSourceProtocolError(label, "package reply has missing or malformed txids");
  }
  return { txids };
}
