import { defineWalletService, type ServiceRef } from "../services/service-ref.js";
import type {
  BlockHeader,
  BlockRef,
  ChainNetwork,
  ChainTx,
  FeeEstimates,
  OutputSpend,
  PackageBroadcastResult,
  ScriptQuery,
  ScriptTx,
  ScriptUtxo,
  TxStatus,
} from "./chain-types.js";

/**
 * The kernel's view of a bitcoin chain backend (Esplora, bitcoind RPC, the devnet). Plugins
 * depend on this interface only; adapters implement it.
 *
 * Conventions shared by every implementation:
 * - "not found" is a value (`null`), never an error;
 * - a backend that cannot be reached (connection refused, timeout, HTTP 5xx) is retried with
 *   backoff and then surfaces as {@link ChainSourceUnavailableError};
 * - a transaction the backend refuses surfaces as {@link ChainSourceRejectedError} with the
 *   backend's reason, and is never retried;
 * - anything else unexpected in a response is a {@link ChainSourceProtocolError}.
 */
export interface ChainSource {
  /** Human-readable identity of the backend (its URL without credentials). */
  readonly label: string;

  /** The network the backend runs on. */
  getNetwork(): Promise<ChainNetwork>;
  /** Height and hash of the best block. */
  getTip(): Promise<BlockRef>;
  /** Hash of the best-chain block at `height`, or `null` above the tip. */
  getBlockHash(height: number): Promise<string | null>;
  /** Header of the block `hash`, or `null` if unknown. */
  getBlockHeader(hash: string): Promise<BlockHeader | null>;
  /** Txids of the block `hash` in block order (coinbase first), or `null` if unknown. */
  getBlockTxids(hash: string): Promise<string[] | null>;
  /** The serialized block in hex, or `null` if unknown. */
  getRawBlock(hash: string): Promise<string | null>;

  /** A transaction (mempool or confirmed) with its status, or `null` if unknown. */
  getTx(txid: string): Promise<ChainTx | null>;
  /** Status of a transaction, or `null` if it is neither in the mempool nor confirmed. */
  getTxStatus(txid: string): Promise<TxStatus | null>;
  /** Whether the transaction is currently in the backend's mempool. */
  isInMempool(txid: string): Promise<boolean>;
  /** Spend status of output `vout` of `txid` (mempool spends count as spent). */
  getOutspend(txid: string, vout: number): Promise<OutputSpend>;
  /** Spend status of every output of `txid`, by output index; `null` if the tx is unknown. */
  getOutspends(txid: string): Promise<OutputSpend[] | null>;

  /** Unspent outputs paying the script, mempool ones included. */
  getScriptUtxos(query: ScriptQuery): Promise<ScriptUtxo[]>;
  /** Transactions paying to or spending from the script: mempool first, then newest blocks first. */
  getScriptHistory(query: ScriptQuery): Promise<ScriptTx[]>;

  /** Fee-rate estimates in sat/vB for the given confirmation targets (all the backend has if omitted). */
  getFeeEstimates(targets?: readonly number[]): Promise<FeeEstimates>;

  /** Submits one signed transaction; returns its txid. */
  broadcast(txHex: string): Promise<string>;
  /** Submits a package (parents first, the fee-paying child last) as one unit. */
  broadcastPackage(txHexes: readonly string[]): Promise<PackageBroadcastResult>;
}

/**
 * The loaded wallet's chain source, built from its configuration when the wallet loads and
 * disposed of when it is unloaded. The chain plugin provides it; every rail that reads or writes
 * the chain consumes it (`ctx.walletService(ChainSourceService)`).
 */
export const ChainSourceService: ServiceRef<ChainSource> = defineWalletService<ChainSource>("core.chain-source");
