/**
 * The reference Ark server of the devnet (captaind's public gRPC API and rules): domain object,
 * gRPC wiring and start-up. See the "Ark server" section of the package README.
 */
export { ArkServer, type ArkServerOptions, type Handshake } from "./ark-server.js";
export { RpcTimes } from "./rpc-times.js";
export { startArkServer, type StartArkServerOptions, type RunningArkServer } from "./start-ark-server.js";
export { serverConfig, defaultServerConfig, testServerConfig, testFeeSchedule, SERVER_MIN_PROTOCOL_VERSION, SERVER_MAX_PROTOCOL_VERSION, ServerConfigError, type ArkServerConfig, type ArkServerProfile, type ArkInfo } from "./server-config.js";
export * from "./server-errors.js";
export { deriveServerKeys, type ServerKeys } from "./server-keys.js";
export type { ServerChain, ServerTx, ServerTxOut, ServerMempoolAccept } from "./server-context.js";
export { devnetServerChain } from "./chain/devnet-server-chain.js";
export { bitcoindServerChain, BitcoindServerChain, type BitcoindServerChainOptions } from "./chain/bitcoind-server-chain.js";
export type { WalletStatus } from "./server-wallet.js";
export type { MailboxMessageData, MailboxPage } from "./mailbox-service.js";
export { ClientSpendState } from "./vtxo-registry.js";
export { startDevnetWithArk, arkReadyFields, type StartDevnetWithArkOptions, type DevnetWithArk } from "./devnet-with-ark.js";
export { startFaultProxy, FORWARDED_METHODS, type FaultProxy, type FaultProxyOptions } from "./fault-proxy/fault-proxy.js";
export { FaultSet, FaultInputError, parseFault, type FaultSpec, type ArmedFault } from "./fault-proxy/fault-rules.js";
