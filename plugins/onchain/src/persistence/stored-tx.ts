/** Where a wallet transaction stands. */
export type WalletTxState =
  /** Unconfirmed: in the mempool, or signed and persisted but not (yet) accepted there. */
  | "pending"
  | "confirmed"
  /** The chain source refused it because one of its inputs is spent by another transaction (or it descends from such a one). */
  | "conflicted";

/** Who made the transaction: this wallet (it signed it) or someone else (a payment to us). */
export type WalletTxOrigin = "wallet" | "external";

/** A transaction of the on-chain wallet as it is persisted. */
export interface StoredTx {
  readonly txid: string;
  readonly hex: string;
  origin: WalletTxOrigin;
  state: WalletTxState;
  block: { height: number; hash: string; time: number } | null;
  /** Fee when every input value is known. */
  feeSat: bigint | null;
  /** Spends a pay-to-anchor output: a fee bump of an exit transaction. */
  isCpfp: boolean;
  /** When the wallet first stored it (ms since the epoch); orders unconfirmed transactions. */
  firstSeenMs: number;
  /** When the wallet last handed it to the chain source (its own transactions), or `null`. */
  lastBroadcastMs: number | null;
  /**
   * Signed and stored for another plugin, which broadcasts it itself (a CPFP child, a board
   * funding transaction): its inputs are reserved, but it is neither listed, counted nor
   * re-broadcast until it is marked broadcast or seen on chain.
   */
  held: boolean;
}

/** Persisted keychain and fee-rate state of the on-chain wallet. */
export interface OnchainStateRecord {
  /** The next external index `POST …/addresses/next` reveals. */
  nextIndex: number;
}

/**
 * Where the on-chain wallet keeps its transactions and keychain state. The SQL implementation
 * lives in the wallet database; tests and benchmarks use {@link MemoryOnchainStore}.
 */
export interface OnchainStore {
  loadTxs(): Promise<StoredTx[]>;
  /** Inserts or replaces the given transactions (one unit of work). */
  saveTxs(txs: readonly StoredTx[]): Promise<void>;
  deleteTx(txid: string): Promise<void>;
  loadState(): Promise<OnchainStateRecord>;
  saveState(state: OnchainStateRecord): Promise<void>;
}

/** An {@link OnchainStore} in memory (tests, benchmarks). */
export class MemoryOnchainStore implements OnchainStore {
  readonly txs = new Map<string, StoredTx>();
  state: OnchainStateRecord = { nextIndex: 0 };

  async loadTxs(): Promise<StoredTx[]> {
    return [...this.txs.values()].map((t) => structuredClone(t));
  }
  async saveTxs(txs: readonly StoredTx[]): Promise<void> {
    for (const t of txs) this.txs.set(t.txid, structuredClone(t));
  }
  async deleteTx(txid: string): Promise<void> {
    this.txs.delete(txid);
  }
  async loadState(): Promise<OnchainStateRecord> {
    return { ...this.state };
  }
  async saveState(state: OnchainStateRecord): Promise<void> {
    this.state = { ...state };
  }
}
