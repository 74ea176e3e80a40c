import { PolicyError } from "../node/devnet-node.js";

/** bitcoind's RPC error codes (src/rpc/protocol.h) used by the devnet face. */
export const RpcErrorCode = {
  INVALID_REQUEST: -32600,
  METHOD_NOT_FOUND: -32601,
  INVALID_PARAMS: -32602,
  INTERNAL_ERROR: -32603,
  PARSE_ERROR: -32700,
  MISC_ERROR: -1,
  TYPE_ERROR: -3,
  INVALID_ADDRESS_OR_KEY: -5,
  INVALID_PARAMETER: -8,
  DESERIALIZATION_ERROR: -22,
  VERIFY_ERROR: -25,
  VERIFY_REJECTED: -26,
  VERIFY_ALREADY_IN_CHAIN: -27,
} as const;

/** An error answered as the JSON-RPC `error` object `{code, message}`. */
export class RpcError extends Error {
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message);
    this.name = "RpcError";
  }
}

/** The RPC error bitcoind's `sendrawtransaction` gives for a refused transaction. */
export function rpcErrorForPolicy(err: PolicyError): RpcError {
  const reason = err.reason;
  if (reason === "bad-txns-inputs-missingorspent" || reason === "missing-inputs") return new RpcError(RpcErrorCode.VERIFY_ERROR, "bad-txns-inputs-missingorspent");
  if (reason === "max-fee-exceeded") return new RpcError(RpcErrorCode.VERIFY_ERROR, "Fee exceeds maximum configured by user (e.g. -maxtxfee, maxfeerate)");
  if (/already in (the )?(utxo set|block ?chain)|txn-already-known|already-in-chain/i.test(reason)) return new RpcError(RpcErrorCode.VERIFY_ALREADY_IN_CHAIN, "Transaction outputs already in utxo set");
  if (/^TX decode failed/i.test(reason)) return new RpcError(RpcErrorCode.DESERIALIZATION_ERROR, reason);
  return new RpcError(RpcErrorCode.VERIFY_REJECTED, err.message);
}
