/** @tender/plugin-exits — unilateral exits: barkd's `/api/v1/exits` routes, CPFP packages, the claim sweep, `pending_exit_sat`. */
export { exitsPlugin as default, exitsPlugin } from "./plugin.js";
export { ExitService, LIVE_KINDS, FINISHED_KINDS, exitLockId, type ExitProgressAnswer } from "./exit-service.js";
export { ExitPackages, DEEPLY_CONFIRMED } from "./exit-packages.js";
export { claimExits, buildClaim, settleClaims } from "./exit-claim.js";
export { estimateExitFee, childWeight, type ExitFeeEstimate } from "./exit-fee.js";
export { MemoryExitStore, type ExitRecord, type ExitChildRecord, type ExitClaimRecord, type ExitStore } from "./exit-records.js";
export { SqlExitStore } from "./persistence/sql-exit-store.js";
export { EXITS_ENTITIES, EXITS_MIGRATIONS } from "./persistence/exit-rows.js";
export type * from "./exit-ports.js";
export { ExitFailure, exitErrors } from "./exit-errors.js";
export { EXIT_SUBSYSTEM } from "./wiring/movements.js";
