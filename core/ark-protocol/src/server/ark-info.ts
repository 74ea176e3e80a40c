import type { FeeSchedule } from "../fees.js";

/**
 * What an Ark server announces about itself (its `GetArkInfo` answer), after the checks a wallet
 * runs before using it: the network matches the wallet's, both keys are 33-byte compressed public
 * keys, every block delta fits in 14 bits (at most 16383), the exit depth fits in 16 bits, all five
 * fee schedule parts are present and every ppm table is ordered. Amounts are bigint sats, block
 * deltas and counts are numbers.
 */
export interface ArkInfo {
  /** The bitcoin network the server runs on: `bitcoin`, `testnet`, `testnet4`, `signet` or `regtest`. */
  readonly network: string;
  /** The server's cosigning key (33 bytes); the wallet pins it. */
  readonly serverPubkey: Uint8Array;
  /** The server's mailbox key (33 bytes); the wallet pins it. */
  readonly mailboxPubkey: Uint8Array;
  readonly roundIntervalSecs: number;
  readonly nbRoundNonces: number;
  /** Blocks a VTXO owner has to claim an exit after its exit transaction confirmed. */
  readonly vtxoExitDelta: number;
  /**
   * Blocks a new VTXO lives. Old servers announced it only as `vtxo_expiry_delta`; that value is
   * used when the server leaves `vtxo_lifetime` at 0.
   */
  readonly vtxoLifetime: number;
  readonly htlcSendExpiryDelta: number;
  readonly htlcExpiryDelta: number;
  /** The largest VTXO the server creates; `undefined` = no limit. */
  readonly maxVtxoAmount: bigint | undefined;
  readonly requiredBoardConfirmations: number;
  readonly maxUserInvoiceCltvDelta: number;
  readonly minBoardAmount: bigint;
  /** The server's offboard fee rate in sat per 1000 vbytes. */
  readonly offboardFeerateSatVkb: bigint;
  readonly lnReceiveAntiDosRequired: boolean;
  readonly fees: FeeSchedule;
  /** The deepest exit chain the server accepts as an input (0 = no limit). */
  readonly maxVtxoExitDepth: number;
  readonly maxOffboardInputs: number;
  /** Link to the server's terms of service, if it has any. */
  readonly tosLink: string | undefined;
}

/** The two server keys a wallet pins at creation (or at its first connection). */
export interface PinnedServerKeys {
  readonly serverPubkey: Uint8Array;
  readonly mailboxPubkey: Uint8Array;
}

/** What a successful connection established. */
export interface ArkSession {
  /** The protocol version both sides speak on this connection. */
  readonly protocolVersion: number;
  /** The server's public service announcement, if any. */
  readonly psa: string | undefined;
  readonly arkInfo: ArkInfo;
}
