import type { ChainSource, WalletService } from "@tender/core";
import type { ExitChain } from "../exit-ports.js";

/** {@link ExitChain} over the loaded wallet's chain source. */
export function sourceExitChain(chain: WalletService<ChainSource>): ExitChain {
  const source = () => chain.get();
  return {
    tip: async () => (await source()).getTip(),
    blockHashAt: async (height) => (await source()).getBlockHash(height),
    txStatus: async (txid) => (await source()).getTxStatus(txid),
    txHex: async (txid) => (await (await source()).getTx(txid))?.hex ?? null,
    outspend: async (txid, vout) => (await source()).getOutspend(txid, vout),
    broadcast: async (hex) => {
      await (await source()).broadcast(hex);
    },
    broadcastPackage: async (hexes) => {
      await (await source()).broadcastPackage(hexes);
    },
  };
}
