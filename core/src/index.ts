export const TENDER_VERSION = "0.1.0";
export * from "./chain/index.js";
export * from "./bench/measure.js";
