/**
 * Set-up of the round tests: a devnet node, the server over gRPC (test profile with short
 * sign-up and signing windows; rounds only when triggered), a funded and confirmed server
 * wallet, and clients (the gRPC port for rounds, the wallet kit for boards and arkoor).
 */
import { GrpcArkServer } from "@tender/ark-grpc";
import { createLogger, type LogLevel, type Logger } from "@tender/core";
import type { ArkInfo, RoundEvent, RoundSubscription } from "@tender/ark-protocol/server";
import type { Vtxo } from "@tender/ark-protocol";
import { DevnetNode } from "../../src/node/devnet-node.js";
import { startArkServer, type RunningArkServer } from "../../src/ark-server/start-ark-server.js";
import type { ArkServerConfig } from "../../src/ark-server/server-config.js";
import { grpcApi, grpcClient } from "./grpc-api.js";
import { RoundParticipant, type ParticipantOptions } from "./round-participant.js";
import { WalletKit, type ArkApi } from "./wallet-kit.js";

/** `ROUND_TEST_LOG=debug` prints the server's log lines while debugging a test; every fixture also keeps them in `logLines`. */
function fixtureLogger(lines: string[]): Logger {
  return createLogger({ terminalLevel: (process.env.ROUND_TEST_LOG as LogLevel | undefined) ?? "off", sink: (l) => lines.push(l) }, "ark-server");
}

/** Round events seen by one subscription, in order. */
export class EventRecorder {
  readonly events: RoundEvent[] = [];
  private readonly waiters: { pred: (e: RoundEvent) => boolean; resolve: (e: RoundEvent) => void }[] = [];
  private readonly sub: RoundSubscription;

  constructor(port: GrpcArkServer) {
    this.sub = port.subscribeRounds({
      onEvent: async (e) => {
        this.events.push(e);
        for (const w of [...this.waiters]) {
          if (!w.pred(e)) continue;
          this.waiters.splice(this.waiters.indexOf(w), 1);
          w.resolve(e);
        }
      },
    });
  }

  /** The first recorded or future event matching `pred`. */
  until(pred: (e: RoundEvent) => boolean, timeoutMs = 20_000): Promise<RoundEvent> {
    const seen = this.events.find(pred);
    if (seen) return Promise.resolve(seen);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error("timed out waiting for a round event")), timeoutMs);
      this.waiters.push({ pred, resolve: (e) => (clearTimeout(timer), resolve(e)) });
    });
  }

  stop(): Promise<unknown> {
    return this.sub.stop();
  }
}

/** Short windows: clients in process answer within milliseconds. */
export const FAST_ROUNDS: Partial<ArkServerConfig> = { roundSubmitTimeMs: 1500, roundSignTimeMs: 1500 };

/** A running server with helpers. */
export class RoundFixture {
  private readonly ports: GrpcArkServer[] = [];
  info!: ArkInfo;
  /** The server's log lines (debug level). */
  readonly logLines: string[] = [];
  private readonly logger = fixtureLogger(this.logLines);

  ark!: RunningArkServer;

  private constructor(
    readonly node: DevnetNode,
    private readonly opts: { datadir?: string; overrides: Partial<ArkServerConfig> },
  ) {}

  static async start(opts: { datadir?: string; overrides?: Partial<ArkServerConfig>; fundSat?: bigint; seed?: string } = {}): Promise<RoundFixture> {
    const node = new DevnetNode({ seed: opts.seed ?? "ark-round-test" });
    const overrides = { ...FAST_ROUNDS, ...opts.overrides };
    const f = new RoundFixture(node, { ...(opts.datadir ? { datadir: opts.datadir } : {}), overrides });
    const ark = (f.ark = await startArkServer({ node, profile: "test", overrides, logger: f.logger, ...(opts.datadir ? { datadir: opts.datadir } : {}) }));
    if ((opts.fundSat ?? 10_000_000n) > 0n) {
      await ark.server.wallet.fundFromFaucet(opts.fundSat ?? 10_000_000n);
      node.mine(1);
    }
    f.info = (await f.port().connect()).arkInfo;
    return f;
  }

  /** A new client connection (the round port; closed with the fixture). */
  port(): GrpcArkServer {
    const p = new GrpcArkServer(grpcClient(this.ark.url));
    this.ports.push(p);
    return p;
  }

  private main: GrpcArkServer | undefined;

  /** A wallet kit talking gRPC to whichever server instance is running (it survives restarts). */
  wallet(): WalletKit {
    const current = () => grpcApi((this.main ??= this.port()).client);
    const api: ArkApi = {
      arkInfo: () => current().arkInfo(),
      requestBoardCosign: (r, p) => current().requestBoardCosign(r, p),
      registerBoardVtxo: (v) => current().registerBoardVtxo(v),
      requestArkoorCosign: (p) => current().requestArkoorCosign(p),
      registerVtxoTransactions: (v) => current().registerVtxoTransactions(v),
      postArkoorMessage: (b, v) => current().postArkoorMessage(b, v),
    };
    return new WalletKit(api, this.node);
  }

  /** A wallet with one board VTXO per amount. */
  async walletWith(...amounts: bigint[]): Promise<{ kit: WalletKit; vtxos: Vtxo[] }> {
    const kit = this.wallet();
    const vtxos: Vtxo[] = [];
    for (const a of amounts) vtxos.push(await kit.board(a));
    return { kit, vtxos };
  }

  /** A started interactive participant. */
  participant(kit: WalletKit, inputs: Vtxo[], opts: ParticipantOptions = {}): RoundParticipant {
    return new RoundParticipant(this.port(), kit, this.node, this.info, inputs, opts).start();
  }

  /** Resolves with the first event (the replayed last one included) matching `pred`. */
  nextEvent(pred: (e: RoundEvent) => boolean, timeoutMs = 20_000): Promise<RoundEvent> {
    const port = this.port();
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        void sub.stop();
        reject(new Error("timed out waiting for a round event"));
      }, timeoutMs);
      const sub = port.subscribeRounds({
        onEvent: async (e) => {
          if (!pred(e)) return;
          clearTimeout(timer);
          void sub.stop();
          resolve(e);
        },
      });
    });
  }

  /** Records round events from now on (the replayed last event first). */
  recorder(): EventRecorder {
    return new EventRecorder(this.port());
  }

  /** Restarts the server on the same database (graceful stop, then start). */
  async restart(overrides: Partial<ArkServerConfig> = {}): Promise<void> {
    for (const p of this.ports.splice(0)) p.close();
    this.main = undefined;
    await this.ark.stop();
    this.ark = await startArkServer({ node: this.node, profile: "test", logger: this.logger, overrides: { ...this.opts.overrides, ...overrides }, ...(this.opts.datadir ? { datadir: this.opts.datadir } : {}) });
  }

  async close(): Promise<void> {
    for (const p of this.ports.splice(0)) p.close();
    await this.ark.stop();
  }
}
