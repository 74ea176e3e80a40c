import { defineService, defineWalletService } from "@tender/core";
import type { ArkServer, ArkServerConnector } from "@tender/ark-protocol/server";
import type { ArkKeys } from "./keys/ark-keys.js";
import type { MailboxHandlers } from "./mailbox/mailbox-handlers.js";
import type { MailboxSync } from "./mailbox/mailbox-sync.js";
import type { HeldVtxoExits } from "./held-vtxo-exits.js";
import type { RecoveryContributors } from "./recovery/recovery-contributors.js";
import type { VtxoLocks } from "./vtxos/vtxo-locks.js";
import type { VtxoStore } from "./vtxos/vtxo-store.js";

/**
 * Opens connections to Ark servers. The daemon binary provides it (gRPC, from `@tender/ark-grpc`);
 * tests provide fakes. The Ark plugin never imports a transport.
 */
export const ArkServerConnectorService = defineService<ArkServerConnector>("ark.server-connector");

/**
 * The loaded wallet's connection to its Ark server: opened on wallet load for the server of
 * `config.toml`, pinned to the keys in `ark_state` (the first connection pins them), closed on
 * unload. The first connection is made while the wallet loads (a bounded wait; a server that is
 * down leaves it unconnected), so a ready wallet whose server answers is connected. `connected`
 * is kept fresh by the heartbeat.
 */
export const ArkConnectionService = defineWalletService<ArkServer>("ark.connection");

/** The loaded wallet's Ark keys: next VTXO key, lookup by public key, mailbox keys. */
export const ArkKeysService = defineWalletService<ArkKeys>("ark.keys");

/** The loaded wallet's mailbox consumer: `sync()` reads the mailbox; the background subscription stops on unload. */
export const ArkMailboxService = defineWalletService<MailboxSync>("ark.mailbox");

/**
 * Extension point: the handler of each mailbox message kind (the Ark rail handles `arkoor`). A
 * message no handler claims is kept and handed over once a handler for its kind is registered.
 */
export const MailboxHandlersService = defineService<MailboxHandlers>("ark.mailbox-handlers");

/** The wallet's VTXOs and their states (`ark_vtxo`, in the wallet database). */
export const VtxoStoreService = defineService<VtxoStore>("ark.vtxo-store");

/**
 * Selecting and locking VTXOs for an action, for every rail (arkoor sends, boards; refresh,
 * offboard, Lightning and exits next): one selection at a time, locks all or none, so no two
 * actions spend one VTXO.
 */
export const VtxoLocksService = defineService<VtxoLocks>("ark.vtxo-locks");

/**
 * Extension point: what rails add to a wallet's recovery from its seed (the exits rail starts the
 * exits of VTXOs recovery found exited on chain; every rail sees the report).
 */
export const RecoveryContributorsService = defineService<RecoveryContributors>("ark.recovery-contributors");

/**
 * Extension point: unilateral exits of VTXOs an action holds (HTLC VTXOs the server will not take
 * back or claim). The exits rail registers the handler; the Lightning rail asks through it.
 */
export const HeldVtxoExitsService = defineService<HeldVtxoExits>("ark.held-vtxo-exits");
