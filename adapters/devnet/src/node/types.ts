/**
 * Plain data types of the devnet node's public API. Every hash/txid string is in display
 * (RPC) byte order, lowercase hex; every amount is an integer number of sats (`bigint`);
 * every size is in bytes, weight units or virtual bytes as its name says.
 */

/** A transaction output reference. */
export interface OutPoint {
  readonly txid: string;
  readonly vout: number;
}

/** Where a transaction stands: in a block (with its position) or in the mempool. */
export interface TxStatus {
  readonly confirmed: boolean;
  /** Set when confirmed. */
  readonly blockHeight?: number;
  readonly blockHash?: string;
  /** Block header time (unix seconds). */
  readonly blockTime?: number;
  /** Index of the transaction inside its block (0 = coinbase). */
  readonly position?: number;
}

/** The coin an input spends, as needed by Esplora's `vin[].prevout`. */
export interface PrevOut {
  readonly amountSat: bigint;
  readonly scriptPubKey: Uint8Array;
  /** `bcrt…`/`m…`/`2…` address when the script has one. */
  readonly address?: string;
}

/** One input of a transaction. */
export interface TxInputInfo {
  /** Previous txid; all zero for a coinbase input. */
  readonly txid: string;
  readonly vout: number;
  readonly scriptSig: Uint8Array;
  readonly sequence: number;
  readonly witness: readonly Uint8Array[];
  readonly isCoinbase: boolean;
  /** The spent coin (absent for a coinbase input). */
  readonly prevout?: PrevOut;
}

/** One output of a transaction. */
export interface TxOutputInfo {
  readonly n: number;
  readonly amountSat: bigint;
  readonly scriptPubKey: Uint8Array;
  readonly address?: string;
  /** Script template, Esplora-style: `p2pkh`, `p2sh`, `v0_p2wpkh`, `v0_p2wsh`, `v1_p2tr`, `p2pk`, `multisig`, `op_return`, `anchor`, `unknown_witness`, `nonstandard`. */
  readonly scriptType: ScriptType;
}

/** Script templates the node recognises (names follow Esplora's `scriptpubkey_type`). */
export type ScriptType =
  | "p2pkh"
  | "p2sh"
  | "v0_p2wpkh"
  | "v0_p2wsh"
  | "v1_p2tr"
  | "p2pk"
  | "multisig"
  | "op_return"
  | "anchor"
  | "unknown_witness"
  | "nonstandard";

/** A transaction known to the node (confirmed or in the mempool). */
export interface TxInfo {
  readonly txid: string;
  readonly wtxid: string;
  /** Full serialization (with witness when it has one). */
  readonly raw: Uint8Array;
  readonly version: number;
  readonly locktime: number;
  readonly size: number;
  readonly weight: number;
  readonly vsize: number;
  /** Sum in − sum out; `undefined` for a coinbase. */
  readonly feeSat?: bigint;
  readonly isCoinbase: boolean;
  readonly vin: readonly TxInputInfo[];
  readonly vout: readonly TxOutputInfo[];
  readonly status: TxStatus;
}

/** Header-level facts of a block (bitcoind `getblockheader` / Esplora `/block/:hash`). */
export interface BlockHeaderInfo {
  readonly hash: string;
  readonly height: number;
  readonly version: number;
  /** All-zero for the genesis block. */
  readonly prevHash: string;
  readonly merkleRoot: string;
  /** Header time, unix seconds. */
  readonly time: number;
  /** Compact target as 8 hex digits, e.g. `207fffff`. */
  readonly bits: string;
  readonly nonce: number;
  readonly medianTimePast: number;
  readonly txCount: number;
  /** Serialized block size with witnesses. */
  readonly size: number;
  /** Serialized block size without witnesses. */
  readonly strippedSize: number;
  readonly weight: number;
  /** Cumulative chain work, 64 hex digits (bitcoind `chainwork`). */
  readonly chainWork: string;
  /** bitcoind's `difficulty` for these bits. */
  readonly difficulty: number;
  /** Hash of the next block when there is one. */
  readonly nextHash?: string;
}

