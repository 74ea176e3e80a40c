import type { Database, Logger } from "@tender/core";
import type { ArkServer } from "@tender/ark-protocol/server";
import type { ArkKeys, HeldVtxoExits, VtxoLocks, VtxoStore } from "@tender/plugin-ark";
import type { MovementStore } from "@tender/plugin-history";
import type { WalletSettings } from "@tender/plugin-wallet";

/**
 * What a Lightning send works with for the loaded wallet: the Ark server connection and keys,
 * the shared VTXO store and locks, the movement store, the chain tip, the wallet settings and the
 * hand-over of HTLC VTXOs to unilateral exits.
 */
export interface LightningRail {
  readonly server: ArkServer;
  readonly keys: ArkKeys;
  readonly vtxos: VtxoStore;
  readonly locks: VtxoLocks;
  readonly movements: MovementStore;
  readonly db: Database;
  readonly logger: Logger;
  readonly settings: WalletSettings;
  /** Wallet network (`mainnet`, `signet`, `mutinynet`, `regtest`). */
  readonly network: string;
  tipHeight(): Promise<number>;
  /** Where HTLC VTXOs the server will not take back or claim are exited (no handler without an exits rail). */
  readonly heldExits?: HeldVtxoExits;
}

/** The loaded wallet's rail; rejects with 422 `No wallet set` without a wallet. */
export type LightningRailSource = () => Promise<LightningRail>;
