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
  private current: Promise<ChainSource> | undefined;
  private ready: ChainSource | undefined;
  private network: ChainNetwork | undefined;

  get label(): string {
    return this.ready?.label ?? "(no wallet)";
  }

  /** The wallet's source once built, or `undefined` without a wallet. */
  get source(): ChainSource | undefined {
    return this.ready;
  }

  /** The network the loaded wallet expects its chain on. */
  get expectedNetwork(): ChainNetwork | undefined {
    return this.network;
  }

  /** Switches to a newly loaded wallet's source (or one still being built); calls made meanwhile wait for it. */
  attach(source: ChainSource | Promise<ChainSource>, network: ChainNetwork): void {
    const p = Promise.resolve(source);
    this.current = p;
    this.ready = undefined;
    this.network = network;
    p.then((s) => { if (this.current === p) this.ready = s; }, () => undefined);
  }

  /** Forgets the source (wallet unloaded). */
  detach(): void {
    this.current = undefined;
    this.ready = undefined;
    this.network = undefined;
  }

  private get s(): Promise<ChainSource> {
    if (!this.current) return Promise.reject(new NoWalletChainError());
    return this.current;
  }

  async getNetwork(): Promise<ChainNetwork> { return (await this.s).getNetwork(); }
  async getTip(): Promise<BlockRef> { return (await this.s).getTip(); }
  async getBlockHash(height: number): Promise<string | null> { return (await this.s).getBlockHash(height); }
  async getBlockHeader(hash: string): Promise<BlockHeader | null> { return (await this.s).getBlockHeader(hash); }
  async getBlockTxids(hash: string): Promise<string[] | null> { return (await this.s).getBlockTxids(hash); }
  async getRawBlock(hash: string): Promise<string | null> { return (await this.s).getRawBlock(hash); }
  async getTx(txid: string): Promise<ChainTx | null> { return (await this.s).getTx(txid); }
  async getTxStatus(txid: string): Promise<TxStatus | null> { return (await this.s).getTxStatus(txid); }
  async isInMempool(txid: string): Promise<boolean> { return (await this.s).isInMempool(txid); }
  async getOutspend(txid: string, vout: number): Promise<OutputSpend> { return (await this.s).getOutspend(txid, vout); }
  async getOutspends(txid: string): Promise<OutputSpend[] | null> { return (await this.s).getOutspends(txid); }
  async getScriptUtxos(query: ScriptQuery): Promise<ScriptUtxo[]> { return (await this.s).getScriptUtxos(query); }
  async getScriptHistory(query: ScriptQuery): Promise<ScriptTx[]> { return (await this.s).getScriptHistory(query); }
  async getFeeEstimates(targets?: readonly number[]): Promise<FeeEstimates> { return (await this.s).getFeeEstimates(targets); }
  async broadcast(txHex: string): Promise<string> { return (await this.s).broadcast(txHex); }
  async broadcastPackage(txHexes: readonly string[]): Promise<PackageBroadcastResult> { return (await this.s).broadcastPackage(txHexes); }
}
