/**
 * An in-process grpc-js Ark server built from our generated service definitions, scripted per
 * test. It records every call's method and metadata, and can be stopped and restarted on the
 * same port.
 */
import * as grpc from "@grpc/grpc-js";
import {
  ArkServerClient,
  type ArkServerClientOptions,
  ArkInfo,
  ArkServiceService,
  type ArkServiceServer,
  BoardFees,
  FeeSchedule,
  HandshakeResponse,
  LightningReceiveFees,
  LightningSendFees,
  MailboxServiceService,
  type MailboxRequest,
  type MailboxServiceServer,
  OffboardFees,
  PpmExpiryFeeEntry,
  RefreshFees,
} from "../src/index.js";

/** One recorded call. */
export interface RecordedCall {
  readonly method: string;
  readonly pver: string | undefined;
  readonly userAgent: string | undefined;
  /** Deadline the client sent, in ms from the moment the call arrived (Infinity when none). */
  readonly deadlineInMs: number;
}

export const SERVER_PUBKEY = new Uint8Array([0x02, ...Array.from({ length: 32 }, (_, i) => i + 1)]);
export const MAILBOX_PUBKEY = new Uint8Array([0x03, ...Array.from({ length: 32 }, (_, i) => 0xa0 + i)]);

/** A valid regtest ArkInfo with every field set to a distinct value. */
export function sampleArkInfo(over: Partial<ArkInfo> = {}): ArkInfo {
  return ArkInfo.create({
    network: "regtest",
    serverPubkey: SERVER_PUBKEY,
    roundIntervalSecs: 3600,
    nbRoundNonces: 3,
    vtxoExitDelta: 12,
    vtxoExpiryDelta: 144,
    htlcSendExpiryDelta: 20,
    htlcExpiryDelta: 6,
    maxVtxoAmount: 21_000_000_00_000_000n,
    requiredBoardConfirmations: 2,
    maxUserInvoiceCltvDelta: 200,
    minBoardAmount: 20_000n,
    offboardFeerateSatVkb: 1_000n,
    lnReceiveAntiDosRequired: true,
    mailboxPubkey: MAILBOX_PUBKEY,
    fees: FeeSchedule.create({
      board: BoardFees.create({ minFeeSat: 330n, baseFeeSat: 100n, ppm: 1_000n }),
      offboard: OffboardFees.create({
        baseFeeSat: 200n,
        fixedAdditionalVb: 100n,
        ppmExpiryTable: [PpmExpiryFeeEntry.create({ expiryBlocksThreshold: 10, ppm: 100n }), PpmExpiryFeeEntry.create({ expiryBlocksThreshold: 50, ppm: 500n })],
      }),
      refresh: RefreshFees.create({ baseFeeSat: 50n, ppmExpiryTable: [] }),
      lightningReceive: LightningReceiveFees.create({ baseFeeSat: 10n, ppm: 2_000n }),
      lightningSend: LightningSendFees.create({ minFeeSat: 5n, baseFeeSat: 7n, ppmExpiryTable: [PpmExpiryFeeEntry.create({ expiryBlocksThreshold: 0, ppm: 3_000n })] }),
    }),
    maxVtxoExitDepth: 20,
    maxOffboardInputs: 100,
    vtxoLifetime: 144,
    tosLink: "https://example.invalid/tos",
    ...over,
  });
}

/** Handlers a test scripts; anything not given falls back to a healthy default or UNIMPLEMENTED. */
export interface FakeHandlers {
  ark?: Partial<ArkServiceServer>;
  mailbox?: Partial<MailboxServiceServer>;
  /**
   * Mailbox handlers that answer pre-encoded bytes (`ReadMailbox` a `MailboxMessages`,
   * `SubscribeMailbox` one `MailboxMessage` per write), for messages our `.proto` cannot express.
   */
  rawMailbox?: { readMailbox?: grpc.handleUnaryCall<MailboxRequest, Uint8Array>; subscribeMailbox?: grpc.handleServerStreamingCall<MailboxRequest, Uint8Array> };
}

/** Servers started and not yet stopped, so a suite's fixture can stop whatever a test left running. */
const running = new Set<FakeArkServer>();

export class FakeArkServer {
  readonly calls: RecordedCall[] = [];
  private server: grpc.Server | undefined;
  port = 0;
  /** Serve TLS with this key pair instead of plaintext. */
  tls: { cert: Buffer; key: Buffer } | undefined;

  constructor(public handlers: FakeHandlers = {}) {}

  get url(): string {
    return this.tls ? `https://localhost:${this.port}` : `http://127.0.0.1:${this.port}`;
  }

