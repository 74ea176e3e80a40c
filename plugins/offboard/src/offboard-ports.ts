/**
 * What the offboard action needs from the rest of the daemon, as small interfaces ("ports"). The
 * plugin wires them to the Ark rail's services, the chain source, the wallet settings and the
 * movement store; the unit tests wire fakes. Amounts are integer sats (`bigint`); txids are
 * display-order hex.
 */
import type { OffboardFeeParams, Vtxo } from "@tender/ark-protocol";
import type { ArkoorCosignPart, ArkoorCosignResponse, FinishOffboardRequest, PreparedOffboard, PrepareOffboardRequest } from "@tender/ark-protocol/server";
import type { TxStatus } from "@tender/core";
import type { MovementChanges, NewMovement } from "@tender/plugin-history";

/** The `ArkInfo` fields an offboard depends on. */
export interface OffboardServerInfo {
  readonly serverPubkey: Uint8Array;
  readonly maxOffboardInputs: number;
  /** VTXOs this deep (or deeper) are never selected; 0 = no limit. */
  readonly maxVtxoExitDepth: number;
  readonly fees: OffboardFeeParams;
}

/** The Ark server, as offboards use it. Failures are the errors of `@tender/ark-protocol/server`. */
export interface OffboardServer {
  info(): Promise<OffboardServerInfo>;
  /** `GetOffboardFeeRate`, converted to sat/kWu (rounded up). */
  feeRateSatPerKwu(): Promise<bigint>;
  prepare(request: PrepareOffboardRequest): Promise<PreparedOffboard>;
  /** The signed offboard tx, consensus-serialized. */
  finish(request: FinishOffboardRequest): Promise<Uint8Array>;
  /** `RegisterVtxoTransactions` of full VTXOs (idempotent). */
  registerVtxos(vtxos: readonly Uint8Array[]): Promise<void>;
  /** Co-signs the send-onchain's arkoor split (replayed for the same package). */
  arkoorCosign(parts: readonly ArkoorCosignPart[]): Promise<ArkoorCosignResponse[]>;
  /** Backs VTXO ids up in the recovery mailbox; best effort (never throws). */
  backupVtxoIds(ids: readonly string[]): Promise<void>;
}

/** The wallet's VTXO keys. */
export interface OffboardKeys {
  /** Derives (and persists the use of) the next VTXO key. */
  next(): Promise<{ index: number; publicKey: Uint8Array }>;
  publicKeyAt(index: number): Uint8Array;
  /** The secret key of one of the wallet's VTXO keys (throws for a key it does not own). */
  secretFor(pubkey: Uint8Array): Promise<Uint8Array>;
}

/** A VTXO as the wallet stores it. */
export interface OffboardVtxo {
  readonly id: string;
  readonly vtxo: Vtxo;
  readonly amountSat: bigint;
  readonly state: "spendable" | "locked" | "spent" | "exited";
  readonly lockedBy: string | null;
}

/** The wallet's VTXOs and their locks (the Ark rail's shared locks: no two actions spend one VTXO). */
export interface OffboardVtxos {
  get(id: string): Promise<OffboardVtxo | undefined>;
  /** Runs `choose` with the spendable VTXOs while no other selection runs. */
  select<T>(choose: (spendable: readonly OffboardVtxo[]) => Promise<T>): Promise<T>;
  /** Locks `ids` for `holder`, all or none (idempotent for the same holder); throws when one is not spendable. */
  lock(ids: readonly string[], holder: string): Promise<void>;
  /** Returns every VTXO `holder` holds to spendable. */
  release(holder: string): Promise<void>;
  /** Stores a new VTXO locked by `holder` (idempotent). */
  holdNew(vtxo: Vtxo, holder: string): Promise<void>;
  markSpent(ids: readonly string[]): Promise<void>;
}

/** The chain source, as offboards use it. */
export interface OffboardChain {
  tipHeight(): Promise<number>;
  /** `null` when the chain source knows no such transaction (neither mempool nor chain). */
  txStatus(txid: string): Promise<TxStatus | null>;
  /** The raw tx, or `null` when unknown. */
  txHex(txid: string): Promise<string | null>;
  /** Broadcasts; throws when refused or unreachable. */
  broadcast(hex: string): Promise<void>;
}

/** The `bark.offboard` movements. */
export interface OffboardMovements {
  /** The pending movement of this kind whose inputs are exactly `inputIds`, if one was recorded. */
  findPending(kind: "offboard" | "send_onchain", inputIds: readonly string[]): Promise<number | undefined>;
  create(m: NewMovement): Promise<number>;
  update(id: number, c: MovementChanges): Promise<void>;
}

/** The wallet's settings (`config.toml`) an offboard reads. */
export interface OffboardSettings {
  /** `offboard_required_confirmations`. */
  requiredConfirmations(): Promise<number>;
  /** `offboard_lost_tx_grace_period_secs`. */
  lostTxGraceSecs(): Promise<number>;
  /** `change_vtxo_split_factor`. */
  changeSplitFactor(): Promise<number>;
}

/** Everything the offboard action talks to. */
export interface OffboardPorts {
  readonly server: OffboardServer;
  readonly keys: OffboardKeys;
  readonly vtxos: OffboardVtxos;
  readonly chain: OffboardChain;
  readonly movements: OffboardMovements;
  readonly settings: OffboardSettings;
  /** Runs `fn` in one database transaction (stores called inside join it). */
  transaction<T>(fn: () => Promise<T>): Promise<T>;
  /** Wall clock, epoch ms. */
  now(): number;
}
