/**
 * Type helpers that read request/response types and streaming-ness out of the generated
 * grpc-js service definitions, so one generic call path serves every RPC with full typing.
 */
import type { Buffer } from "node:buffer";
import type { ArkServiceService } from "./gen/bark_server.js";
import type { ReceivingMailboxService } from "./mailbox-codec.js";

/** Shape of one generated method definition. */
export interface MethodDef<Req = never, Res = unknown> {
  readonly path: string;
  readonly requestStream: boolean;
  readonly responseStream: boolean;
  readonly requestSerialize: (value: Req) => Buffer;
  readonly responseDeserialize: (value: Buffer) => Res;
}

/** Names of the unary methods of a service definition. */
export type UnaryMethod<S> = {
  [K in keyof S]: S[K] extends { requestStream: false; responseStream: false } ? K : never;
}[keyof S] &
  string;

/** Names of the server-streaming methods of a service definition. */
export type StreamMethod<S> = {
  [K in keyof S]: S[K] extends { requestStream: false; responseStream: true } ? K : never;
}[keyof S] &
  string;

/** Request message type of method `K`. */
export type RequestOf<S, K extends keyof S> = S[K] extends { requestSerialize: (value: infer R) => Buffer } ? R : never;
/** Response message type of method `K`. */
export type ResponseOf<S, K extends keyof S> = S[K] extends { responseDeserialize: (value: Buffer) => infer R } ? R : never;

/** The wallet-facing `bark_server.ArkService` definition. */
export type ArkService = typeof ArkServiceService;
/** The wallet-facing `mailbox_server.MailboxService` definition (messages of unknown kinds keep their bytes). */
export type MailboxService = typeof ReceivingMailboxService;
