/**
 * The reference server's chain answered in process by a devnet node. The node is synchronous;
 * its answers (and throws) become promises, so the server treats it exactly as a remote node.
 */
import type { DevnetNode } from "../../node/devnet-node.js";
import type { ServerChain } from "../server-context.js";

/** A {@link ServerChain} over `node`, with the node's faucet. */
export function devnetServerChain(node: DevnetNode): ServerChain {
  return {
    tipHeight: async () => node.tipHeight(),
    getTransaction: async (txid) => node.getTransaction(txid),
    getTxStatus: async (txid) => node.getTxStatus(txid),
    getTxOut: async (txid, vout, includeMempool = true) => node.getTxOut(txid, vout, includeMempool),
    utxosForScript: async (script) => node.utxosForScript(script),
    watchScript: async () => undefined,
    estimateFeeRate: async (target) => node.estimateFeeRate(target),
    submitTransaction: async (raw) => node.submitTransaction(raw),
    testMempoolAccept: async (raws) => node.testMempoolAccept(raws),
    faucet: async (address, amountSat) => node.faucet(address, amountSat),
  };
}
