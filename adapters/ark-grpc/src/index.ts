/**
 * @tender/ark-grpc — tender's own gRPC definitions of the Ark server protocol (generated from
 * `proto/` by buf + ts-proto, committed under `src/gen/`), the wallet's Ark server client, and the
 * Ark server port (`@tender/ark-protocol/server`) over it: {@link GrpcArkServer},
 * {@link grpcArkServerConnector}.
 *
 * Generated messages, enums, service definitions (`ArkServiceService`, `MailboxServiceService`,
 * the admin services, `IntegrationServiceService`, `HealthService`), server interfaces and client
 * constructors are re-exported flat; each generated module is also available as a namespace
 * (`core`, `barkServer`, `barkServerAdmin`, `mailboxServer`, `intman`, `health`).
 */
export * from "./gen/core.js";
export * from "./gen/bark_server.js";
export * from "./gen/bark_server_admin.js";
export * from "./gen/mailbox_server.js";
export * from "./gen/intman.js";
export * from "./gen/grpc/health/v1/health.js";
export * as core from "./gen/core.js";
export * as barkServer from "./gen/bark_server.js";
export * as barkServerAdmin from "./gen/bark_server_admin.js";
export * as mailboxServer from "./gen/mailbox_server.js";
export * as intman from "./gen/intman.js";
export * as health from "./gen/grpc/health/v1/health.js";

export * from "./errors.js";
export { toArkServerError, parseServerMessage, readIdentifiers, IDENTIFIERS_TRAILER, type ParsedServerMessage } from "./error-mapping.js";
export * from "./metadata.js";
export * from "./ark-info.js";
export * from "./url.js";
export { Backoff, sleep, type BackoffPolicy } from "./backoff.js";
export * from "./streams.js";
export { ArkServerClient, isRetryableConnectFailure, type ArkServerClientOptions, type ArkClientLogger, type CallOptions, type ServerSession } from "./client.js";
export type { ArkService, MailboxService, UnaryMethod, StreamMethod, RequestOf, ResponseOf } from "./service-types.js";
export { ServerChannel, DEFAULT_CHANNEL_OPTIONS, type ServerChannelOptions } from "./channel.js";
export { GrpcArkServer, grpcArkServerConnector, grpcArkServerConnectorWith } from "./grpc-ark-server.js";
export { arkInfoOf, arkSessionOf, copyFeeSchedule, mailboxMessageOf } from "./domain-mapping.js";
export { decodeReceivedMailboxMessage, decodeReceivedMailboxMessages, ReceivingMailboxService, type ReceivedMailboxMessage, type ReceivedMailboxMessages } from "./mailbox-codec.js";
export { serverNetworkOf } from "./networks.js";
