/**
 * `ArkServerClient`: the wallet's connection to an Ark server over gRPC, with bark's client rules.
 *
 * | Concern | Behaviour |
 * |---|---|
 * | transport | one lazily opened channel; plaintext for `http://`, TLS for `https://` |
 * | handshake | `Handshake` without `pver`, negotiate (client speaks 5), then `GetArkInfo` with `pver` |
 * | identity | pins `server_pubkey` + `mailbox_pubkey`; a change is a typed error with bark's text |
 * | metadata | `pver` and `x-user-agent` on every call after the handshake |
 * | deadlines | 10 min per unary call, 1 h per stream, unless the caller passes `deadlineMs` |
 * | failures | typed {@link ArkServerError}s; `UNAVAILABLE` drops the channel so the next call reconnects |
 * | liveness | `connected` flag, `heartbeat()` (re-handshake), `startHeartbeat()`, `connectWithBackoff()` |
 * | streams | `subscribeMailbox` / `subscribeRounds` resume from their checkpoint after a drop |
 */
import type * as grpc from "@grpc/grpc-js";
import { TENDER_VERSION } from "@tender/core";
import { ArkServiceService, type ArkInfo, HandshakeRequest } from "./gen/bark_server.js";
import { MailboxRequest } from "./gen/mailbox_server.js";
import { Empty } from "./gen/core.js";
import { checkPinnedKeys, type NetworkName, type PinnedServerKeys, validateArkInfo } from "./ark-info.js";
import { Backoff, type BackoffPolicy, sleep } from "./backoff.js";
import { ArkClientClosedError, ArkClientError, ArkServerConnectionLostError, ArkServerCancelledError, ArkServerError, ArkServerInternalError, ArkServerUnavailableError, ArkServerUrlError } from "./errors.js";
import { ServerChannel } from "./channel.js";
import { ReceivingMailboxService } from "./mailbox-codec.js";
import { CLIENT_PROTOCOL_VERSIONS, isValidUserAgent, negotiateProtocolVersion, type VersionRange } from "./metadata.js";
import type { ArkService, MailboxService, MethodDef, RequestOf, ResponseOf, StreamMethod, UnaryMethod } from "./service-types.js";
import { MailboxSubscription, RoundSubscription, type MailboxSubscriptionOptions, type RoundSubscriptionOptions } from "./streams.js";
import { parseServerUrl, type ServerTarget } from "./url.js";

/** Minimal logger (the kernel's `Logger` fits). */
export interface ArkClientLogger {
  debug(msg: string): void;
  info(msg: string): void;
  warn(msg: string): void;
}

/** Options of {@link ArkServerClient}; only `url` and `network` are required. */
export interface ArkServerClientOptions {
  /** `http://host:port` (plaintext) or `https://host[:port]` (TLS); no scheme means https. */
  readonly url: string;
  /** The wallet's network; `ArkInfo.network` must equal it. */
  readonly network: NetworkName;
  /** Keys pinned at wallet creation; absent = pin on the first successful connection. */
  readonly pinnedKeys?: PinnedServerKeys;
  /** Called once when keys get pinned on a first connection, to persist them. Awaited before `connect` resolves. */
  readonly onKeysPinned?: (keys: PinnedServerKeys) => void | Promise<void>;
  /** `x-user-agent` value (default `tender/<version>`). */
  readonly userAgent?: string;
  /** `HandshakeRequest.bark_version` (default `tender <version>`). */
  readonly clientVersion?: string;
  /** Protocol versions the client speaks (default 5..5). */
  readonly protocolVersions?: VersionRange;
  /** Default deadline of unary calls in ms (default 10 min). */
  readonly unaryDeadlineMs?: number;
  /** Default deadline of streams in ms (default 1 h). */
  readonly streamDeadlineMs?: number;
  /** Deadline of heartbeat handshakes in ms (default 10 s). */
  readonly heartbeatDeadlineMs?: number;
  /** Reconnect back-off (default 1 s doubling to 30 s, equal jitter). */
  readonly backoff?: BackoffPolicy;
  /** Extra grpc-js channel options (override the defaults below). */
  readonly channelOptions?: grpc.ChannelOptions;
  /** TLS roots for `https://` servers (default: the platform store). */
  readonly rootCerts?: Buffer;
  readonly logger?: ArkClientLogger;
}

/** Per-call options. */
export interface CallOptions {
  /** Deadline in ms from now (default: the client's unary/stream deadline). */
  readonly deadlineMs?: number;
}

