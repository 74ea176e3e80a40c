import type { ChainSource, WalletService } from "@tender/core";
import type { BoardChain } from "../board-ports.js";

/** {@link BoardChain} over the loaded wallet's chain source. */
export function sourceBoardChain(chain: WalletService<ChainSource>): BoardChain {
  return {
    tipHeight: async () => (await (await chain.get()).getTip()).height,
    txStatus: async (txid) => (await chain.get()).getTxStatus(txid),
    outspend: async (txid, vout) => (await chain.get()).getOutspend(txid, vout),
    broadcast: async (hex) => {
      await (await chain.get()).broadcast(hex);
    },
  };
}
