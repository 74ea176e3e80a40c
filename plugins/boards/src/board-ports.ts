/**
 * What the board action needs from the rest of the daemon, as small interfaces ("ports"). The
 * plugin wires them to the Ark rail's services, the on-chain wallet, the chain source and the
 * movement store; the unit tests wire fakes. Amounts are integer sats (`bigint`); txids are
 * display-order hex.
 */
import type { BoardFeeParams, Vtxo } from "@tender/ark-protocol";
import type { OutputSpend, TxStatus } from "@tender/core";
import type { HeldExitOutcome } from "@tender/plugin-ark";

/** The `ArkInfo` fields a board depends on. */
export interface BoardServerInfo {
  /** Server cosign key (33 bytes). */
  readonly serverPubkey: Uint8Array;
  /** Blocks a board VTXO lives (`vtxo_lifetime`). */
  readonly vtxoLifetime: number;
  readonly vtxoExitDelta: number;
  readonly minBoardAmountSat: bigint;
  /** Largest VTXO the server creates; undefined = unlimited. */
  readonly maxVtxoAmountSat: bigint | undefined;
  readonly requiredBoardConfirmations: number;
  readonly boardFees: BoardFeeParams;
}

/** `RequestBoardCosign` as plain data: the server co-signs the board VTXO's exit before the funding transaction is broadcast. */
export interface BoardCosignCall {
  readonly amountSat: bigint;
  /** The funding outpoint, 36 bytes (txid in internal order, vout LE). */
  readonly utxo: Uint8Array;
  readonly expiryHeight: number;
  readonly userPubkey: Uint8Array;
  readonly pubNonce: Uint8Array;
  /** The funding transaction, consensus-serialized. */
  readonly fundingTx: Uint8Array;
}

/** The Ark server, as boards use it. */
export interface BoardServer {
  info(): Promise<BoardServerInfo>;
  requestBoardCosign(call: BoardCosignCall): Promise<{ pubNonce: Uint8Array; partialSig: Uint8Array }>;
  /** `RegisterBoardVtxo` (idempotent on the server). */
  registerBoardVtxo(vtxo: Uint8Array): Promise<void>;
  /** Backs the VTXO id up in the wallet's recovery mailbox, so a wallet restored from its mnemonic finds it (the server ignores duplicates). */
  backupVtxoId(vtxoId: string): Promise<void>;
}

/** The wallet's VTXO keys. */
export interface BoardKeys {
  /** Derives (and persists the use of) the next VTXO key. */
  nextVtxoKey(): Promise<Uint8Array>;
  /** The secret key of a VTXO key this wallet derived. */
  secretKeyFor(pubkey: Uint8Array): Promise<Uint8Array>;
}

/** Where the wallet keeps its VTXOs. Every call is idempotent. */
export interface BoardVtxoStore {
  /** Stores the board VTXO as locked by the board action (not spendable, counts as pending board). */
  storeLocked(vtxo: Vtxo, actionId: string): Promise<void>;
  /** The board is registered: the VTXO becomes spendable. */
  markSpendable(vtxoId: string): Promise<void>;
  /** The board failed (funding double-spent): the VTXO will never exist. */
  markSpent(vtxoId: string): Promise<void>;
  /** Whether the VTXO was handed to the exit subsystem (unilateral exit). */
  isExited(vtxoId: string): Promise<boolean>;
}

/** A signed funding transaction, not yet broadcast. */
export interface FundingTx {
  readonly txid: string;
  readonly hex: string;
  /** Index of the board output. */
  readonly vout: number;
  /** Value of the board output (the board amount A). */
  readonly amountSat: bigint;
  readonly onchainFeeSat: bigint;
  /** The wallet coins it spends, `txid:vout`. */
  readonly inputs: readonly string[];
}

/** Where a board's funding transaction comes from: the on-chain wallet's coins and keys, as boards use them. */
export interface BoardFunding {
  /**
   * Builds and signs (without broadcasting) a transaction paying `amountSat` (or, with `"all"`,
   * every spendable coin minus the fee) to `script`, never spending the coins in `exclude`.
   * Throws a {@link BoardRefusedError} for insufficient funds.
   */
  buildFunding(script: Uint8Array, amountSat: bigint | "all", exclude: ReadonlySet<string>): Promise<FundingTx>;
  /**
   * Hands the signed funding tx to the wallet right before its broadcast: its coins are reserved
   * from then on (idempotent by txid).
   */
  hold(funding: FundingTx): Promise<void>;
  /** The held funding tx was broadcast: the wallet lists and counts it. */
  noteBroadcast(txid: string): Promise<void>;
  /** The held funding tx will never be broadcast: its coins are free again. */
  release(txid: string): Promise<void>;
}

/** The chain source, as boards use it. */
export interface BoardChain {
  tipHeight(): Promise<number>;
  /** `null` when the chain source knows no such transaction (neither mempool nor chain). */
  txStatus(txid: string): Promise<TxStatus | null>;
  outspend(txid: string, vout: number): Promise<OutputSpend>;
  /** Broadcasts; throws `ChainSourceRejectedError` when refused. */
  broadcast(hex: string): Promise<void>;
}

/** The board's `bark.board` movement. */
export interface BoardMovements {
  /** The id of the board movement anchored at `chainAnchor` (`txid:vout`), if one was recorded. */
  findByAnchor(chainAnchor: string): Promise<number | undefined>;
  create(m: { chainAnchor: string; onchainFeeSat: bigint; amountSat: bigint; vtxoAmountSat: bigint; boardFeeSat: bigint; vtxoId: string }): Promise<number>;
  finish(id: number, status: "successful" | "failed"): Promise<void>;
}

/** Everything the board action talks to. */
export interface BoardPorts {
  readonly server: BoardServer;
  readonly keys: BoardKeys;
  readonly vtxos: BoardVtxoStore;
  readonly wallet: BoardFunding;
  readonly chain: BoardChain;
  readonly movements: BoardMovements;
  /** The exits rail's hand-over (absent in set-ups without one: registration is then retried to the end). */
  readonly exits?: BoardExits;
}

/**
 * The exits rail, for a board the Ark server has not registered while its expiry draws near: the
 * server's expiry clause could then take the funding output, so the board VTXO's own exit goes
 * out instead (its exit transaction was co-signed before the funding was broadcast).
 */
export interface BoardExits {
  /**
   * Blocks before a board's expiry from which an unregistered board is exited instead of asking
   * the server again (the wallet's `vtxo_refresh_expiry_threshold`); `undefined` when no exits
   * rail is loaded.
   */
  threshold(): Promise<number | undefined>;
  /** Starts the exit of the board VTXO held by board action `actionId` (idempotent). */
  start(vtxoId: string, actionId: string): Promise<void>;
  /** How far that exit got (`none` when no exits rail is loaded). */
  outcome(vtxoId: string): Promise<HeldExitOutcome>;
}
