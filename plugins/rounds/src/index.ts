/** @tender/plugin-rounds — refreshing VTXOs in Ark rounds: barkd's refresh routes, persisted participations, the round-event and sync drivers. */
export { roundsPlugin as default, roundsPlugin, RoundsServiceToken } from "./plugin.js";
export { RoundsService, type RoundsHooks } from "./rounds-service.js";
export { ParticipationStore } from "./participation-store.js";
export { RoundParticipationRow, roundsInitMigration, ROUNDS_ENTITIES, ROUNDS_MIGRATIONS } from "./participation-row.js";
export type * from "./participation.js";
export type * from "./round-ports.js";
export { maintenanceSelection, type RefreshCandidate } from "./maintenance-selection.js";
export { hasCounterpartyRisk } from "./counterparty.js";
export { pendingRoundInfo, storedStatus, type PendingRoundInfoJson, type RoundStatusJson } from "./round-status.js";
export { INTERACTIVE_FAULT_POINTS, MAX_MAINTENANCE_RESUBMITS } from "./interactive-rounds.js";
export { DELEGATED_FAULT_POINTS } from "./delegated-rounds.js";
export { COMPLETION_FAULT_POINTS, MAX_FORFEIT_NONCE_IDS } from "./round-completion.js";
export { ROUND_SUBSYSTEM } from "./wiring/wallet-services.js";
export { ROUND_PROGRESS_ACTION } from "./progress-action.js";