/** What a successful connection established. */
export interface ServerSession {
  /** Negotiated protocol version, sent as `pver`. */
  readonly protocolVersion: number;
  /** The server's supported range. */
  readonly serverVersions: VersionRange;
  /** Public service announcement from the handshake, if any. */
  readonly psa: string | undefined;
  /** Validated server info fetched at connect time. */
  readonly arkInfo: ArkInfo;
}

const DEFAULT_UNARY_DEADLINE_MS = 10 * 60_000;
const DEFAULT_STREAM_DEADLINE_MS = 60 * 60_000;

/** The wallet's Ark server client. See the module table above. */
export class ArkServerClient {
  private readonly target: ServerTarget;
  private readonly channel: ServerChannel;
  private session: ServerSession | undefined;
  private connecting: Promise<ServerSession> | undefined;
  private pinned: PinnedServerKeys | undefined;
  private lastFailure: unknown;

  constructor(private readonly opts: ArkServerClientOptions) {
    this.target = parseServerUrl(opts.url);
    const userAgent = opts.userAgent ?? `tender/${TENDER_VERSION}`;
    if (!isValidUserAgent(userAgent)) throw new ArkServerUrlError(opts.url, `invalid user agent ${JSON.stringify(userAgent)} (expected <name>/<version>)`);
    this.channel = new ServerChannel({
      target: this.target,
      userAgent,
      channelOptions: opts.channelOptions,
      rootCerts: opts.rootCerts,
      onConnectionLost: () => {
        if (!this.session) return;
        this.opts.logger?.debug(`connection to Ark server ${this.target.address} lost`);
        this.markDisconnected(new ArkServerConnectionLostError(this.target.address), false);
      },
    });
    this.pinned = opts.pinnedKeys;
  }

  /** Whether the last connection attempt, heartbeat or call found the server reachable and valid. */
  get connected(): boolean {
    return this.session !== undefined;
  }

  /** The current session (negotiated version, PSA, Ark info), if connected. */
  get currentSession(): ServerSession | undefined {
    return this.session;
  }

  /** The keys pinned so far (from options or from the first connection). */
  get pinnedKeys(): PinnedServerKeys | undefined {
    return this.pinned;
  }

  /** Why the client is disconnected, if it failed (for `connected` reporting and logs). */
  get lastError(): unknown {
    return this.lastFailure;
  }

  /**
   * Connects if needed: handshake, version negotiation, `GetArkInfo`, validation and pinning.
   * Concurrent callers share one attempt. Throws the typed failure and leaves `connected` false.
   */
  connect(): Promise<ServerSession> {
    if (this.channel.isClosed) return Promise.reject(new ArkClientClosedError());
    if (this.session) return Promise.resolve(this.session);
    this.connecting ??= this.establish().finally(() => {
      this.connecting = undefined;
    });
    return this.connecting;
  }

  /**
   * Re-runs handshake, `GetArkInfo`, its checks and the pin comparison now (for example to pick
   * up a new fee schedule), replacing the session on success. On failure the client is disconnected.
   */
  refresh(): Promise<ServerSession> {
    if (this.channel.isClosed) return Promise.reject(new ArkClientClosedError());
    this.connecting ??= this.establish().finally(() => {
      this.connecting = undefined;
    });
    return this.connecting;
  }

