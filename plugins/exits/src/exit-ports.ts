/**
 * What the exits plugin needs from the rest of the daemon, as small interfaces ("ports"). The
 * plugin wires them to the chain source, the on-chain wallet, the Ark rail's VTXO store, locks
 * and keys, and the movement store; the unit tests wire fakes. Amounts are integer sats
 * (`bigint`); txids and block hashes are display-order hex.
 */
import type { Vtxo } from "@tender/ark-protocol";
import type { BlockRef, OutputSpend, TxStatus } from "@tender/core";

/** The chain, as exits read and write it. */
export interface ExitChain {
  tip(): Promise<BlockRef>;
  /** Hash of the best-chain block at `height`, `null` above the tip. */
  blockHashAt(height: number): Promise<string | null>;
  /** `null` when neither mempool nor chain has it. */
  txStatus(txid: string): Promise<TxStatus | null>;
  /** The transaction's hex, `null` when unknown. */
  txHex(txid: string): Promise<string | null>;
  outspend(txid: string, vout: number): Promise<OutputSpend>;
  /** Throws `ChainSourceRejectedError` when refused. */
  broadcast(hex: string): Promise<void>;
  /** Submits `[parent, child]` as one package; throws `ChainSourceRejectedError` when refused. */
  broadcastPackage(hexes: readonly string[]): Promise<void>;
}

/** A signed transaction built with the on-chain wallet's coins. */
export interface WalletSignedTx {
  readonly txid: string;
  readonly hex: string;
  readonly feeSat: bigint;
  readonly vsize: number;
}

/** What a CPFP child must pay for. */
export interface ChildRequest {
  /** The exit tx and its P2A anchor. */
  readonly parentTxid: string;
  readonly anchorVout: number;
  readonly anchorValueSat: bigint;
  readonly parentVsize: number;
  /** Target package fee rate. */
  readonly satPerKvb: bigint;
  /** A child of this wallet being replaced, and the least fee the replacement pays. */
  readonly replaces?: string;
  readonly minFeeSat?: bigint;
}

/** The on-chain wallet, as exits use it: CPFP funding, fee rates, the claim's record. */
export interface ExitWallet {
  /** Full sync with the chain source (throws when it fails). */
  sync(): Promise<void>;
  /** Current fast (1 block) and regular (3 blocks) rates, sat/kvB. */
  feeRates(): Promise<{ fastSatPerKvb: bigint; regularSatPerKvb: bigint }>;
  /** Builds, signs and holds (coins reserved, not broadcast) a v3 child spending the anchor plus confirmed coins. */
  fundChild(req: ChildRequest): Promise<WalletSignedTx>;
  /** The held child (or claim) was broadcast. */
  noteBroadcast(txid: string): Promise<void>;
  /** The held child will never be broadcast: its coins are free again. */
  release(txid: string): Promise<void>;
  /** A broadcast child was replaced by a higher-fee one. */
  markReplaced(txid: string): Promise<void>;
  /** CPFP children the wallet holds (funded, never noted as broadcast). */
  heldChildren(): Promise<string[]>;
  /** Values of the confirmed coins a child may spend. */
  confirmedCoins(): Promise<bigint[]>;
  /** The output script of a bitcoin address on the wallet's network; throws barkd's 400 for a bad one. */
  destinationScript(address: string): Promise<Uint8Array>;
  /** A P2TR script of the wallet's network standing in for an unknown destination. */
  placeholderScript(): Promise<Uint8Array>;
  /** Whether `script` pays this wallet. */
  ownsScript(script: Uint8Array): Promise<boolean>;
  /** Holds a claim paying this wallet, so the wallet lists it once {@link noteBroadcast} is called. */
  holdClaim(tx: WalletSignedTx): Promise<void>;
  /** The address of `script` on the wallet's network, or `undefined` when it has none. */
  addressOf(script: Uint8Array): Promise<string | undefined>;
  /** The output script of a fresh address of this wallet (revealed and persisted). */
  freshScript(): Promise<Uint8Array>;
}

/** A wallet VTXO as exits see it. */
export interface ExitVtxoView {
  readonly id: string;
  readonly vtxo: Vtxo;
  readonly state: "spendable" | "locked" | "spent" | "exited";
  readonly lockedBy: string | null;
}

/** The Ark rail's VTXOs and their shared locks. */
export interface ExitVtxos {
  get(id: string): Promise<ExitVtxoView | undefined>;
  /** Spendable and locked VTXOs, oldest first. */
  listUnspent(): Promise<ExitVtxoView[]>;
  /** Locks `id` for `lockId` when it is spendable (or already held by it); answers whether the lock is held. */
  tryLock(id: string, lockId: string): Promise<boolean>;
  /** Returns what `lockId` holds to spendable. */
  release(lockId: string): Promise<void>;
  markExited(id: string): Promise<void>;
}

/** The wallet's VTXO keys. */
export interface ExitKeys {
  /** The secret key of one of the wallet's VTXO keys, `undefined` when the key is not the wallet's. */
  secretKeyFor(pubkey: Uint8Array): Promise<Uint8Array | undefined>;
}

/** The exit's `bark.exit` movement. */
export interface ExitMovements {
  create(m: { vtxoId: string; amountSat: bigint; destination: { type: "bitcoin" | "output-script"; value: string } }): Promise<number>;
  finish(id: number, status: "successful" | "canceled"): Promise<void>;
}

/** Everything the exits talk to. */
export interface ExitPorts {
  readonly chain: ExitChain;
  readonly wallet: ExitWallet;
  readonly vtxos: ExitVtxos;
  readonly keys: ExitKeys;
  readonly movements: ExitMovements;
  /** Runs `fn` so that every store write inside it commits together. */
  readonly atomically: <T>(fn: () => Promise<T>) => Promise<T>;
}
