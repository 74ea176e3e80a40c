import type { ChainSource } from "@tender/core";
import type { BoardChain } from "../board-ports.js";

/** {@link BoardChain} over the wallet's chain source. */
export function sourceBoardChain(source: ChainSource): BoardChain {
  return {
    tipHeight: async () => (await source.getTip()).height,
    txStatus: (txid) => source.getTxStatus(txid),
    outspend: (txid, vout) => source.getOutspend(txid, vout),
    broadcast: async (hex) => {
      await source.broadcast(hex);
    },
  };
}
