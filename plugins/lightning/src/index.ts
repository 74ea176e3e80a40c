/** @tender/plugin-lightning — Lightning through the Ark server: paying (send side) and being paid (receive side). */
export { lightningPlugin as default, lightningPlugin } from "./plugin.js";
export { lightningSendAction, LIGHTNING_SEND_ACTION, LIGHTNING_SEND_FAULT_POINTS, LIGHTNING_SEND_SUBSYSTEM } from "./send-action.js";
export { LightningSender, type LightningSendInfo } from "./lightning-sender.js";
export type { LightningSendPhase, LightningSendState } from "./send-state.js";
export { lightningReceiveAction, LIGHTNING_RECEIVE_ACTION, LIGHTNING_RECEIVE_FAULT_POINTS, LIGHTNING_RECEIVE_SUBSYSTEM } from "./receive-action.js";
export { LightningReceiver, type LightningReceiveInfo } from "./lightning-receiver.js";
export type { LightningReceivePhase, LightningReceiveState } from "./receive-state.js";
