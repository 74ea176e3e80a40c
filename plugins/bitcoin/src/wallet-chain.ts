import {
  ChainSourceUnavailableError,
  type BlockHeader, type BlockRef, type ChainNetwork, type ChainSource, type ChainTx, type FeeEstimates,
  type OutputSpend, type PackageBroadcastResult, type ScriptQuery, type ScriptTx, type ScriptUtxo, type TxStatus,
} from "@tender/core";

/** No wallet is loaded, so there is no chain source to ask. */
export class NoWalletChainError extends ChainSourceUnavailableError {
  constructor() {
    super("(none)", "connection", "no wallet is loaded, so no chain source is configured");
  }
}

/**
 * The loaded wallet's chain source. Plugins keep this one object for the daemon's lifetime; it
 * forwards every call to the source built from the current wallet's configuration, and throws
 * {@link NoWalletChainError} while no wallet is loaded.
 */
export class WalletChain implements ChainSource {
  private current: ChainSource | undefined;
  private network: ChainNetwork | undefined;

  get label(): string {
    return this.current?.label ?? "(no wallet)";
  }

  /** The wallet's source, or `undefined` without a wallet. */
  get source(): ChainSource | undefined {
    return this.current;
  }

  /** The network the loaded wallet expects its chain on. */
  get expectedNetwork(): ChainNetwork | undefined {
    return this.network;
  }

  /** Switches to a newly loaded wallet's source. */
  attach(source: ChainSource, network: ChainNetwork): void {
    this.current = source;
    this.network = network;
  }

  /** Forgets the source (wallet unloaded). */
  detach(): void {
    this.current = undefined;
    this.network = undefined;
  }

  private get s(): ChainSource {
    if (!this.current) throw new NoWalletChainError();
    return this.current;
  }

  async getNetwork(): Promise<ChainNetwork> { return this.s.getNetwork(); }
  async getTip(): Promise<BlockRef> { return this.s.getTip(); }
  async getBlockHash(height: number): Promise<string | null> { return this.s.getBlockHash(height); }
  async getBlockHeader(hash: string): Promise<BlockHeader | null> { return this.s.getBlockHeader(hash); }
  async getBlockTxids(hash: string): Promise<string[] | null> { return this.s.getBlockTxids(hash); }
  async getRawBlock(hash: string): Promise<string | null> { return this.s.getRawBlock(hash); }
  async getTx(txid: string): Promise<ChainTx | null> { return this.s.getTx(txid); }
  async getTxStatus(txid: string): Promise<TxStatus | null> { return this.s.getTxStatus(txid); }
  async isInMempool(txid: string): Promise<boolean> { return this.s.isInMempool(txid); }
  async getOutspend(txid: string, vout: number): Promise<OutputSpend> { return this.s.getOutspend(txid, vout); }
  async getOutspends(txid: string): Promise<OutputSpend[] | null> { return this.s.getOutspends(txid); }
  async getScriptUtxos(query: ScriptQuery): Promise<ScriptUtxo[]> { return this.s.getScriptUtxos(query); }
  async getScriptHistory(query: ScriptQuery): Promise<ScriptTx[]> { return this.s.getScriptHistory(query); }
  async getFeeEstimates(targets?: readonly number[]): Promise<FeeEstimates> { return this.s.getFeeEstimates(targets); }
  async broadcast(txHex: string): Promise<string> { return this.s.broadcast(txHex); }
  async broadcastPackage(txHexes: readonly string[]): Promise<PackageBroadcastResult> { return this.s.broadcastPackage(txHexes); }
}
