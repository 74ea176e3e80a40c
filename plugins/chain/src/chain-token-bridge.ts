import type { ChainSource, WalletService } from "@tender/core";

/** The {@link ChainSource} methods, every one forwarded by {@link chainSourceTokenBridge}. */
const METHODS = [
  "getNetwork", "getTip", "getBlockHash", "getBlockHeader", "getBlockTxids", "getRawBlock", "getTx", "getTxStatus",
  "isInMempool", "getOutspend", "getOutspends", "getScriptUtxos", "getScriptHistory", "getFeeEstimates", "broadcast",
  "broadcastPackage",
] as const satisfies readonly Exclude<keyof ChainSource, "label">[];

/**
 * A daemon-lifetime {@link ChainSource} for the deprecated `ChainSourceToken`, kept only while a
 * plugin still resolves that token instead of asking for `ChainSourceService`: every call is
 * made on the loaded wallet's source (waiting while the wallet loads; 422 `No wallet set`
 * without one). Remove it together with the token.
 */
export function chainSourceTokenBridge(chain: WalletService<ChainSource>): ChainSource {
  const bridge: Record<string, unknown> = {};
  Object.defineProperty(bridge, "label", { get: () => chain.current?.label ?? "(no wallet)", enumerable: true });
  for (const m of METHODS) {
    bridge[m] = async (...args: unknown[]) => {
      const source = await chain.get();
      return (source[m] as (...a: unknown[]) => unknown).apply(source, args);
    };
  }
  return bridge as unknown as ChainSource;
}
