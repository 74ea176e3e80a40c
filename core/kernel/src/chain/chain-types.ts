/**
 * Plain data returned by a {@link ChainSource}. Hashes and txids are lowercase hex in display
 * (byte-reversed) order, as bitcoind and block explorers print them. Amounts are integer sats
 * as `bigint`; fee rates say their unit in their name.
 */

/** A block identified by its height and hash on the source's best chain. */
export interface BlockRef {
  readonly height: number;
  readonly hash: string;
}

/** A block header, parsed, with its 80-byte serialization. */
export interface BlockHeader extends BlockRef {
  readonly version: number;
  /** `null` only for the genesis block. */
  readonly previousBlockHash: string | null;
  readonly merkleRoot: string;
  /** Header timestamp, seconds since the epoch. */
  readonly time: number;
  /** Compact target as a number (e.g. `0x207fffff` on regtest). */
  readonly bits: number;
  readonly nonce: number;
  /** The serialized header, 160 hex characters. */
  readonly headerHex: string;
}

/** Where a transaction stands: in the mempool, or confirmed in a block of the best chain. */
export type TxStatus =
  | { readonly confirmed: false }
  | { readonly confirmed: true; readonly block: BlockRef; readonly blockTime: number };

/** A transaction as the source knows it. */
export interface ChainTx {
  readonly txid: string;
  readonly hex: string;
  readonly status: TxStatus;
}

/** Whether an output is spent, and if so by which input of which transaction. */
export type OutputSpend =
  | { readonly spent: false }
  | { readonly spent: true; readonly txid: string; readonly vin: number; readonly status: TxStatus };

/** A script to query: an address, or a raw scriptPubKey in hex. */
export type ScriptQuery = { readonly address: string } | { readonly scriptPubKeyHex: string };

/** An unspent output paying a queried script (mempool outputs included, unconfirmed). */
export interface ScriptUtxo {
  readonly txid: string;
  readonly vout: number;
  readonly valueSat: bigint;
  readonly status: TxStatus;
}

/** A transaction that pays to or spends from a queried script. */
export interface ScriptTx {
  readonly txid: string;
  readonly status: TxStatus;
}

/** Fee-rate estimates in sat/vB keyed by confirmation target in blocks. */
export type FeeEstimates = ReadonlyMap<number, number>;

/** A successful package submission. */
export interface PackageBroadcastResult {
  /** Txids of the package, in the order given. */
  readonly txids: readonly string[];
}

/** Bitcoin networks a source can be on. */
export type ChainNetwork = "mainnet" | "testnet" | "testnet4" | "signet" | "regtest";
