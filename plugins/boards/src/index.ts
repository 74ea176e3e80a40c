/** @tender/plugin-boards — moving on-chain coins onto Ark: barkd's board routes and the crash-safe board action. */
export { boardsPlugin as default, boardsPlugin, BoardServiceToken } from "./plugin.js";
export { BoardService, type PendingBoardInfo } from "./board-service.js";
export { boardAction, type BoardTiming, type ReservedCoins } from "./board-action.js";
export { checkBoardAmount, splitBoard, P2TR_DUST_SAT, type BoardSplit } from "./board-amounts.js";
export { BOARD_ACTION_KIND, BOARD_STEPS, type BoardState } from "./board-state.js";
export type * from "./board-ports.js";
export { BoardRefusedError } from "./errors.js";
export { BOARD_SUBSYSTEM } from "./wiring/movements.js";
