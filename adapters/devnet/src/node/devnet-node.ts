import { EventEmitter } from "node:events";
import type {
  BlockHeaderInfo,
  BlockInfo,
  ConfirmedConflictResult,
  Destination,
  DevnetNodeEvents,
  DevnetNodeOptions,
  FeeEstimateTable,
  MempoolAcceptResult,
  MempoolEntryInfo,
  OutspendInfo,
  ScriptStats,
  ScriptUtxo,
  SubmitPackageResult,
  TxInfo,
  TxOutLookup,
  TxStatus,
} from "./types.js";

export type * from "./types.js";
export { PolicyError } from "../policy/policy-error.js";
export { DevnetNodeError, InvalidInputError, ControlError, BlockValidationError, DatadirError } from "./node-errors.js";

/** Summary of the mempool (bitcoind `getmempoolinfo`). */
export interface MempoolSummary {
  readonly size: number;
  /** Sum of virtual sizes. */
  readonly bytes: number;
  readonly totalFeeSat: bigint;
  readonly minRelayFeeSatPerVb: number;
}

/**
 * A regtest chain in one process: blocks mined only by this node (no reorgs), a UTXO set, a
 * mempool with Bitcoin Core's relay policy, fee estimates, a faucet and test controls.
 *
 * All methods are synchronous; a mutating call is finished (and persisted when a datadir is
 * set) when it returns. Queries return `undefined` for unknown ids. Policy refusals throw
 * {@link PolicyError} with bitcoind's reject strings; malformed input throws
 * {@link InvalidInputError}; impossible controls throw {@link ControlError}.
 *
 * @example
 * const node = new DevnetNode({ seed: "test" });
 * const txid = node.faucet("bcrt1q…", 100_000n);
 * node.mine(1);
 * node.getTransaction(txid)?.status.confirmed; // true
 */
export class DevnetNode {
  /** Always `regtest`. */
  readonly network = "regtest" as const;
  private readonly emitter = new EventEmitter();

  constructor(readonly options: DevnetNodeOptions = {}) {
    void this.emitter;
  }

  // ---- events -------------------------------------------------------------------------

  /** Subscribe to `block`, `tx` or `removed`. */
  on<K extends keyof DevnetNodeEvents>(event: K, listener: (...args: DevnetNodeEvents[K]) => void): this {
    this.emitter.on(event, listener as (...args: unknown[]) => void);
    return this;
  }

  /** Unsubscribe a listener given to {@link on}. */
  off<K extends keyof DevnetNodeEvents>(event: K, listener: (...args: DevnetNodeEvents[K]) => void): this {
    this.emitter.off(event, listener as (...args: unknown[]) => void);
    return this;
  }

  // ---- chain queries ------------------------------------------------------------------

  /** Hash of the genesis block (the real regtest genesis). */
  genesisHash(): string {
    throw notYet();
  }

  /** Height of the tip. */
  tipHeight(): number {
    throw notYet();
  }

  /** Hash of the tip. */
  tipHash(): string {
    throw notYet();
  }

  /** Hash of the block at `height`, if the chain is that long. */
  blockHashAt(height: number): string | undefined {
    throw notYet(height);
  }

  /** A block with its txids and raw bytes. */
  getBlock(hash: string): BlockInfo | undefined {
    throw notYet(hash);
  }

  /** A block's header facts. */
  getBlockHeader(hash: string): BlockHeaderInfo | undefined {
    throw notYet(hash);
  }

  /** Median time past of the tip (what locktime checks for the next block use). */
  medianTimePast(): number {
    throw notYet();
  }

  /** A confirmed or mempool transaction. */
  getTransaction(txid: string): TxInfo | undefined {
    throw notYet(txid);
  }

  /** Status of a confirmed or mempool transaction. */
  getTxStatus(txid: string): TxStatus | undefined {
    throw notYet(txid);
  }

  /** Spend status of one output; `undefined` when the transaction or output does not exist. */
  getOutspend(txid: string, vout: number): OutspendInfo | undefined {
    throw notYet(txid, vout);
  }

  /** Spend status of every output of a transaction. */
  getOutspends(txid: string): OutspendInfo[] | undefined {
    throw notYet(txid);
  }

  /** bitcoind `gettxout`: an unspent output (mempool spends hide it when `includeMempool`). */
  getTxOut(txid: string, vout: number, includeMempool = true): TxOutLookup | undefined {
    throw notYet(txid, vout, includeMempool);
  }

  /** Unspent outputs paying `dest`, confirmed and (unless excluded) mempool ones, minus mempool spends. */
  utxosForScript(dest: Destination, opts: { includeMempool?: boolean } = {}): ScriptUtxo[] {
    throw notYet(dest, opts);
  }

