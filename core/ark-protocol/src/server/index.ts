/**
 * `@tender/ark-protocol/server` — the Ark server as the wallet daemon sees it: the
 * {@link ArkServer} port with plain-data requests and answers, the errors a connection throws,
 * and the {@link ArkServerConnector} that opens connections. Only interfaces, data types and
 * error classes: the transport (gRPC) lives in an adapter.
 */
export type { ArkInfo, ArkSession, PinnedServerKeys } from "./ark-info.js";
export type * from "./mailbox-messages.js";
export type * from "./cosign-requests.js";
export type * from "./round-messages.js";
export type * from "./lightning-receive-messages.js";
export type * from "./offboard-messages.js";
export type * from "./vtxo-queries.js";
export type * from "./lightning-messages.js";
export type { ArkServer, ArkServerConnector, ArkServerLogger, ArkServerOptions } from "./ark-server.js";
export * from "./errors.js";
