/**
 * Plumbing shared by the server's gRPC services: one wrapper per unary / server-streaming
 * handler that checks `x-user-agent`, reads `pver` where asked, logs the request at debug level
 * and maps thrown errors once (status code, message, `identifiers` trailer, as captaind).
 */
import {
  Metadata,
  status as GrpcStatus,
  type handleServerStreamingCall,
  type handleUnaryCall,
  type sendUnaryData,
  type ServerUnaryCall,
  type ServerWritableStream,
  type UntypedServiceImplementation,
} from "@grpc/grpc-js";
import type { Logger } from "@tender/core";
import { grpcStatusOf, RequestConversionError, UnimplementedError } from "./server-errors.js";
import type { RpcTimes } from "./rpc-times.js";

/** Metadata key of the negotiated protocol version. */
export const PVER_HEADER = "pver";
/** Metadata key of the client's user agent. */
export const USER_AGENT_HEADER = "x-user-agent";
/** Trailer key of the ids a refusal is about. */
export const IDENTIFIERS_TRAILER = "identifiers";

const USER_AGENT = /^[a-z0-9_-]{1,32}\/\S+$/;

function header(md: Metadata, key: string): string | undefined {
  const v = md.get(key)[0];
  return v === undefined ? undefined : typeof v === "string" ? v : v.toString("utf8");
}

/** Refuses a present but malformed `x-user-agent` (an absent one is fine). */
export function checkUserAgent(md: Metadata): void {
  const ua = header(md, USER_AGENT_HEADER);
  if (ua !== undefined && !USER_AGENT.test(ua)) throw new RequestConversionError("x-user-agent must match `<name>/<version>`");
}

/** The `pver` header as a number; captaind's texts when missing or unparsable. */
export function readPver(md: Metadata): number {
  const v = header(md, PVER_HEADER);
  if (v === undefined) throw new RequestConversionError("missing pver header");
  if (!/^\d{1,9}$/.test(v)) throw new RequestConversionError("invalid protocol version header");
  return Number(v);
}

/** The error object grpc-js turns into a status: code, details and the `identifiers` trailer. */
export function toServiceError(err: unknown): { code: number; details: string; metadata: Metadata } {
  const s = grpcStatusOf(err);
  const metadata = new Metadata();
  if (s.identifiers.length) metadata.set(IDENTIFIERS_TRAILER, s.identifiers.join(","));
  return { code: s.code, details: s.message, metadata };
}

/** Context given to a handler. */
export interface CallContext {
  readonly metadata: Metadata;
  /** Aborted when the client cancels (streams) or the server stops. */
  readonly signal: AbortSignal;
}

/** Wraps an async unary handler; `times`, when given, hears how long each call was held. */
export function unary<Req, Res>(name: string, logger: Logger, fn: (req: Req, ctx: CallContext) => Promise<Res> | Res, times?: RpcTimes): handleUnaryCall<Req, Res> {
  return (call: ServerUnaryCall<Req, Res>, callback: sendUnaryData<Res>) => {
    const started = performance.now();
    const abort = new AbortController();
    // grpc-js reports every unary call "cancelled" once its stream closes, answered or not: only a
    // cancel before the answer concerns the handler (an abort builds a DOMException, stack and all)
    let answered = false;
    call.on("cancelled", () => {
      if (!answered) abort.abort();
    });
    void (async () => {
      try {
        checkUserAgent(call.metadata);
        const res = await fn(call.request, { metadata: call.metadata, signal: abort.signal });
        const ms = performance.now() - started;
        times?.record(name, ms);
        logger.debug(`rpc ${name} ok (${Math.round(ms)} ms)`);
        answered = true;
        callback(null, res);
      } catch (err) {
        const ms = performance.now() - started;
        times?.record(name, ms);
        const e = toServiceError(err);
        logger.debug(`rpc ${name} failed (${Math.round(ms)} ms): ${GrpcStatus[e.code] ?? e.code} ${e.details}`);
        answered = true;
        callback(e, null);
      }
    })();
  };
}

/** Wraps an async-generator server-streaming handler; the stream ends when the generator does. */
export function serverStream<Req, Res>(
  name: string,
  logger: Logger,
  shutdown: AbortSignal,
  fn: (req: Req, ctx: CallContext) => AsyncIterable<Res>,
): handleServerStreamingCall<Req, Res> {
  return (call: ServerWritableStream<Req, Res>) => {
    const abort = new AbortController();
    const stop = () => abort.abort();
    call.on("cancelled", stop);
    shutdown.addEventListener("abort", stop, { once: true });
    void (async () => {
      logger.debug(`rpc ${name} stream opened`);
      try {
        checkUserAgent(call.metadata);
        for await (const item of fn(call.request, { metadata: call.metadata, signal: abort.signal })) {
          if (abort.signal.aborted) break;
          call.write(item);
        }
        call.end();
        logger.debug(`rpc ${name} stream ended`);
      } catch (err) {
        const e = toServiceError(err);
        logger.debug(`rpc ${name} stream failed: ${e.details}`);
        call.emit("error", e);
      } finally {
        shutdown.removeEventListener("abort", stop);
      }
    })();
  };
}

/**
 * A complete service implementation: every method of `definition` gets its handler from
 * `handlers`, or an UNIMPLEMENTED answer naming the method (features this server does not offer).
 */
export function serviceImpl(
  definition: Record<string, { responseStream: boolean }>,
  handlers: Record<string, unknown>,
  logger: Logger,
  shutdown: AbortSignal,
): UntypedServiceImplementation {
  const impl: Record<string, unknown> = {};
  for (const [method, def] of Object.entries(definition)) {
    const text = `${method} is not supported by the tender reference server`;
    impl[method] =
      handlers[method] ??
      (def.responseStream
        ? serverStream(method, logger, shutdown, () => failing(new UnimplementedError(text)))
        : unary(method, logger, () => {
            throw new UnimplementedError(text);
          }));
  }
  return impl as UntypedServiceImplementation;
}

// eslint-disable-next-line require-yield
async function* failing(err: Error): AsyncGenerator<never> {
  throw err;
}
