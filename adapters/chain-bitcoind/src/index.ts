export { BitcoindChainSource, type BitcoindChainSourceOptions } from "./bitcoind-chain-source.js";
export { BitcoindRpc, BitcoindRpcError, RpcCode, type BitcoindRpcOptions, type RpcCall, type RpcOutcome } from "./bitcoind-rpc.js";
export type { BitcoindAuth } from "./bitcoind-auth.js";