  /** Transactions funding or spending `dest`: mempool ones first, then confirmed newest first (Esplora order). */
  historyForScript(dest: Destination): TxInfo[] {
    throw notYet(dest);
  }

  /** Esplora `chain_stats` and `mempool_stats` for `dest`. */
  scriptStats(dest: Destination): { chain: ScriptStats; mempool: ScriptStats } {
    throw notYet(dest);
  }

  // ---- mempool ------------------------------------------------------------------------

  /** Txids in the mempool, in entry order. */
  getRawMempool(): string[] {
    throw notYet();
  }

  /** A mempool entry with ancestor/descendant figures. */
  getMempoolEntry(txid: string): MempoolEntryInfo | undefined {
    throw notYet(txid);
  }

  /** Size, bytes and fees of the mempool. */
  mempoolInfo(): MempoolSummary {
    throw notYet();
  }

  /**
   * Validate and add a transaction to the mempool (bitcoind `sendrawtransaction`).
   * @param raw transaction bytes or hex
   * @param opts.maxFeeRateSatPerVb refuse above this feerate (`max-fee-exceeded`); default 10 000, 0 = no limit
   * @returns the txid (also when the transaction is already in the mempool)
   * @throws PolicyError with bitcoind's reject reason
   */
  submitTransaction(raw: Uint8Array | string, opts: { maxFeeRateSatPerVb?: number } = {}): string {
    throw notYet(raw, opts);
  }

  /** bitcoind `testmempoolaccept`: one result per transaction, nothing is added. Several transactions are tested as a package. */
  testMempoolAccept(raws: readonly (Uint8Array | string)[], opts: { maxFeeRateSatPerVb?: number } = {}): MempoolAcceptResult[] {
    throw notYet(raws, opts);
  }

  /**
   * bitcoind `submitpackage`: a child with its unconfirmed parents (sorted, child last); parents
   * under the minimum feerate are accepted when the package feerate pays for them.
   * @throws PolicyError for a package of the wrong shape (bitcoind throws there too)
   */
  submitPackage(raws: readonly (Uint8Array | string)[]): SubmitPackageResult {
    throw notYet(raws);
  }

  // ---- fees ---------------------------------------------------------------------------

  /** The configured estimates (target in blocks → sat/vB). */
  feeEstimates(): FeeEstimateTable {
    throw notYet();
  }

  /** Estimate for a confirmation target: the entry with the largest target ≤ `target` (the smallest one if none). */
  estimateFeeRate(target: number): number {
    throw notYet(target);
  }

  /** Replace the fee estimates. */
  setFeeEstimates(table: FeeEstimateTable): void {
    throw notYet(table);
  }

  // ---- controls -----------------------------------------------------------------------

  /** Mine `n` blocks taking mempool transactions by ancestor feerate; coinbase to `to` (default: the faucet wallet). */
  mine(n: number, to?: Destination): string[] {
    throw notYet(n, to);
  }

  /** Mine one block holding exactly these transactions (consensus-checked, policy bypassed; conflicting mempool transactions are dropped). */
  mineTransactions(raws: readonly (Uint8Array | string)[], to?: Destination): string {
    throw notYet(raws, to);
  }

  /** Advance the fake clock (the next block's time) by `seconds`. */
  advanceTime(seconds: number): void {
    throw notYet(seconds);
  }

  /** Pay `amountSat` to `to` from the internal faucet wallet; returns the mempool txid. */
  faucet(to: Destination, amountSat: bigint): string {
    throw notYet(to, amountSat);
  }

  /** The faucet wallet's address. */
  faucetAddress(): string {
    throw notYet();
  }

  /** Remove a transaction and its descendants from the mempool; returns the removed txids. */
  evict(txid: string): string[] {
    throw notYet(txid);
  }

  /**
   * Mine a block that double-spends an input of mempool transaction `txid`, so it and its
   * descendants are dropped. Pass `conflictRaw` (a signed transaction spending one of its
   * inputs) unless the input belongs to the faucet wallet, which then signs the conflict itself.
   */
  replaceWithConfirmedConflict(txid: string, conflictRaw?: Uint8Array | string): ConfirmedConflictResult {
    throw notYet(txid, conflictRaw);
  }

  /** Save the mempool (when a datadir is set) and detach listeners. */
  close(): void {
    this.emitter.removeAllListeners();
  }
}

function notYet(..._args: unknown[]): Error {
  return new Error("DevnetNode: not implemented yet");
}
