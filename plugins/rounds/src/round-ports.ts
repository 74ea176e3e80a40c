/**
 * What the rounds rail needs from the rest of the daemon, as small interfaces ("ports"). The
 * plugin wires them to the Ark rail's services (connection, keys, VTXO store and locks), the chain
 * source, the movement store, the wallet settings and the protocol core's round client; the unit
 * tests wire fakes. Amounts are bigint sats; ids `txid:vout`; txids display-order hex.
 */
import type { RefreshFeeParams, Vtxo, VtxoPolicy } from "@tender/ark-protocol";
import type {
  ArkServer, LeafVtxoCosignRequest, LeafVtxoCosignResponse, RoundEvent, RoundFinishedEvent, RoundParticipationRequest,
  SubmitPaymentRequest, VtxoProposalEvent, VtxoSignaturesRequest,
} from "@tender/ark-protocol/server";
import type { TxStatus } from "@tender/core";

/** The `ArkInfo` fields rounds depend on. */
export interface RoundServerInfo {
  readonly serverPubkey: Uint8Array;
  readonly vtxoExitDelta: number;
  readonly vtxoLifetime: number;
  readonly nbRoundNonces: number;
  /** Exit depth at which the server stops cosigning arkoor spends (0: no limit announced). */
  readonly maxVtxoExitDepth: number;
  readonly refreshFees: RefreshFeeParams;
}

/** The Ark server, as rounds use it: the round calls of the port, plus its info, chain registration and the recovery mailbox. */
export interface RoundServer extends Pick<ArkServer,
  "submitPayment" | "provideVtxoSignatures" | "submitRoundParticipation" | "roundParticipationStatus" | "requestLeafVtxoCosign"
  | "requestForfeitNonces" | "forfeitVtxos" | "lastRoundEvent"> {
  info(): Promise<RoundServerInfo>;
  /** Registers the VTXOs' transaction chains with the server (idempotent). */
  registerVtxos(vtxos: readonly Vtxo[]): Promise<void>;
  /** Backs the ids up in the wallet's recovery mailbox (best effort: never throws). */
  backupVtxoIds(ids: readonly string[]): Promise<void>;
}

/** A wallet VTXO key. */
export interface RoundKey {
  readonly index: number;
  readonly publicKey: Uint8Array;
  readonly secretKey: Uint8Array;
}

/** The wallet's keys, as rounds use them. */
export interface RoundKeys {
  /** Derives the next VTXO key and persists that it was handed out (before it is returned). */
  nextVtxoKey(): Promise<RoundKey>;
  /** The VTXO key at `index`. */
  keyAt(index: number): Promise<RoundKey>;
  /** The secret key of one of the wallet's VTXO keys, or undefined. */
  secretKeyFor(pubkey: Uint8Array): Promise<Uint8Array | undefined>;
  /** Whether `pubkey` is one of the wallet's VTXO keys. */
  isOwn(pubkey: Uint8Array): Promise<boolean>;
  /** The wallet's unblinded mailbox id (the server posts round completions there). */
  mailboxId(): Promise<Uint8Array>;
}

/** A VTXO the wallet stores, as rounds see it. */
export interface RoundWalletVtxo {
  readonly id: string;
  readonly vtxo: Vtxo;
  readonly state: "spendable" | "locked" | "spent" | "exited";
  readonly lockedBy: string | null;
}

/** The wallet's VTXOs and the shared locks. */
export interface RoundVtxos {
  get(id: string): Promise<RoundWalletVtxo | undefined>;
  /** Spendable VTXOs, oldest first. */
  spendable(): Promise<RoundWalletVtxo[]>;
  /** Locks `ids` for `owner`, all or none (idempotent for the same owner); throws when one is not spendable. */
  lock(ids: readonly string[], owner: string): Promise<void>;
  /** Returns every VTXO `owner` holds to spendable. */
  release(owner: string): Promise<void>;
  /** Stores new VTXOs as spendable (idempotent). */
  storeSpendable(vtxos: readonly Vtxo[]): Promise<void>;
  markSpent(ids: readonly string[]): Promise<void>;
}

/** The chain source, as rounds use it. */
export interface RoundChain {
  tipHeight(): Promise<number>;
  /** `null` when the chain source knows no such transaction. */
  txStatus(txid: string): Promise<TxStatus | null>;
  /** Broadcasts; throws when refused. */
  broadcast(hex: string): Promise<void>;
  /** The "fast" fee rate (about one block), in sat/kWu: the exit-cost test of the maintenance selection. */
  fastFeeRateSatPerKwu(): Promise<bigint>;
}

