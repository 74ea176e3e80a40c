/** @tender/plugin-wallet — the wallet lifecycle plugin. */
export { walletPlugin as default, walletPlugin, WalletLifecycleToken, WalletLifecycleService, WalletKeysService, WalletSettingsService } from "./plugin.js";
export { WalletLifecycle, type WalletKeys } from "./lifecycle/wallet-lifecycle.js";
export * from "./keys/seed.js";
export * from "./config/wallet-config.js";
export * from "./config/wallet-settings.js";
export { walletSyncTask, SYNC_TASK_RECHECK_MS, SYNC_TASK_TICK_MS, type WalletSyncTaskOptions } from "./config/sync-task.js";
export * from "./routes/schemas.js";
export { WalletCreationChecks, type WalletCreationCheck, type WalletCreationContext } from "./lifecycle/creation-checks.js";
export { SendDestinations, SendDestinationsService, type DestinationPayer, type SendOutcome } from "./send/send-destinations.js";
export { classifyDestination, unclaimedKindError, DESTINATION_KINDS, SEND_ERRORS, type DestinationKind, type SendDestination } from "./send/destination-kinds.js";
export * from "./send/lightning/index.js";
export { BalanceContributors, BalanceContributorsService, BALANCE_FIELDS, type BalanceField, type BalanceContribution } from "./balance/balance-contributors.js";
export { Bip321Contributors, Bip321ContributorsService, BIP321_PARTS, type Bip321Part, type Bip321Request, type Bip321Contribution } from "./bip321/bip321-contributors.js";
export { bip321Uri, formatBtc, percentEncode, isUppercasable, uppercaseBip321Uri, type Bip321Parts } from "./bip321/bip321-uri.js";
export { Bip321UriRequestSchema, Bip321UriResponseSchema, Bip321QrResponseSchema } from "./routes/bip321-routes.js";
