import type { ChainSource, Database, Logger } from "@tender/core";
import type { MovementStore } from "@tender/plugin-history";
import type { ArkConnection } from "./connection/ark-connection.js";
import type { ArkKeys } from "./keys/ark-keys.js";
import type { VtxoStore } from "./vtxos/vtxo-store.js";

/** Settings of the loaded wallet's Ark rail (`config.toml` keys, plugin config). */
export interface ArkWalletSettings {
  /** Wallet network (`mainnet`, `signet`, `mutinynet`, `regtest`). */
  network: string;
  /** `change_vtxo_split_factor` (1..3, default 2). */
  changeSplitFactor: number;
  /** Wait before an undelivered arkoor payment is posted again. */
  deliveryRetryMs: number;
}

/** The services the Ark rail's flows (send, receive, import) work with. */
export interface ArkWallet {
  readonly connection: ArkConnection;
  readonly keys: ArkKeys;
  readonly vtxos: VtxoStore;
  readonly chain: ChainSource;
  readonly movements: MovementStore;
  /** The wallet database, for writes that must commit together (`db.transaction`). */
  readonly db: Database;
  readonly logger: Logger;
  readonly settings: () => ArkWalletSettings;
}