/** The `bark.round` / `refresh` movement of a participation. */
export interface RoundMovements {
  create(m: { inputs: readonly string[]; feeSat: bigint }): Promise<number>;
  /** The inputs changed (maintenance dropped rejected ones): new inputs and fee. */
  updateInputs(id: number, m: { inputs: readonly string[]; feeSat: bigint }): Promise<void>;
  /** The round's funding transaction is known (`funding_txid` metadata). */
  noteFunding(id: number, fundingTxid: string): Promise<void>;
  finish(id: number, status: "successful" | "failed", m?: { outputs: readonly string[]; fundingTxid: string }): Promise<void>;
}

/** The wallet settings rounds read. */
export interface RoundSettings {
  /** `round_tx_required_confirmations` (0: the mempool is enough). */
  requiredConfirmations(): Promise<number>;
  /** `vtxo_refresh_expiry_threshold`, in blocks. */
  refreshExpiryThreshold(): Promise<number>;
}

/** An input of a round with its owner's secret key. */
export interface OwnedRoundInput {
  readonly vtxo: Vtxo;
  readonly secretKey: Uint8Array;
}
/** A requested round output. */
export interface RoundOutput {
  readonly amount: bigint;
  readonly policy: VtxoPolicy;
}
/** The server parameters the round client checks against. */
export interface RoundServerParams {
  readonly serverPubkey: Uint8Array;
  readonly vtxoExitDelta: number;
  readonly vtxoLifetime: number;
  readonly nbRoundNonces: number;
  readonly refreshFees: RefreshFeeParams;
}

/**
 * The protocol core's round client (pure): preparing submissions, signing the proposal, building
 * the outputs, checking delegated outputs, and the pieces of the hArk swap. Secrets it returns
 * (`secrets`, `secNonce`) stay in memory.
 */
export interface RoundProtocol {
  refreshOutputAmount(inputs: readonly Vtxo[], fees: RefreshFeeParams, tipHeight: number): { fee: bigint; amount: bigint };
  prepareRoundSubmission(p: {
    challenge: Uint8Array; inputs: readonly OwnedRoundInput[]; outputs: readonly RoundOutput[]; nbRoundNonces: number; mailboxId?: Uint8Array;
  }): { request: SubmitPaymentRequest; secrets: unknown };
  signVtxoProposal(p: {
    proposal: VtxoProposalEvent; server: RoundServerParams; tipHeight: number; outputs: readonly RoundOutput[]; unlockHash: Uint8Array; secrets: unknown;
  }): VtxoSignaturesRequest[];
  roundOutputVtxos(p: { proposal: VtxoProposalEvent; finished: RoundFinishedEvent; outputs: readonly RoundOutput[]; unlockHash: Uint8Array }): { fundingTx: Uint8Array; fundingTxid: string; vtxos: Vtxo[] };
  prepareDelegatedParticipation(p: { inputs: readonly OwnedRoundInput[]; outputs: readonly RoundOutput[]; mailboxId?: Uint8Array; scheduledHeight?: number }): RoundParticipationRequest;
  checkDelegatedOutputs(p: {
    status: { roundFundingTx: Uint8Array; outputVtxos: readonly Uint8Array[] }; outputs: readonly RoundOutput[]; server: RoundServerParams; inputs: readonly Vtxo[];
    scheduledHeight?: number; unlockHash?: Uint8Array;
  }): { fundingTxid: string; vtxos: Vtxo[] };
  leafCosignNonce(p: { vtxo: Vtxo; secretKey: Uint8Array }): { request: LeafVtxoCosignRequest; secNonce: unknown };
  completeLeafSignature(p: { vtxo: Vtxo; secretKey: Uint8Array; secNonce: unknown; response: LeafVtxoCosignResponse; serverPubkey: Uint8Array }): Uint8Array;
  forfeitBundles(p: { inputs: readonly OwnedRoundInput[]; unlockHash: Uint8Array; serverNonces: readonly Uint8Array[] }): Uint8Array[];
  finalizeRoundVtxo(p: { vtxo: Vtxo; leafSignature: Uint8Array; preimage: Uint8Array; unlockHash: Uint8Array; fundingTx: Uint8Array }): Vtxo;
}

/** Runs writes that must land together (every store called inside joins one database transaction). */
export type RoundTransaction = <T>(fn: () => Promise<T>) => Promise<T>;

/** Everything the rounds rail talks to. */
export interface RoundPorts {
  readonly server: RoundServer;
  readonly keys: RoundKeys;
  readonly vtxos: RoundVtxos;
  readonly chain: RoundChain;
  readonly movements: RoundMovements;
  readonly settings: RoundSettings;
  readonly protocol: RoundProtocol;
  readonly transaction: RoundTransaction;
}

export type { RoundEvent };
