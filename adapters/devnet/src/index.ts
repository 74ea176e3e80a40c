export {};
export * from "./node/devnet-node.js";
