/**
 * A gRPC proxy in front of the reference Ark server that injects faults for tests: it serves the
 * public services (`ArkService`, `MailboxService`, `Health`) on its own port and forwards every
 * call as raw bytes to the server, with the request's metadata, answering the server's messages,
 * headers, status and trailers unchanged — unless an armed fault (see `fault-rules.ts`) drops,
 * refuses or delays the call, or alters the one message it is about. A wallet pointed at the
 * proxy's URL talks to the server as usual while no fault is armed.
 *
 * @example
 * ```ts
 * const proxy = await startFaultProxy({ upstream: ark.url });
 * proxy.faults.arm({ kind: "drop", method: "PostRecoveryVtxoIds" });
 * // a wallet created with ark_server = proxy.url now fails its recovery backups
 * await proxy.stop();
 * ```
 */
import {
  Client, Metadata, Server, ServerCredentials, credentials, status as GrpcStatus,
  type ServerUnaryCall, type ServerWritableStream, type ServiceDefinition, type ServiceError, type UntypedServiceImplementation, type sendUnaryData,
} from "@grpc/grpc-js";
import { ArkServiceService, HealthService, MailboxServiceService } from "@tender/ark-grpc";
import { silentLogger, type Logger } from "@tender/core";
import { FaultSet, injectedIdBytes, type ArmedFault } from "./fault-rules.js";
import { FaultApplicationError, readMailboxId, requestVtxoIds, withInjectedRecoveryIds, withInvalidSignature } from "./message-faults.js";

/** Message size limit, as the server's ports. */
const MAX_MESSAGE_BYTES = 64 * 1024 * 1024;

const RAW = { serialize: (b: Buffer) => b, deserialize: (b: Buffer) => b };

/** The forwarded services: their methods by name, with path and kind. */
const FORWARDED: readonly Record<string, { path: string; requestStream: boolean; responseStream: boolean }>[] = [ArkServiceService, MailboxServiceService, HealthService];

/** The method name of a gRPC path (`/pkg.Service/Method` → `Method`). */
const methodOf = (path: string): string => path.slice(path.lastIndexOf("/") + 1);

/** Every method name the proxy forwards. */
export const FORWARDED_METHODS: readonly string[] = FORWARDED.flatMap((s) => Object.values(s).map((d) => methodOf(d.path)));

/** Options of {@link startFaultProxy}. */
export interface FaultProxyOptions {
  /** The server's public URL (`http://127.0.0.1:<port>`). */
  readonly upstream: string;
  /** Port on 127.0.0.1; 0 (default) picks a free one. */
  readonly port?: number;
  /** Receives one line per fault that fired. */
  readonly logger?: Logger;
}

/** A running proxy. */
export interface FaultProxy {
  /** `http://127.0.0.1:<port>`: give it to wallets as their Ark server. */
  readonly url: string;
  /** The armed faults (arm, disarm, list). */
  readonly faults: FaultSet;
  /** Stops listening and closes the upstream connection. */
  stop(): Promise<void>;
}

