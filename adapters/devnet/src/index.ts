export {};
export * from "./node/devnet-node.js";
export * as consensus from "./consensus/index.js";
export * from "./devnet.js";
export { startEsploraServer, createEsploraApp, type EsploraServer } from "./esplora/esplora-server.js";
export { startRpcServer, RPC_METHODS, type RpcServer, type RpcServerOptions } from "./rpc/rpc-server.js";
export * as arkServer from "./ark-server/index.js";
export { startArkServer, ArkServer, type RunningArkServer, type StartArkServerOptions } from "./ark-server/index.js";
