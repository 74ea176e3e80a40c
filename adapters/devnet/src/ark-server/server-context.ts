/**
 * What every part of the reference server shares: its rules, keys, database, chain and locks.
 */
import type { Logger } from "@tender/core";
import type { DevnetNode } from "../node/devnet-node.js";
import type { VtxoFluxLocks } from "./async-lock.js";
import type { ArkServerConfig } from "./server-config.js";
import type { ServerKeys } from "./server-keys.js";
import type { ServerSettings } from "./server-settings.js";
import type { ArkServerStore } from "./server-store.js";

/**
 * The chain calls the server makes, answered in process by the devnet node (the
 * same facts bitcoind RPC would give: `getrawtransaction`, `gettxout`, `getblockcount`, …).
 */
export type ServerChain = Pick<DevnetNode, "tipHeight" | "getTransaction" | "getTxStatus" | "getTxOut" | "utxosForScript" | "faucet" | "estimateFeeRate" | "submitTransaction" | "testMempoolAccept">;

/** Shared state of one server instance. */
export interface ServerContext {
  /** The settings in force: `settings.current`, read anew on every use (they change at run time). */
  readonly config: ArkServerConfig;
  /** The holder of the settings (the devnet's controls change them). */
  readonly settings: ServerSettings;
  readonly keys: ServerKeys;
  readonly store: ArkServerStore;
  readonly chain: ServerChain;
  readonly locks: VtxoFluxLocks;
  readonly logger: Logger;
  /** Unix seconds (injectable for mailbox-authorization tests). */
  readonly nowSecs: () => bigint;
}
