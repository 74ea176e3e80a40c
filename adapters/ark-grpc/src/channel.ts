/**
 * `ServerChannel`: the gRPC channel to one Ark server and the raw calls over it. It opens lazily,
 * can be dropped (the next call opens a fresh one — how the client reconnects after the server
 * went away) and closed for good. Every call carries the given `pver`, the user agent and a deadline;
 * failures come back as typed {@link ArkServerError}s.
 */
import * as grpc from "@grpc/grpc-js";
import { ArkClientClosedError } from "./errors.js";
import { toArkServerError } from "./error-mapping.js";
import { callMetadata } from "./metadata.js";
import type { MethodDef } from "./service-types.js";
import type { ServerTarget } from "./url.js";

/** Default channel options: 64 MiB responses, HTTP/2 keep-alive every 20 s (dead after 60 s), also idle. */
export const DEFAULT_CHANNEL_OPTIONS: grpc.ChannelOptions = {
  "grpc.max_receive_message_length": 64 * 1024 * 1024,
  "grpc.keepalive_time_ms": 20_000,
  "grpc.keepalive_timeout_ms": 60_000,
  "grpc.keepalive_permit_without_calls": 1,
  "grpc.initial_reconnect_backoff_ms": 1_000,
  "grpc.max_reconnect_backoff_ms": 30_000,
};

/** How to open the channel. */
export interface ServerChannelOptions {
  readonly target: ServerTarget;
  readonly userAgent: string;
  readonly channelOptions?: grpc.ChannelOptions | undefined;
  /** TLS roots for https servers (default: the platform store). */
  readonly rootCerts?: Buffer | undefined;
  /**
   * Called when an established connection goes away (READY → any other state), even if grpc-js
   * reconnects by itself: whoever answers next may be another server, so its identity must be
   * checked again.
   */
  readonly onConnectionLost?: (() => void) | undefined;
}

/** The lazily opened, droppable channel to one server. */
export class ServerChannel {
  private client: grpc.Client | undefined;
  private closed = false;

  constructor(private readonly opts: ServerChannelOptions) {}

  /** One unary call. `pver` undefined = no header (only the first handshake on a channel). */
  unary<Req, Res>(def: MethodDef<Req, Res>, request: Req, pver: number | undefined, deadlineMs: number): Promise<Res> {
    let client: grpc.Client;
    try {
      client = this.open();
    } catch (e) {
      return Promise.reject(e);
    }
    return new Promise<Res>((resolve, reject) => {
      client.makeUnaryRequest(def.path, def.requestSerialize, def.responseDeserialize, request, this.metadata(pver), { deadline: Date.now() + deadlineMs }, (err, value) => {
        if (err) reject(toArkServerError(err, def.path));
        else if (value === undefined) reject(toArkServerError({ code: grpc.status.INTERNAL, details: "empty response" }, def.path));
        else resolve(value);
      });
    });
  }

  /** Opens one server stream. */
  serverStream<Req, Res>(def: MethodDef<Req, Res>, request: Req, pver: number, deadlineMs: number): grpc.ClientReadableStream<Res> {
    return this.open().makeServerStreamRequest(def.path, def.requestSerialize, def.responseDeserialize, request, this.metadata(pver), {
      deadline: Date.now() + deadlineMs,
    });
  }

  /** Closes the current connection; the next call opens a fresh channel. */
  drop(): void {
    const c = this.client;
    this.client = undefined;
    c?.close();
  }

  /** Closes the channel for good; later calls fail with {@link ArkClientClosedError}. */
  close(): void {
    this.closed = true;
    this.drop();
  }

  /** Whether {@link close} was called. */
  get isClosed(): boolean {
    return this.closed;
  }

  private open(): grpc.Client {
    if (this.closed) throw new ArkClientClosedError();
    if (!this.client) {
      const { target } = this.opts;
      const creds = target.tls ? grpc.credentials.createSsl(this.opts.rootCerts ?? null) : grpc.credentials.createInsecure();
      this.client = new grpc.Client(target.address, creds, { ...DEFAULT_CHANNEL_OPTIONS, ...this.opts.channelOptions });
      this.watch(this.client);
    }
    return this.client;
  }

  private watch(client: grpc.Client): void {
    const channel = client.getChannel();
    const next = (prev: grpc.connectivityState): void => {
      channel.watchConnectivityState(prev, Infinity, () => {
        if (this.client !== client) return;
        const now = channel.getConnectivityState(false);
        if (now === grpc.connectivityState.SHUTDOWN) return;
        if (prev === grpc.connectivityState.READY && now !== grpc.connectivityState.READY) this.opts.onConnectionLost?.();
        next(now);
      });
    };
    next(channel.getConnectivityState(false));
  }

  private metadata(pver: number | undefined): grpc.Metadata {
    return callMetadata({ pver, userAgent: this.opts.userAgent });
  }
}
