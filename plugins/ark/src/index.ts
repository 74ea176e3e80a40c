/**
 * @tender/plugin-ark — the Ark rail. The default export is the daemon plugin (routes, tasks,
 * storage); other plugins reach its services through the exported service references. The pure
 * protocol core it builds on is its own package, `@tender/ark-protocol`; the Ark server is the
 * port `@tender/ark-protocol/server`, opened through {@link ArkServerConnectorService}.
 */
export { arkPlugin as default, arkPlugin } from "./daemon/plugin.js";
export {
  ArkConnectionService, ArkKeysService, ArkMailboxService, ArkServerConnectorService, HeldVtxoExitsService, MailboxHandlersService, RecoveryContributorsService,
  VtxoLocksService, VtxoStoreService,
} from "./daemon/services.js";
export { HeldVtxoExits, type HeldExitOutcome, type HeldVtxoExitHandler } from "./daemon/held-vtxo-exits.js";
export { RecoveryContributors, type RecoveryContributor } from "./daemon/recovery/recovery-contributors.js";
export { RecoveryReport, type RecoveryOutcome } from "./daemon/recovery/recovery-report.js";
export { recoverFromSeed, RECOVERY_RETRIES, type SeedRecoveryPorts } from "./daemon/recovery/seed-recovery.js";
export { matchOwners, RECOVERY_GAP_LIMIT } from "./daemon/recovery/owner-matching.js";
export {
  backUpVtxoIds, catchUpRecovery, MAX_RECOVERY_IDS, RECOVERY_AUTH_SECS, RECOVERY_REGISTER_CHUNK, type RecoveryBackupPorts, type RecoveryCatchUp,
} from "./daemon/recovery/recovery-backup.js";
export { VtxoLocks } from "./daemon/vtxos/vtxo-locks.js";
export { MailboxHandlers, type MailboxAck, type MailboxHandler, type MailboxMessageOf } from "./daemon/mailbox/mailbox-handlers.js";
export { KeptMailboxMessages, type KeptMailboxMessage } from "./daemon/mailbox/kept-messages.js";
export type { MailboxMessage, MailboxMessageKind } from "@tender/ark-protocol/server";
export { NoArkServerConfiguredError } from "./daemon/connection/open-connection.js";
export { protocolNetworkOf, UnknownWalletNetworkError } from "./daemon/connection/networks.js";
export { ArkKeys, NoWalletKeysError, type VtxoKey } from "./daemon/keys/ark-keys.js";
export { VtxoStore, VtxoNotSpendableError, type StoredVtxo, type VtxoState, type VtxoBalance } from "./daemon/vtxos/vtxo-store.js";
export { ArkVtxoRow, ArkVtxoEncodingRow, ArkKeyRow, ArkStateRow, ArkKeptMailboxMessageRow, arkInitMigration, arkKeptMailboxMigration, arkRecoveryRegisteredMigration, arkVtxoEncodingMigration, ARK_MIGRATIONS, ARK_ENTITIES } from "./daemon/persistence/entities.js";
export type { ArkRail, ArkRailSettings, ArkRailSource, ArkStores } from "./daemon/ark-rail.js";
export { checkReceivedVtxo, VtxoNotAcceptedError, type AcceptanceContext } from "./daemon/vtxos/received-vtxo.js";
export { walletVtxoInfo, type WalletVtxoInfoJson } from "./daemon/vtxos/vtxo-json.js";
export { arkAddressOf } from "./daemon/keys/ark-addresses.js";
export { mailboxAuthorization } from "./daemon/mailbox/mailbox-authorization.js";
export { MailboxSync } from "./daemon/mailbox/mailbox-sync.js";
export { ARKOOR_RECEIVE_FAULT_POINTS } from "./daemon/mailbox/arkoor-receiver.js";
export { ArkoorSender } from "./daemon/arkoor/arkoor-sender.js";
export { arkKeySecrets, completeArkoorCosign, type ArkoorOutput, type KeySecrets } from "./daemon/arkoor/arkoor-cosign-completion.js";
export { arkoorSendAction, ARKOOR_SEND_ACTION, ARKOOR_SEND_FAULT_POINTS, ARKOOR_SEND_FIRST_COMMIT_FAULT_POINTS, type ArkoorSendState } from "./daemon/arkoor/arkoor-send-action.js";
export type { ArkDestination } from "./daemon/arkoor/destination.js";
export { readPinnedKeys, writePinnedKeys, readMailboxCheckpoint, writeMailboxCheckpoint } from "./daemon/connection/server-pins.js";
