import { EventEmitter } from "node:events";
import { MempoolAcceptor, DEFAULT_POLICY, type ChainView, type PolicySettings } from "../policy/accept.js";
import { FeeEstimates } from "../policy/fee-estimates.js";
import { Mempool, type MempoolEntry } from "../policy/mempool.js";
import { submitPackage as runPackage, testAccept } from "../policy/package.js";
import { PolicyError } from "../policy/policy-error.js";
import { scriptOf } from "./address.js";
import { assembleBlock, selectTransactions } from "./block-assembler.js";
import { BlockStore } from "./block-store.js";
import { validateBlock } from "./block-validator.js";
import { encodeHeader } from "./block.js";
import { displayHex } from "../consensus/bytes.js";
import { asBytes, sha256d } from "./bytes.js";
import { ChainState, type StoredBlock } from "./chain-state.js";
import { regtestGenesisBlock } from "./coinbase.js";
import { decodeTx, encodeTx, type Tx } from "./consensus-port.js";
import { FaucetWallet } from "./faucet-wallet.js";
import { ControlError, InvalidInputError } from "./node-errors.js";
import { headerInfo, outspend, outspends, txOut } from "./chain-views.js";
import { faucetConflict, withListedFees } from "./listed-blocks.js";
import { historyForScript, statsForScript, utxosForScript } from "./script-index.js";
import { confirmedStatus, confirmedTxInfo, mempoolEntryInfo, mempoolTxInfo } from "./tx-info.js";
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
export { REGTEST_NETWORK, scriptOf, addressOf, classifyScript } from "./address.js";

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
  private readonly chain = new ChainState();
  private readonly mempool = new Mempool();
  private readonly policy: PolicySettings;
  private readonly acceptor: MempoolAcceptor;
  private readonly fees: FeeEstimates;
  private readonly faucetWallet: FaucetWallet;
  private readonly store: BlockStore | undefined;
  private readonly interval: number;
  private clock: number;
  private mempoolSaveScheduled: NodeJS.Immediate | undefined;

  constructor(readonly options: DevnetNodeOptions = {}) {
    const seed = typeof options.seed === "string" || options.seed === undefined ? new TextEncoder().encode(options.seed ?? "tender-devnet") : options.seed;
    this.faucetWallet = new FaucetWallet(seed);
    this.policy = {
      ...DEFAULT_POLICY,
      minRelaySatPerVb: options.minRelayFeeSatPerVb ?? 1,
      fullRbf: options.fullRbf ?? true,
      scriptFailureWording: options.scriptFailureWording ?? DEFAULT_POLICY.scriptFailureWording,
    };
    this.acceptor = new MempoolAcceptor(this.chainView(), this.mempool, this.policy);
    this.fees = new FeeEstimates(options.feeEstimates);
    this.interval = options.blockIntervalSec ?? 600;
    this.store = options.datadir ? new BlockStore(options.datadir) : undefined;
    const saved = this.store?.readBlocks() ?? [];
    if (saved.length > 0) {
      for (const raw of saved) this.chain.connect(validateBlock(this.chain, raw, { skipScripts: true }));
      const settings = this.store!.readSettings();
      this.clock = Math.max(settings?.clock ?? 0, this.chain.tip!.header.time);
      if (settings?.feeEstimates) this.fees.set(settings.feeEstimates);
      this.reloadMempool(this.store!.readMempool());
    } else {
      this.connectOwnBlock(regtestGenesisBlock());
      this.clock = (options.startTime ?? 1_767_225_600) - this.interval;
      const premine = options.premineBlocks ?? 110;
      for (let i = 0; i < premine; i++) this.mineOne(this.faucetWallet.script, []);
    }
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
    return this.chain.blockAt(0)!.hash;
  }

  /** Height of the tip. */
  tipHeight(): number {
    return this.chain.height;
  }

  /** Hash of the tip. */
  tipHash(): string {
    return this.chain.tip!.hash;
  }

  /** Hash of the block at `height`, if the chain is that long. */
  blockHashAt(height: number): string | undefined {
    return Number.isInteger(height) && height >= 0 ? this.chain.blockAt(height)?.hash : undefined;
  }

  /** A block with its txids and raw bytes. */
  getBlock(hash: string): BlockInfo | undefined {
    const b = this.chain.block(hash);
    if (!b) return undefined;
    return { ...this.headerInfo(b), txids: b.txs.map((t) => t.txid), raw: b.raw, rawHeader: encodeHeader(b.header) };
  }

  /** A block's header facts. */
  getBlockHeader(hash: string): BlockHeaderInfo | undefined {
    const b = this.chain.block(hash);
    return b ? this.headerInfo(b) : undefined;
  }

  /** Median time past of the tip (what locktime checks for the next block use). */
  medianTimePast(): number {
    return this.chain.tip!.medianTimePast;
  }

  /** A confirmed or mempool transaction. */
  getTransaction(txid: string): TxInfo | undefined {
    const c = this.chain.tx(txid);
    if (c) return confirmedTxInfo(this.chain, c);
    const e = this.mempool.get(txid);
    return e ? mempoolTxInfo(e) : undefined;
  }

  /** Status of a confirmed or mempool transaction. */
  getTxStatus(txid: string): TxStatus | undefined {
    const c = this.chain.tx(txid);
    if (c) return confirmedStatus(this.chain, c);
    return this.mempool.has(txid) ? { confirmed: false } : undefined;
  }

  /** Spend status of one output; `undefined` when the transaction or output does not exist. */
  getOutspend(txid: string, vout: number): OutspendInfo | undefined {
    return outspend(this.chain, this.mempool, txid, vout);
  }

  /** Spend status of every output of a transaction. */
  getOutspends(txid: string): OutspendInfo[] | undefined {
    return outspends(this.chain, this.mempool, txid);
  }

  /** bitcoind `gettxout`: an unspent output (mempool spends hide it when `includeMempool`). */
  getTxOut(txid: string, vout: number, includeMempool = true): TxOutLookup | undefined {
    return txOut(this.chain, this.mempool, txid, vout, includeMempool);
  }

  /** Unspent outputs paying `dest`, confirmed and (unless excluded) mempool ones, minus mempool spends. */
  utxosForScript(dest: Destination, opts: { includeMempool?: boolean } = {}): ScriptUtxo[] {
    return utxosForScript(this.chain, this.mempool, scriptOf(dest), opts.includeMempool ?? true);
  }

  /** Transactions funding or spending `dest`: mempool ones first, then confirmed newest first (Esplora order). */
  historyForScript(dest: Destination): TxInfo[] {
    return historyForScript(this.chain, this.mempool, scriptOf(dest));
  }

  /** Esplora `chain_stats` and `mempool_stats` for `dest`. */
  scriptStats(dest: Destination): { chain: ScriptStats; mempool: ScriptStats } {
    return statsForScript(this.chain, this.mempool, scriptOf(dest));
  }

  // ---- mempool ------------------------------------------------------------------------

  /** Txids in the mempool, in entry order. */
  getRawMempool(): string[] {
    return this.mempool.all().map((e) => e.txid);
  }

  /** A mempool entry with ancestor/descendant figures. */
  getMempoolEntry(txid: string): MempoolEntryInfo | undefined {
    const e = this.mempool.get(txid);
    return e ? mempoolEntryInfo(this.mempool, e, this.acceptor.signalsRbf(txid)) : undefined;
  }

  /** Size, bytes and fees of the mempool. */
  mempoolInfo(): MempoolSummary {
    const all = this.mempool.all();
    return {
      size: all.length,
      bytes: all.reduce((n, e) => n + e.vsize, 0),
      totalFeeSat: all.reduce((n, e) => n + e.fee, 0n),
      minRelayFeeSatPerVb: this.policy.minRelaySatPerVb,
    };
  }

  /**
   * Validate and add a transaction to the mempool (bitcoind `sendrawtransaction`).
   * @param raw transaction bytes or hex
   * @param opts.maxFeeRateSatPerVb refuse above this feerate (`max-fee-exceeded`); default 10 000, 0 = no limit
   * @returns the txid (also when the transaction is already in the mempool)
   * @throws PolicyError with bitcoind's reject reason
   */
  submitTransaction(raw: Uint8Array | string, opts: { maxFeeRateSatPerVb?: number } = {}): string {
    const tx = this.decode(raw);
    return this.acceptOne(tx, opts.maxFeeRateSatPerVb ?? 10_000);
  }

  /** bitcoind `testmempoolaccept`: one result per transaction, nothing is added. Several transactions are tested as a package. */
  testMempoolAccept(raws: readonly (Uint8Array | string)[], opts: { maxFeeRateSatPerVb?: number } = {}): MempoolAcceptResult[] {
    const txs = raws.map((r) => this.decode(r));
    return testAccept(this.acceptor, this.mempool, txs, opts.maxFeeRateSatPerVb ?? 10_000);
  }

  /**
   * bitcoind `submitpackage`: a child with its unconfirmed parents (sorted, child last); parents
   * under the minimum feerate are accepted when the package feerate pays for them.
   * @throws PolicyError when it is not a child with its parents (bitcoind throws there too); other malformed packages come back in `packageMsg`
   */
  submitPackage(raws: readonly (Uint8Array | string)[]): SubmitPackageResult {
    const txs = raws.map((r) => this.decode(r));
    if (txs.length === 0) throw new InvalidInputError("package is empty");
    const outcome = runPackage(this.acceptor, this.mempool, txs, this.policy);
    this.announce(outcome.added, outcome.removed);
    return outcome.result;
  }

  // ---- fees ---------------------------------------------------------------------------

  /** The configured estimates (target in blocks → sat/vB). */
  feeEstimates(): FeeEstimateTable {
    return this.fees.get();
  }

  /** Estimate for a confirmation target: the entry with the largest target ≤ `target` (the smallest one if none). */
  estimateFeeRate(target: number): number {
    return this.fees.estimate(target);
  }

  /** Replace the fee estimates. */
  setFeeEstimates(table: FeeEstimateTable): void {
    this.fees.set(table);
    this.saveSettings();
  }

  // ---- controls -----------------------------------------------------------------------

  /** Mine `n` blocks taking mempool transactions by ancestor feerate; coinbase to `to` (default: the faucet wallet). */
  mine(n: number, to?: Destination): string[] {
    if (!Number.isInteger(n) || n < 0 || n > 10_000) throw new InvalidInputError(`cannot mine ${n} blocks`);
    const payout = to === undefined ? this.faucetWallet.script : scriptOf(to);
    const hashes: string[] = [];
    for (let i = 0; i < n; i++) {
      const picked = selectTransactions(this.mempool);
      hashes.push(this.mineOne(payout, picked.map((e) => ({ tx: e.tx, fee: e.fee }))));
    }
    return hashes;
  }

  /** Mine one block holding exactly these transactions (consensus-checked, policy bypassed; conflicting mempool transactions are dropped). */
  mineTransactions(raws: readonly (Uint8Array | string)[], to?: Destination): string {
    const txs = raws.map((r) => this.decode(r));
    const payout = to === undefined ? this.faucetWallet.script : scriptOf(to);
    const withFees = withListedFees(this.chain, txs);
    return this.mineOne(payout, withFees);
  }

  /** Advance the fake clock (the next block's time) by `seconds`. */
  advanceTime(seconds: number): void {
    if (!Number.isInteger(seconds) || seconds < 0) throw new InvalidInputError(`cannot advance time by ${seconds}`);
    this.clock += seconds;
    this.saveSettings();
  }

  /** Pay `amountSat` to `to` from the internal faucet wallet; returns the mempool txid. */
  faucet(to: Destination, amountSat: bigint): string {
    const script = scriptOf(to);
    const raw = this.faucetWallet.pay(this.faucetWallet.spendable(this.chain, this.mempool), script, amountSat);
    return this.submitTransaction(raw);
  }

  /** The faucet wallet's address. */
  faucetAddress(): string {
    return this.faucetWallet.address;
  }

  /** Remove a transaction and its descendants from the mempool; returns the removed txids. */
  evict(txid: string): string[] {
    if (!this.mempool.has(txid)) throw new ControlError(`transaction ${txid} is not in the mempool`);
    const removed = this.mempool.removeWithDescendants(txid).map((e) => e.txid);
    this.saveMempool();
    this.emitter.emit("removed", removed, "evicted");
    return removed;
  }

  /**
   * Mine a block that double-spends an input of mempool transaction `txid`, so it and its
   * descendants are dropped. Pass `conflictRaw` (a signed transaction spending one of its
   * inputs) unless the input belongs to the faucet wallet, which then signs the conflict itself.
   */
  replaceWithConfirmedConflict(txid: string, conflictRaw?: Uint8Array | string): ConfirmedConflictResult {
    const target = this.mempool.get(txid);
    if (!target) throw new ControlError(`transaction ${txid} is not in the mempool`);
    const before = new Set(this.mempool.all().map((e) => e.txid));
    let conflict: Tx;
    if (conflictRaw !== undefined) {
      conflict = this.decode(conflictRaw);
      const theirs = new Set(target.spent.map((c) => `${c.txid}:${c.vout}`));
      if (!conflict.inputs.some((i) => theirs.has(`${displayHex(i.prevTxid)}:${i.prevVout}`))) {
        throw new ControlError(`the given transaction does not spend any input of ${txid}`);
      }
    } else {
      conflict = faucetConflict(this.mempool, this.faucetWallet, txid);
    }
    const blockHash = this.mineTransactions([encodeTx(conflict, true)]);
    const conflictTxid = displayHex(sha256d(encodeTx(conflict, false)));
    const removed = [...before].filter((t) => t !== conflictTxid && !this.mempool.has(t) && this.chain.tx(t) === undefined);
    return { blockHash, conflictTxid, removed };
  }

  /** Save the mempool (when a datadir is set) and detach listeners. */
  close(): void {
    if (this.store) this.flushMempool();
    this.saveSettings();
    this.emitter.removeAllListeners();
  }

  // ---- internals ----------------------------------------------------------------------

  private chainView(): ChainView {
    const chain = this.chain;
    return {
      get height() {
        return chain.height;
      },
      get tipMtp() {
        return chain.tip!.medianTimePast;
      },
      mtpAt: (h) => chain.medianTimePastAt(h),
      coin: (t, v) => chain.coin(t, v),
      isConfirmed: (t) => chain.tx(t) !== undefined,
      now: () => this.clock,
    };
  }

  /**
   * Re-admits a saved mempool through policy, in saved order (parents first). The fee floor is
   * not re-checked: parents carried by a package feerate were valid together and stay so.
   * A transaction that no longer fits (e.g. conflicts with a block) is dropped.
   */
  private reloadMempool(raws: readonly Uint8Array[]): void {
    for (const raw of raws) {
      let tx: Tx;
      try {
        tx = decodeTx(raw);
      } catch {
        continue;
      }
      const verdict = this.acceptor.evaluate(tx, { bypassFeeCheck: true, allowReplacement: false });
      if (verdict.ok) this.acceptor.commit(verdict);
    }
  }

  private decode(raw: Uint8Array | string): Tx {
    try {
      return decodeTx(asBytes(raw));
    } catch (err) {
      if (err instanceof InvalidInputError) throw err;
      throw new InvalidInputError(`TX decode failed: ${err instanceof Error ? err.message : String(err)}`, { cause: err });
    }
  }

  private acceptOne(tx: Tx, maxFeeRateSatPerVb: number): string {
    const verdict = this.acceptor.evaluate(tx, { allowReplacement: true });
    if (!verdict.ok) {
      if (verdict.reason === "txn-already-in-mempool") return verdict.txid;
      throw new PolicyError(verdict.reason, verdict.debug, verdict.txid);
    }
    if (maxFeeRateSatPerVb > 0 && Number(verdict.entry.fee) / verdict.entry.vsize > maxFeeRateSatPerVb) {
      throw new PolicyError("max-fee-exceeded", "Fee exceeds maximum configured by user (e.g. -maxtxfee, maxfeerate)", verdict.entry.txid);
    }
    const removed = this.acceptor.commit(verdict);
    this.announce([verdict.entry], removed);
    return verdict.entry.txid;
  }

  private announce(added: readonly MempoolEntry[], removed: readonly MempoolEntry[]): void {
    if (added.length === 0 && removed.length === 0) return;
    this.saveMempool();
    if (removed.length > 0) this.emitter.emit("removed", removed.map((e) => e.txid), "replaced");
    for (const e of added) this.emitter.emit("tx", e.txid);
  }

  private mineOne(payout: Uint8Array, txs: readonly { tx: Tx; fee: bigint }[]): string {
    const tip = this.chain.tip!;
    const time = Math.max(this.clock + this.interval, tip.medianTimePast + 1);
    const raw = assembleBlock({ prevHash: tip.hash, height: this.chain.height + 1, time, payout, txs });
    const hash = this.connectOwnBlock(raw);
    this.clock = time;
    this.saveSettings();
    return hash;
  }

  /** Validates and connects a block, persists it, and brings the mempool in line with it. */
  private connectOwnBlock(raw: Uint8Array): string {
    const block = this.chain.connect(validateBlock(this.chain, raw));
    this.store?.appendBlock(raw);
    const conflicted: string[] = [];
    for (const ctx of block.txs) {
      if (this.mempool.has(ctx.txid)) this.mempool.remove(ctx.txid);
      for (const input of ctx.tx.inputs) {
        const spender = this.mempool.spender(displayHex(input.prevTxid), input.prevVout);
        if (spender && spender.txid !== ctx.txid) conflicted.push(...this.mempool.removeWithDescendants(spender.txid).map((e) => e.txid));
      }
    }
    if (block.height > 0) this.saveMempool();
    this.emitter.emit("block", this.headerInfo(block));
    if (conflicted.length > 0) this.emitter.emit("removed", conflicted, "conflict");
    return block.hash;
  }

  private headerInfo(b: StoredBlock): BlockHeaderInfo {
    return headerInfo(this.chain, b);
  }

  /** Schedules a mempool save (coalesced: one write per turn of the event loop, not one per change). */
  private saveMempool(): void {
    if (!this.store || this.mempoolSaveScheduled) return;
    this.mempoolSaveScheduled = setImmediate(() => this.flushMempool());
  }

  private flushMempool(): void {
    if (this.mempoolSaveScheduled) clearImmediate(this.mempoolSaveScheduled);
    this.mempoolSaveScheduled = undefined;
    this.store?.writeMempool(this.mempool.all().map((e) => e.raw));
  }

  private saveSettings(): void {
    this.store?.writeSettings({ clock: this.clock, feeEstimates: this.fees.get() });
  }
}
