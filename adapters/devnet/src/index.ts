export {};
export * from "./node/devnet-node.js";
export * as consensus from "./consensus/index.js";
