import { ChainSourceProtocolError, ChainSourceRejectedError } from "./chain-errors.js";
import type { PackageBroadcastResult } from "./chain-types.js";

/**
 * Reads a Bitcoin Core `submitpackage` result (also relayed as is by mempool.space's `POST /txs/package`):
 * success yields the txids; any per-transaction error or a non-success `package_msg` is a
 * rejection carrying the first specific reason.
 */
export function parseSubmitPackageResult(label: string, body: unknown, expected: number): PackageBroadcastResult {
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
