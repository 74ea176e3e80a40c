import { readFile } from "node:fs/promises";

/** Bitcoin Core's JSON-RPC as the contract suite drives a regtest chain: mining and inspecting. */
export interface RegtestRpc {
  call(method: string, params?: readonly unknown[]): Promise<unknown>;
}

/** How to authenticate: bitcoind's cookie file, or an `-rpcauth` user. */
export type RpcAuth = { readonly cookieFile: string } | { readonly user: string; readonly password: string };

/**
 * A minimal JSON-RPC client for a regtest node (a real bitcoind, or the devnet's RPC face). The
 * cookie file is read on every call, since a restarted node writes a new one. RPC errors are
 * thrown with bitcoind's message and code.
 */
export function regtestRpc(url: string, auth: RpcAuth): RegtestRpc {
  return {
    async call(method, params = []) {
      const credentials = "cookieFile" in auth ? (await readFile(auth.cookieFile, "utf8")).trim() : `${auth.user}:${auth.password}`;
      const res = await fetch(url, {
        method: "POST",
        headers: { "content-type": "application/json", authorization: `Basic ${Buffer.from(credentials).toString("base64")}` },
        body: JSON.stringify({ jsonrpc: "1.0", id: method, method, params }),
      });
      const text = await res.text();
      if (!text) throw new Error(`${method}: HTTP ${res.status} with an empty body`);
      const reply = JSON.parse(text) as { result?: unknown; error?: { code: number; message: string } | null };
      if (reply.error) throw new Error(`${method}: ${reply.error.message} (code ${reply.error.code})`);
      return reply.result;
    },
  };
}
