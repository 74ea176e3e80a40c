import { RpcError, RpcErrorCode } from "./rpc-error.js";
import type { RpcContext, RpcMethodTable } from "./rpc-method.js";
import { RpcParams } from "./rpc-params.js";

/** One reply: its JSON object, and the HTTP status a lone legacy (JSON-RPC 1.0) request would get. */
export interface RpcReply {
  readonly body: Record<string, unknown> | null;
  readonly httpStatus: number;
}

function legacyStatus(code: number): number {
  if (code === RpcErrorCode.INVALID_REQUEST) return 400;
  if (code === RpcErrorCode.METHOD_NOT_FOUND) return 404;
  return 500;
}

/**
 * Answers one request object the way bitcoind 28+ does: JSON-RPC 2.0 requests get
 * `{jsonrpc, result|error, id}` with HTTP 200 (notifications get nothing); legacy requests get
 * `{result, error, id}` with HTTP 500/404/400 on errors.
 */
export function dispatch(methods: RpcMethodTable, ctx: RpcContext, request: unknown): RpcReply {
  const req = typeof request === "object" && request !== null && !Array.isArray(request) ? (request as Record<string, unknown>) : null;
  const v2 = req?.jsonrpc === "2.0";
  const id = req && "id" in req ? req.id : null;
  const answer = (result: unknown, error: RpcError | null): RpcReply => {
    if (v2) {
      if (req && !("id" in req)) return { body: null, httpStatus: 204 };
      const body = error ? { jsonrpc: "2.0", error: { code: error.code, message: error.message }, id } : { jsonrpc: "2.0", result, id };
      return { body, httpStatus: 200 };
    }
    const body = { result: error ? null : result, error: error ? { code: error.code, message: error.message } : null, id };
    return { body, httpStatus: error ? legacyStatus(error.code) : 200 };
  };
  try {
    if (!req) throw new RpcError(RpcErrorCode.INVALID_REQUEST, "Invalid Request object");
    if (req.jsonrpc !== undefined && req.jsonrpc !== "1.0" && req.jsonrpc !== "2.0") throw new RpcError(RpcErrorCode.INVALID_REQUEST, "JSON-RPC version not supported");
    if (typeof req.method !== "string") throw new RpcError(RpcErrorCode.INVALID_REQUEST, "Method must be a string");
    const method = Object.hasOwn(methods, req.method) ? methods[req.method] : undefined;
    if (!method) throw new RpcError(RpcErrorCode.METHOD_NOT_FOUND, "Method not found");
    const result = method.run(ctx, new RpcParams(req.params, method.params));
    return answer(result === undefined ? null : result, null);
  } catch (err) {
    if (err instanceof RpcError) return answer(null, err);
    return answer(null, new RpcError(RpcErrorCode.MISC_ERROR, err instanceof Error ? err.message : "internal error"));
  }
}
