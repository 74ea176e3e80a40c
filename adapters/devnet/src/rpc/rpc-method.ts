import type { DevnetNode } from "../node/devnet-node.js";
import { classifyScript } from "../node/address.js";
import type { TxInfo } from "../node/types.js";
import { txJson, type TxJsonOptions } from "./core-json.js";
import type { RpcParams } from "./rpc-params.js";

/** What every RPC method receives. */
export interface RpcContext {
  readonly node: DevnetNode;
  /** When the server started (unix ms), for `uptime`. */
  readonly startedAt: number;
}

/** One JSON-RPC method: its parameter names (for named params) and its implementation. */
export interface RpcMethod {
  readonly params: readonly string[];
  run(ctx: RpcContext, p: RpcParams): unknown;
}

/** Methods by name. */
export type RpcMethodTable = Readonly<Record<string, RpcMethod>>;

/** A transaction as `getrawtransaction`/`getblock` print it, with spent-output origins when asked. */
export function coreTxJson(node: DevnetNode, tx: TxInfo, opts: TxJsonOptions): Record<string, unknown> {
  const prevoutOrigin = (txid: string) => {
    const prev = node.getTransaction(txid);
    if (!prev) return undefined;
    return { height: prev.status.blockHeight ?? node.tipHeight() + 1, generated: prev.isCoinbase };
  };
  return txJson(tx, { ...opts, prevoutOrigin }, classifyScript);
}