const serviceError = (code: GrpcStatus, details: string): Partial<ServiceError> => ({ code, details, metadata: new Metadata() });

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** Starts the proxy on 127.0.0.1. */
export async function startFaultProxy(opts: FaultProxyOptions): Promise<FaultProxy> {
  const logger = opts.logger ?? silentLogger;
  const faults = new FaultSet(FORWARDED_METHODS);
  const upstream = new Client(new URL(opts.upstream).host, credentials.createInsecure(), {
    "grpc.max_receive_message_length": MAX_MESSAGE_BYTES, "grpc.max_send_message_length": MAX_MESSAGE_BYTES,
  });
  const fired = (f: ArmedFault, method: string) => {
    f.hits++;
    logger.info(`fault proxy: ${f.kind} fault ${f.id} fired on ${method}`);
  };

  /**
   * What happens to a call before it is forwarded: a drop or refusal answers it (returned), a
   * delay waits. Faults with a VTXO filter fire only for requests naming that VTXO.
   */
  const before = async (method: string, request: Buffer): Promise<{ answer: Buffer } | { error: Partial<ServiceError> } | undefined> => {
    let named: string[] | undefined;
    const matches = (f: { method: string; vtxo?: string }) => {
      if (f.method !== method) return false;
      if (f.vtxo === undefined) return true;
      named ??= requestVtxoIds(method, request);
      return named.includes(f.vtxo);
    };
    for (const f of faults.of("delay")) {
      if (!matches(f)) continue;
      fired(f, method);
      await sleep(f.ms);
    }
    for (const f of faults.of("refuse")) {
      if (!matches(f)) continue;
      fired(f, method);
      return { error: serviceError(GrpcStatus.INVALID_ARGUMENT, `${method} refused by the fault proxy`) };
    }
    for (const f of faults.of("drop")) {
      if (!matches(f)) continue;
      fired(f, method);
      return f.answer === "ok" ? { answer: Buffer.alloc(0) } : { error: serviceError(GrpcStatus.UNAVAILABLE, `${method} dropped by the fault proxy`) };
    }
    return undefined;
  };

  /** The server's answer as the armed faults alter it. */
  const after = (method: string, request: Buffer, response: Buffer): Buffer => {
    let out = response;
    if (method === "ReadMailbox") {
      const mailbox = readMailboxId(request);
      for (const f of faults.of("inject-recovery-ids")) {
        if (f.mailbox !== undefined && f.mailbox !== mailbox) continue;
        fired(f, method);
        out = withInjectedRecoveryIds(request, out, injectedIdBytes(f));
      }
    }
    if (method === "GetVtxo") {
      const [id] = requestVtxoIds(method, request);
      for (const f of faults.of("invalid-signature")) {
        if (f.vtxo !== id) continue;
        fired(f, method);
        out = withInvalidSignature(out);
      }
    }
    return out;
  };

  const unaryHandler = (path: string) => (call: ServerUnaryCall<Buffer, Buffer>, callback: sendUnaryData<Buffer>) => {
    const method = methodOf(path);
    void (async () => {
      try {
        const early = await before(method, call.request);
        if (early) return "error" in early ? callback(early.error as ServiceError, null) : callback(null, early.answer);
        const up = upstream.makeUnaryRequest(path, RAW.serialize, RAW.deserialize, call.request, call.metadata, { deadline: call.getDeadline() }, (err, res) => {
          if (err) return callback(err, null);
          try {
            callback(null, after(method, call.request, res!));
          } catch (e) {
            const text = e instanceof FaultApplicationError ? e.message : `fault proxy: ${e instanceof Error ? e.message : String(e)}`;
            callback(serviceError(GrpcStatus.INTERNAL, text) as ServiceError, null);
          }
        });
        up.on("metadata", (md) => call.sendMetadata(md));
        call.on("cancelled", () => up.cancel());
      } catch (e) {
        callback(serviceError(GrpcStatus.INTERNAL, `fault proxy: ${e instanceof Error ? e.message : String(e)}`) as ServiceError, null);
      }
    })();
  };

  const streamHandler = (path: string) => (call: ServerWritableStream<Buffer, Buffer>) => {
    const method = methodOf(path);
    void (async () => {
      const early = await before(method, call.request).catch((e: unknown) => ({ error: serviceError(GrpcStatus.INTERNAL, String(e)) }));
      if (early) {
        if ("error" in early) call.emit("error", early.error);
        else call.end();
        return;
      }
      const up = upstream.makeServerStreamRequest(path, RAW.serialize, RAW.deserialize, call.request, call.metadata, { deadline: call.getDeadline() });
      up.on("metadata", (md) => call.sendMetadata(md));
      up.on("data", (msg: Buffer) => call.write(msg));
      up.on("error", (err: ServiceError) => {
        if (!call.cancelled) call.emit("error", err);
      });
      up.on("end", () => call.end());
      call.on("cancelled", () => up.cancel());
    })();
  };

  const grpc = new Server({ "grpc.max_receive_message_length": MAX_MESSAGE_BYTES, "grpc.max_send_message_length": MAX_MESSAGE_BYTES });
  for (const service of FORWARDED) {
    const definition: Record<string, ServiceDefinition[string]> = {};
    const impl: UntypedServiceImplementation = {};
    for (const [name, d] of Object.entries(service)) {
      definition[name] = {
        path: d.path, requestStream: d.requestStream, responseStream: d.responseStream,
        requestSerialize: RAW.serialize, requestDeserialize: RAW.deserialize, responseSerialize: RAW.serialize, responseDeserialize: RAW.deserialize,
      };
      impl[name] = d.responseStream ? streamHandler(d.path) : unaryHandler(d.path);
    }
    grpc.addService(definition as ServiceDefinition, impl);
  }
  const port = await new Promise<number>((resolve, reject) =>
    grpc.bindAsync(`127.0.0.1:${opts.port ?? 0}`, ServerCredentials.createInsecure(), (err, p) => (err ? reject(err) : resolve(p))),
  );
  return {
    url: `http://127.0.0.1:${port}`,
    faults,
    stop: () =>
      new Promise<void>((resolve) => {
        const timer = setTimeout(() => {
          grpc.forceShutdown();
          upstream.close();
          resolve();
        }, 2000);
        grpc.tryShutdown(() => {
          clearTimeout(timer);
          upstream.close();
          resolve();
        });
      }),
  };
}
