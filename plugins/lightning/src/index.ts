/** @tender/plugin-lightning — paying Lightning through the Ark server (send side). */
export { lightningPlugin as default, lightningPlugin } from "./plugin.js";
export { lightningSendAction, LIGHTNING_SEND_ACTION, LIGHTNING_SEND_FAULT_POINTS, LIGHTNING_SEND_SUBSYSTEM } from "./send-action.js";
export { LightningSender, type LightningSendInfo } from "./lightning-sender.js";
export type { LightningSendPhase, LightningSendState } from "./send-state.js";
