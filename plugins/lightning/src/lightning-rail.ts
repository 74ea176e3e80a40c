import type { Database, Logger } from "@tender/core";
import type { ArkServer } from "@tender/ark-protocol/server";
import type { ArkKeys, VtxoLocks, VtxoStore } from "@tender/plugin-ark";
import type { MovementStore } from "@tender/plugin-history";
import type { WalletSettings } from "@tender/plugin-wallet";

/**
 * What a Lightning send works with for the loaded wallet: the Ark server connection and keys,
 * the shared VTXO store and locks, the movement store, the chain tip and the wallet settings.
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
}

/** The loaded wallet's rail; rejects with 422 `No wallet set` without a wallet. */
export type LightningRailSource = () => Promise<LightningRail>;