  /**
   * Connects, retrying transient failures with exponential back-off until it succeeds, `signal`
   * aborts (rejects with the last failure) or `maxAttempts` is reached. Version mismatches,
   * changed keys and invalid Ark info are not retried.
   */
  async connectWithBackoff(opts: { signal?: AbortSignal; maxAttempts?: number } = {}): Promise<ServerSession> {
    const backoff = new Backoff(this.opts.backoff);
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.connect();
      } catch (e) {
        if (!isRetryableConnectFailure(e) || opts.signal?.aborted || (opts.maxAttempts !== undefined && attempt >= opts.maxAttempts)) throw e;
        const wait = backoff.next();
        this.opts.logger?.debug(`Ark server not reachable (${errorText(e)}); retrying in ${wait} ms`);
        await sleep(wait, opts.signal);
        if (opts.signal?.aborted) throw e;
      }
    }
  }

  /**
   * Heartbeat (bark's `check_connection`): re-runs the handshake with `pver` when connected, or a
   * full connect when not. Never throws; returns the resulting `connected` state.
   */
  async heartbeat(): Promise<boolean> {
    if (this.channel.isClosed) return false;
    try {
      if (!this.session) {
        await this.connect();
        return true;
      }
      const session = this.session;
      const res = await this.channel.unary(ArkServiceService.handshake, HandshakeRequest.create({ barkVersion: this.clientVersion() }), session.protocolVersion, this.opts.heartbeatDeadlineMs ?? 10_000);
      const server = { min: Number(res.minProtocolVersion), max: Number(res.maxProtocolVersion) };
      if (session.protocolVersion < server.min || session.protocolVersion > server.max) negotiateProtocolVersion(this.clientVersions(), server);
      return true;
    } catch (e) {
      this.markDisconnected(e, true);
      return false;
    }
  }

  /** Runs {@link heartbeat} every `intervalMs` (default 1 s) until the returned `stop` is called. */
  startHeartbeat(intervalMs = 1_000): { stop(): void } {
    let stopped = false;
    let timer: NodeJS.Timeout | undefined;
    const tick = async () => {
      await this.heartbeat();
      if (!stopped) {
        timer = setTimeout(tick, intervalMs);
        timer.unref();
      }
    };
    timer = setTimeout(tick, 0);
    timer.unref();
    return {
      stop() {
        stopped = true;
        if (timer) clearTimeout(timer);
      },
    };
  }

  /** Calls a unary `bark_server.ArkService` method (connecting first if needed). */
  ark<K extends UnaryMethod<ArkService>>(method: K, request: RequestOf<ArkService, K>, opts?: CallOptions): Promise<ResponseOf<ArkService, K>> {
    return this.unary(ArkServiceService[method] as unknown as MethodDef<RequestOf<ArkService, K>, ResponseOf<ArkService, K>>, request, opts);
  }

  /**
   * Calls a unary `mailbox_server.MailboxService` method (connecting first if needed). A message
   * of a kind unknown to this client keeps its bytes (see `mailbox-codec.ts`).
   */
  mailbox<K extends UnaryMethod<MailboxService>>(method: K, request: RequestOf<MailboxService, K>, opts?: CallOptions): Promise<ResponseOf<MailboxService, K>> {
    return this.unary(ReceivingMailboxService[method] as unknown as MethodDef<RequestOf<MailboxService, K>, ResponseOf<MailboxService, K>>, request, opts);
  }

  /** The Ark info fetched at connect time (connecting first if needed). */
  async arkInfo(): Promise<ArkInfo> {
    return (await this.connect()).arkInfo;
  }

  /**
   * Opens one raw server stream of ArkService (`subscribeRounds`) or MailboxService
   * (`subscribeMailbox`) with `pver` and the stream deadline. Prefer the resumable
   * {@link subscribeMailbox} / {@link subscribeRounds}.
   */
  async openStream<K extends StreamMethod<ArkService>>(service: "ark", method: K, request: RequestOf<ArkService, K>, opts?: CallOptions): Promise<grpc.ClientReadableStream<ResponseOf<ArkService, K>>>;
  async openStream<K extends StreamMethod<MailboxService>>(service: "mailbox", method: K, request: RequestOf<MailboxService, K>, opts?: CallOptions): Promise<grpc.ClientReadableStream<ResponseOf<MailboxService, K>>>;
  async openStream(service: "ark" | "mailbox", method: string, request: unknown, opts?: CallOptions): Promise<grpc.ClientReadableStream<unknown>> {
    const def = (service === "ark" ? ArkServiceService : ReceivingMailboxService)[method as never] as MethodDef<unknown, unknown>;
    const session = await this.connect();
    return this.channel.serverStream(def, request, session.protocolVersion, opts?.deadlineMs ?? this.opts.streamDeadlineMs ?? DEFAULT_STREAM_DEADLINE_MS);
  }

  /**
   * Subscribes to a wallet mailbox from `checkpoint`, resuming from the last processed
   * checkpoint after every drop (back-off, fresh authorization each time). Gives up after
   * `maxReconnectsWithoutProgress` (default 5) drops without a delivered message and then marks
   * the client disconnected, so the heartbeat reconnects and the owner subscribes again.
   */
  subscribeMailbox(opts: Omit<MailboxSubscriptionOptions, "open">): MailboxSubscription {
    const sub: MailboxSubscription = new MailboxSubscription({
      backoff: this.opts.backoff,
      ...opts,
      open: async (checkpoint) =>
        this.openStream("mailbox", "subscribeMailbox", MailboxRequest.create({ mailboxId: opts.mailboxId, authorization: await opts.authorization(), checkpoint })),
      onDrop: (err, waitMs) => {
        this.noteStreamFailure("mailbox", err, waitMs);
        opts.onDrop?.(err, waitMs);
      },
    });
    void sub.done.then((end) => {
      if (end.reason !== "gave-up") return;
      this.opts.logger?.warn(`mailbox subscription gave up after repeated reconnects without a message: ${errorText(end.lastError)}`);
      this.markDisconnected(end.lastError, false);
    });
    return sub;
  }

  /** Subscribes to round events, resubscribing after drops and skipping events already delivered. */
  subscribeRounds(opts: Omit<RoundSubscriptionOptions, "open">): RoundSubscription {
    return new RoundSubscription({
      backoff: this.opts.backoff,
      ...opts,
      open: () => this.openStream("ark", "subscribeRounds", Empty.create()),
      onDrop: (err, waitMs) => {
        this.noteStreamFailure("round event", err, waitMs);
        opts.onDrop?.(err, waitMs);
      },
    });
  }

  /** Closes the channel; later calls fail with {@link ArkClientClosedError}. */
  close(): void {
    this.session = undefined;
    this.channel.close();
  }

  // ---- internals ----

  private async establish(): Promise<ServerSession> {
    try {
      const hs = await this.channel.unary(ArkServiceService.handshake, HandshakeRequest.create({ barkVersion: this.clientVersion() }), undefined, this.opts.unaryDeadlineMs ?? DEFAULT_UNARY_DEADLINE_MS);
      const serverVersions = { min: Number(hs.minProtocolVersion), max: Number(hs.maxProtocolVersion) };
      const protocolVersion = negotiateProtocolVersion(this.clientVersions(), serverVersions);
      if (hs.psa !== undefined && hs.psa !== "") this.opts.logger?.info(`Message from the Ark server: ${hs.psa}`);
      const arkInfo = await this.channel.unary(ArkServiceService.getArkInfo, Empty.create(), protocolVersion, this.opts.unaryDeadlineMs ?? DEFAULT_UNARY_DEADLINE_MS);
      validateArkInfo(arkInfo, this.opts.network);
      if (this.pinned) {
        checkPinnedKeys(this.pinned, arkInfo);
      } else {
        const keys = { serverPubkey: arkInfo.serverPubkey, mailboxPubkey: arkInfo.mailboxPubkey };
        await this.opts.onKeysPinned?.(keys);
        this.pinned = keys;
      }
      if (this.channel.isClosed) throw new ArkClientClosedError();
      this.session = { protocolVersion, serverVersions, psa: hs.psa, arkInfo };
      this.lastFailure = undefined;
      this.opts.logger?.debug(`connected to Ark server ${this.target.address} (protocol version ${protocolVersion})`);
      return this.session;
    } catch (e) {
      this.markDisconnected(e, true);
      throw e;
    }
  }

  private async unary<Req, Res>(def: MethodDef<Req, Res>, request: Req, opts?: CallOptions): Promise<Res> {
    const session = await this.connect();
    try {
      return await this.channel.unary(def, request, session.protocolVersion, opts?.deadlineMs ?? this.opts.unaryDeadlineMs ?? DEFAULT_UNARY_DEADLINE_MS);
    } catch (e) {
      if (isTransportFailure(e)) this.markDisconnected(e, true);
      throw e;
    }
  }

  private noteStreamFailure(stream: string, err: unknown, waitMs: number): void {
    if (isTransportFailure(err)) this.markDisconnected(err, true);
    const quiet = err === undefined || (err instanceof ArkServerInternalError && err.isStreamReset);
    const text = `${stream} stream ${err === undefined ? "ended" : `dropped: ${errorText(err)}`}; resubscribing in ${waitMs} ms`;
    if (quiet) this.opts.logger?.debug(text);
    else this.opts.logger?.warn(text);
  }

  /** Forgets the session; with `dropChannel`, also closes the channel so the next call reconnects afresh. */
  private markDisconnected(err: unknown, dropChannel: boolean): void {
    this.session = undefined;
    this.lastFailure = err;
    if (dropChannel && (err instanceof ArkServerError || !(err instanceof ArkClientError))) this.channel.drop();
  }

  private clientVersions(): VersionRange {
    return this.opts.protocolVersions ?? CLIENT_PROTOCOL_VERSIONS;
  }

  private clientVersion(): string {
    return this.opts.clientVersion ?? `tender ${TENDER_VERSION}`;
  }
}

/** Whether a failed connect may succeed later (transport trouble rather than a refusal or a fatal check). */
export function isRetryableConnectFailure(e: unknown): boolean {
  return e instanceof ArkServerError && e.isTransient;
}

/** `UNAVAILABLE` (other than "update your wallet") or `CANCELLED` by the server: the connection is gone. */
function isTransportFailure(e: unknown): boolean {
  return (e instanceof ArkServerUnavailableError && !e.needsClientUpdate) || e instanceof ArkServerCancelledError;
}

function errorText(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

