export * from "./chain-types.js";
export * from "./chain-source.js";
export * from "./chain-errors.js";
export * from "./retry.js";
export * from "./http-request.js";
export * from "./fee-rates.js";
export * from "./network.js";
export * from "./block-header.js";
