/** @tender/plugin-history — wallet movements, history routes and movement notifications. */
export { historyPlugin as default, historyPlugin, MovementStoreToken, PaymentMethodParsersToken } from "./plugin.js";
export { MovementStore, type NewMovement, type MovementChanges, type MovementJournal } from "./movements/movement-store.js";
export * from "./movements/movement.js";
export { applyMergePatch, patchMetadata } from "./movements/merge-patch.js";
export { PaymentMethodParsers, type PaymentMethodParser } from "./payment-methods/payment-method-parsers.js";
export { formatLocalRfc3339 } from "./movements/timestamps.js";
export { MovementRecord, movementMigration } from "./movements/movement-record.js";
