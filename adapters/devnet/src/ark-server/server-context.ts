/**
 * What every part of the reference server shares: its rules, keys, database, chain and locks.
 */
import type { Logger } from "@tender/core";
import type { MempoolAcceptResult, ScriptUtxo, TxInfo, TxOutLookup, TxStatus } from "../node/devnet-node.js";
import type { VtxoFluxLocks } from "./async-lock.js";
import type { ArkServerConfig } from "./server-config.js";
import type { ServerKeys } from "./server-keys.js";
import type { ServerSettings } from "./server-settings.js";
import type { WalletCoinHolds } from "./wallet-coin-holds.js";
import type { ArkServerStore } from "./server-store.js";

/** A confirmed or mempool transaction as the server reads it. */
export type ServerTx = Pick<TxInfo, "txid" | "raw" | "status">;
/** An unspent output as `gettxout` gives it. */
export type ServerTxOut = Pick<TxOutLookup, "confirmations" | "amountSat" | "scriptPubKey">;
/** One transaction's `testmempoolaccept` verdict. */
export type ServerMempoolAccept = Pick<MempoolAcceptResult, "txid" | "allowed" | "rejectReason" | "rejectDetails">;

/**
 * The chain calls the server makes — the facts bitcoind RPC gives (`getblockcount`,
 * `getrawtransaction`, `gettxout`, `listunspent`, `estimatesmartfee`, `sendrawtransaction`,
 * `testmempoolaccept`). Every call is asynchronous: the devnet answers in process
 * (`devnetServerChain`), a bitcoind over JSON-RPC (`bitcoindServerChain`).
 */
export interface ServerChain {
  /** Height of the best block. */
  tipHeight(): Promise<number>;
  /** A confirmed or mempool transaction; `undefined` when the node does not know it. */
  getTransaction(txid: string): Promise<ServerTx | undefined>;
  /** Status of a confirmed or mempool transaction; `undefined` when the node does not know it. */
  getTxStatus(txid: string): Promise<TxStatus | undefined>;
  /** An unspent output (mempool spends hide it when `includeMempool`); `undefined` when spent or unknown. */
  getTxOut(txid: string, vout: number, includeMempool?: boolean): Promise<ServerTxOut | undefined>;
  /**
   * Unspent outputs paying `script`, confirmed and mempool ones, minus mempool spends. Only
   * scripts handed to {@link watchScript} are guaranteed to be answered (a bitcoind only knows
   * the coins of its wallet).
   */
  utxosForScript(script: Uint8Array): Promise<ScriptUtxo[]>;
  /**
   * Makes the chain track the coins of `script` (the server wallet's). Called once per start
   * before any {@link utxosForScript} of it; a no-op where every script is indexed anyway.
   */
  watchScript(script: Uint8Array): Promise<void>;
  /** Fee rate in sat/vB for confirmation within `target` blocks; throws when the node has no estimate. */
  estimateFeeRate(target: number): Promise<number>;
  /** `sendrawtransaction`: the txid, or a throw with the node's reject reason. */
  submitTransaction(raw: Uint8Array): Promise<string>;
  /** `testmempoolaccept`: one verdict per transaction, nothing is added. */
  testMempoolAccept(raws: readonly Uint8Array[]): Promise<ServerMempoolAccept[]>;
  /** Pays `amountSat` to `address` from a test faucet (the devnet's); absent on a real node. */
  readonly faucet?: (address: string, amountSat: bigint) => Promise<string>;
}

/** Shared state of one server instance. */
export interface ServerContext {
  /** The settings in force: `settings.current`, read anew on every use (they change at run time). */
  readonly config: ArkServerConfig;
  /** The holder of the settings (the devnet's controls change them). */
  readonly settings: ServerSettings;
  readonly keys: ServerKeys;
  readonly store: ArkServerStore;
  readonly chain: ServerChain;
  readonly locks: VtxoFluxLocks;
  /** Server-wallet coins held by offboards (round funding never spends them). */
  readonly walletCoinHolds: WalletCoinHolds;
  readonly logger: Logger;
  /** Unix seconds (injectable for mailbox-authorization tests). */
  readonly nowSecs: () => bigint;
}