/** A block with its transactions' ids and its raw bytes. */
export interface BlockInfo extends BlockHeaderInfo {
  readonly txids: readonly string[];
  /** Raw serialized block (header + transactions with witnesses). */
  readonly raw: Uint8Array;
  /** The 80-byte header. */
  readonly rawHeader: Uint8Array;
}

/** A mempool entry (bitcoind `getmempoolentry`). */
export interface MempoolEntryInfo {
  readonly txid: string;
  readonly wtxid: string;
  readonly feeSat: bigint;
  readonly vsize: number;
  readonly weight: number;
  /** When it entered, on the node's clock (unix seconds). */
  readonly time: number;
  /** Tip height when it entered. */
  readonly height: number;
  /** Counts include the transaction itself, as bitcoind's. */
  readonly ancestorCount: number;
  readonly ancestorVsize: number;
  readonly ancestorFeesSat: bigint;
  readonly descendantCount: number;
  readonly descendantVsize: number;
  readonly descendantFeesSat: bigint;
  /** In-mempool parents. */
  readonly depends: readonly string[];
  /** In-mempool children. */
  readonly spentBy: readonly string[];
  /** BIP-125 signal, own or inherited from an ancestor, as bitcoind reports it (replacement itself is full-RBF unless `fullRbf: false`). */
  readonly bip125Replaceable: boolean;
}

/** Whether an output is spent, and by what (Esplora `/tx/:txid/outspends`). */
export interface OutspendInfo {
  readonly spent: boolean;
  readonly txid?: string;
  readonly vin?: number;
  readonly status?: TxStatus;
}

/** An unspent output paying a script (confirmed or created in the mempool). */
export interface ScriptUtxo {
  readonly txid: string;
  readonly vout: number;
  readonly amountSat: bigint;
  readonly scriptPubKey: Uint8Array;
  readonly status: TxStatus;
}

/** Funding/spending totals of a script, Esplora's `chain_stats`/`mempool_stats`. */
export interface ScriptStats {
  readonly fundedTxoCount: number;
  readonly fundedTxoSumSat: bigint;
  readonly spentTxoCount: number;
  readonly spentTxoSumSat: bigint;
  readonly txCount: number;
}

/** bitcoind `gettxout`. */
export interface TxOutLookup {
  readonly bestBlock: string;
  /** 0 when the output is created by a mempool transaction. */
  readonly confirmations: number;
  readonly amountSat: bigint;
  readonly scriptPubKey: Uint8Array;
  readonly address?: string;
  readonly scriptType: ScriptType;
  readonly coinbase: boolean;
}

/** Fee part of a mempool-acceptance result. */
export interface AcceptFees {
  readonly baseSat: bigint;
  /** Feerate used for the decision (package feerate when evaluated as a package), sat/vB. */
  readonly effectiveFeerateSatPerVb: number;
  /** wtxids whose fees and sizes make up `effectiveFeerateSatPerVb`. */
  readonly effectiveIncludes: readonly string[];
}

/** One transaction's verdict from {@link DevnetNode.testMempoolAccept} (bitcoind `testmempoolaccept`). */
export interface MempoolAcceptResult {
  readonly txid: string;
  readonly wtxid: string;
  /** Absent when the transaction was not evaluated (another in the package failed first): bitcoind then omits `allowed` too. */
  readonly allowed?: boolean;
  readonly vsize?: number;
  readonly fees?: AcceptFees;
  /** bitcoind's `reject-reason`, e.g. `min relay fee not met`. */
  readonly rejectReason?: string;
  /** bitcoind's `reject-details`: reason plus debug text, e.g. `min relay fee not met, 0 < 110`. */
  readonly rejectDetails?: string;
  /** bitcoind's `package-error` when the package as a whole is malformed (`package-not-sorted`, …). */
  readonly packageError?: string;
}

/** One transaction's outcome in {@link DevnetNode.submitPackage}. */
export interface PackageTxResult {
  readonly txid: string;
  /** Set when a transaction with the same txid but another witness was already in the mempool. */
  readonly otherWtxid?: string;
  readonly vsize?: number;
  readonly fees?: AcceptFees;
  /** Reason plus debug text when this transaction was not accepted. */
  readonly error?: string;
}

