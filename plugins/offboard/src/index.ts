/** @tender/plugin-offboard — leaving Ark for a bitcoin address: offboards and send-onchain, with their fee estimates. */
export { offboardPlugin as default, offboardPlugin } from "./plugin.js";
export { OffboardService, type Destination } from "./offboard-service.js";
export { offboardAction, OFFBOARD_FAULT_STEPS, sortedIds, type OffboardTiming } from "./offboard-action.js";
export { OFFBOARD_ACTION_KIND, OFFBOARD_STEPS, type OffboardState } from "./offboard-state.js";
export type * from "./offboard-ports.js";
