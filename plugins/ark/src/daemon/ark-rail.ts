import type { ChainSource, Database, Logger } from "@tender/core";
import type { ArkServer } from "@tender/ark-protocol/server";
import type { MovementStore } from "@tender/plugin-history";
import type { WalletKeys } from "@tender/plugin-wallet";
import type { ArkKeys } from "./keys/ark-keys.js";
import type { VtxoLocks } from "./vtxos/vtxo-locks.js";
import type { VtxoStore } from "./vtxos/vtxo-store.js";

/** Settings of the loaded wallet's Ark rail (`config.toml` keys, plugin config). */
export interface ArkRailSettings {
  /** Wallet network (`mainnet`, `signet`, `mutinynet`, `regtest`). */
  network: string;
  /** `change_vtxo_split_factor` (1..3, default 2). */
  changeSplitFactor: number;
  /** Wait before an undelivered arkoor payment is posted again. */
  deliveryRetryMs: number;
}

/**
 * What the Ark rail's flows (send, receive, import) work with, for the loaded wallet: its server
 * connection, keys and chain source (wallet services), and the stores.
 */
export interface ArkRail {
  readonly server: ArkServer;
  readonly keys: ArkKeys;
  readonly vtxos: VtxoStore;
  /** Selecting and locking VTXOs for an action (shared by every rail). */
  readonly locks: VtxoLocks;
  readonly chain: ChainSource;
  readonly movements: MovementStore;
  /** The wallet database, for writes that must commit together (`db.transaction`). */
  readonly db: Database;
  readonly logger: Logger;
  readonly settings: () => ArkRailSettings;
}

/** The rail's stores in the wallet database (they exist as long as the daemon runs). */
export type ArkStores = Pick<ArkRail, "vtxos" | "locks" | "movements">;

/** The loaded wallet's rail, built on demand; rejects with 422 `No wallet set` without a wallet. */
export type ArkRailSource = () => Promise<ArkRail>;

/** The rail settings of a wallet (the wallet plugin refuses a `change_vtxo_split_factor` outside 1..3). */
export function railSettings(wallet: WalletKeys, deliveryRetryMs: number): ArkRailSettings {
  return { network: wallet.network, changeSplitFactor: wallet.config.change_vtxo_split_factor, deliveryRetryMs };
}