/** bitcoind `submitpackage` result. */
export interface SubmitPackageResult {
  /** `success`, or the package-level failure (e.g. `transaction failed`). */
  readonly packageMsg: string;
  /** Keyed by wtxid. */
  readonly txResults: Readonly<Record<string, PackageTxResult>>;
  /** Txids evicted by replacement. */
  readonly replacedTransactions: readonly string[];
}

/** Fee estimates: confirmation target in blocks → sat/vB. */
export type FeeEstimateTable = Readonly<Record<number, number>>;

/** What {@link DevnetNode.replaceWithConfirmedConflict} did. */
export interface ConfirmedConflictResult {
  /** The mined block holding the conflicting spend. */
  readonly blockHash: string;
  readonly conflictTxid: string;
  /** Every mempool transaction dropped because of it (the target and its descendants). */
  readonly removed: readonly string[];
}

/**
 * Which Bitcoin Core a script failure in mempool acceptance reads like.
 *
 * - `core-master` (the default): Bitcoin Core 30 and later. `MemPoolAccept::PolicyScriptChecks`
 *   (`src/validation.cpp`) runs the inputs once, under the standard flags, and `CheckInputScripts`
 *   words the first failing input as reason `mempool-script-verify-flag-failed (<ScriptErrorString>)`
 *   with debug `input <n> of <txid> (wtxid <wtxid>), spending <prevout txid>:<prevout n>` (the debug text
 *   `CScriptCheck` builds). So a wrong ECDSA signature reads `Signature must be zero for failed CHECK(MULTI)SIG
 *   operation` (the standard NULLFAIL rule fires before the script ends false).
 * - `core-29`: the wording of Bitcoin Core 29 and earlier, which this devnet used before. After a
 *   failure under the standard flags the inputs run again under the mandatory (consensus) flags: a
 *   failure there is `mandatory-script-verify-flag-failed (<text of that second failure>)`, otherwise
 *   `non-mandatory-script-verify-flag (<text of the first failure>)`. No debug text is given.
 */
export type ScriptFailureWording = "core-master" | "core-29";

/** Options of a {@link DevnetNode}. */
export interface DevnetNodeOptions {
  /** Seed of the faucet key and of the chain (same seed + same calls → same blocks). Default `"tender-devnet"`. */
  readonly seed?: string | Uint8Array;
  /** Directory where blocks (and the mempool) are persisted; in memory only when absent. */
  readonly datadir?: string;
  /** Blocks mined to the faucet wallet on a fresh chain so its coins are mature. Default 110; with fewer than 100 the faucet has no mature coin. */
  readonly premineBlocks?: number;
  /** Header time of block 1, unix seconds. Default 1767225600 (2026-01-01). */
  readonly startTime?: number;
  /** Seconds the fake clock advances per block. Default 600. */
  readonly blockIntervalSec?: number;
  /** Minimum relay feerate, sat/vB. Default 1. */
  readonly minRelayFeeSatPerVb?: number;
  /** Replace mempool transactions whether or not they signal BIP-125 (bitcoind ≥ 28 default). Default true. */
  readonly fullRbf?: boolean;
  /** Initial fee estimates. Default `{1: 20, 3: 10, 6: 5, 144: 1}`. */
  readonly feeEstimates?: FeeEstimateTable;
  /** How mempool acceptance words a script failure (see {@link ScriptFailureWording}). Default `core-master`; blocks are not affected. */
  readonly scriptFailureWording?: ScriptFailureWording;
}

/** Events the node emits for its faces. */
export interface DevnetNodeEvents {
  /** A block was connected to the tip. */
  block: [block: BlockHeaderInfo];
  /** A transaction entered the mempool. */
  tx: [txid: string];
  /** Transactions left the mempool without being mined (eviction, replacement, conflict). */
  removed: [txids: readonly string[], reason: "evicted" | "replaced" | "conflict"];
}

/** Where coins go: a regtest address or a raw scriptPubKey. */
export type Destination = string | Uint8Array;