  /** Calls recorded for one method name (e.g. `Handshake`). */
  callsTo(method: string): RecordedCall[] {
    return this.calls.filter((c) => c.method === method);
  }

  async start(): Promise<this> {
    const server = new grpc.Server();
    const ark: Partial<ArkServiceServer> = {
      handshake: (_call, cb) => cb(null, HandshakeResponse.create({ minProtocolVersion: 4n, maxProtocolVersion: 5n })),
      getArkInfo: (_call, cb) => cb(null, sampleArkInfo()),
      ...this.handlers.ark,
    };
    server.addService(ArkServiceService, this.recording(ArkServiceService, ark));
    const raw = this.handlers.rawMailbox;
    const mailboxDef = raw
      ? {
          ...MailboxServiceService,
          readMailbox: { ...MailboxServiceService.readMailbox, responseSerialize: (b: Uint8Array) => Buffer.from(b) },
          subscribeMailbox: { ...MailboxServiceService.subscribeMailbox, responseSerialize: (b: Uint8Array) => Buffer.from(b) },
        }
      : MailboxServiceService;
    server.addService(mailboxDef as grpc.ServiceDefinition, this.recording(MailboxServiceService, { ...this.handlers.mailbox, ...raw }));
    this.port = await new Promise<number>((resolve, reject) =>
      server.bindAsync(`127.0.0.1:${this.port}`, this.credentials(), (err, port) => (err ? reject(err) : resolve(port))),
    );
    this.server = server;
    running.add(this);
    return this;
  }

  private credentials(): grpc.ServerCredentials {
    return this.tls ? grpc.ServerCredentials.createSsl(null, [{ cert_chain: this.tls.cert, private_key: this.tls.key }]) : grpc.ServerCredentials.createInsecure();
  }

  /** Kills the server and every open call at once. */
  stop(): void {
    this.server?.forceShutdown();
    this.server = undefined;
    running.delete(this);
  }

  async restart(): Promise<void> {
    this.stop();
    await this.start();
  }

  private recording(def: Record<string, { path: string }>, impl: object): grpc.UntypedServiceImplementation {
    const out: grpc.UntypedServiceImplementation = {};
    for (const [name, fn] of Object.entries(impl) as [string, (...args: unknown[]) => unknown][]) {
      const path = def[name]?.path ?? name;
      out[name] = ((call: { metadata: grpc.Metadata; getDeadline(): grpc.Deadline }, ...rest: unknown[]) => {
        const deadline = call.getDeadline();
        const ms = deadline instanceof Date ? deadline.getTime() : deadline;
        this.calls.push({
          method: path.slice(path.lastIndexOf("/") + 1),
          pver: call.metadata.get("pver")[0]?.toString(),
          userAgent: call.metadata.get("x-user-agent")[0]?.toString(),
          deadlineInMs: ms === Infinity ? Infinity : ms - Date.now(),
        });
        return fn(call, ...rest);
      }) as grpc.UntypedHandleCall;
    }
    return out;
  }
}

/** A gRPC error with a status, message and optional `identifiers` trailer. */
export function grpcError(code: grpc.status, details: string, identifiers?: string): Partial<grpc.StatusObject> {
  const metadata = new grpc.Metadata();
  if (identifiers !== undefined) metadata.set("identifiers", identifiers);
  return { code, details, metadata };
}

/** Polls `cond` every 10 ms until it holds or `timeoutMs` passes. */
export async function until(cond: () => boolean, timeoutMs = 3_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!cond()) {
    if (Date.now() > end) throw new Error("condition not met in time");
    await new Promise((r) => setTimeout(r, 10));
  }
}

/**
 * The fake server / client lifecycle of a suite (call it inside `describe`): after each test every
 * client made with {@link client} (or given to {@link track}) is closed and every started fake
 * server is stopped.
 */
export function useFakeServers(): {
  server(handlers?: FakeHandlers): FakeArkServer;
  start(handlers?: FakeHandlers): Promise<FakeArkServer>;
  client(opts: ArkServerClientOptions): ArkServerClient;
  track<T extends { close(): void }>(closable: T): T;
} {
  const closables: { close(): void }[] = [];
  afterEach(() => {
    for (const c of closables.splice(0)) c.close();
    for (const s of [...running]) s.stop();
  });
  const track = <T extends { close(): void }>(c: T): T => {
    closables.push(c);
    return c;
  };
  return {
    server: (handlers) => new FakeArkServer(handlers),
    start: (handlers) => new FakeArkServer(handlers).start(),
    client: (opts) => track(new ArkServerClient(opts)),
    track,
  };
}

/** Fast back-off for tests. */
export const FAST_BACKOFF = { initialMs: 20, maxMs: 100, random: () => 0.5 };
