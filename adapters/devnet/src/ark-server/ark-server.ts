/**
 * The reference Ark server's domain object: handshake and `ArkInfo`, boards,
 * arkoor co-signing, VTXO registration and queries, mailboxes, the server wallet and the admin
 * calls tests need. Transport-free: the gRPC layer (`grpc-server.ts`) only converts messages.
 *
 * @example
 * ```ts
 * const server = await ArkServer.open({ chain: node, profile: "test" });      // in-memory SQLite
 * const info = await server.arkInfo();
 * await server.close();
 * ```
 */
import { join } from "node:path";
import { silentLogger, type DatabaseLocation, type Logger } from "@tender/core";
import { VtxoFluxLocks } from "./async-lock.js";
import { ArkoorService, type ArkoorCosignPartRequest, type ArkoorCosignPartResponse } from "./arkoor-service.js";
import { BoardService, type BoardCosignRequest } from "./board-service.js";
import { MailboxService, type MailboxMessageData, type MailboxPage } from "./mailbox-service.js";
import { vtxoIdText } from "./request-decoding.js";
import { RpcTimes } from "./rpc-times.js";
import { serverConfig, SERVER_MAX_PROTOCOL_VERSION, SERVER_MIN_PROTOCOL_VERSION, type ArkInfo, type ArkServerConfig, type ArkServerProfile } from "./server-config.js";
import type { ServerChain, ServerContext } from "./server-context.js";
import { DevnetNode } from "../node/devnet-node.js";
import { devnetServerChain } from "./chain/devnet-server-chain.js";
import { NotFoundError } from "./server-errors.js";
import { deriveServerKeys, newServerSeed } from "./server-keys.js";
import { ServerSettings } from "./server-settings.js";
import { ArkServerStore } from "./server-store.js";
import { ServerWallet, type WalletStatus } from "./server-wallet.js";
import { VtxoRegistry } from "./vtxo-registry.js";
import type { MusigCosignResponse } from "@tender/ark-protocol";
import type { RoundEvent } from "@tender/ark-protocol/server";
import { RoundCoordinator } from "./rounds/round-coordinator.js";
import { RoundStore } from "./rounds/round-store.js";
import { HarkSwap } from "./rounds/hark-swap.js";
import { DelegatedParticipations, type ParticipationStatusData, type RoundParticipationData } from "./rounds/delegated-participations.js";
import type { SubmitPaymentData } from "./rounds/round-payments.js";
import { OffboardService, type FinishOffboardData, type PrepareOffboardData, type PreparedOffboardData } from "./offboard/offboard-service.js";
import { WalletCoinHolds } from "./wallet-coin-holds.js";
import { LightningSendService } from "./lightning/lightning-send-service.js";
import { LightningReceiveService } from "./lightning/receive-service.js";
import type { LightningBackend } from "../lightning/lightning-backend.js";

/** Options of {@link ArkServer.open}. */
export interface ArkServerOptions {
  /** The chain: a devnet node (answered in process) or any {@link ServerChain}, e.g. a bitcoind's. */
  readonly chain: ServerChain | DevnetNode;
  /** Directory of `ark-server.sqlite`; in-memory database without it. */
  readonly datadir?: string;
  /** Explicit database location (overrides `datadir`). */
  readonly database?: DatabaseLocation;
  readonly profile?: ArkServerProfile;
  readonly overrides?: Partial<ArkServerConfig>;
  /** Settings shared with an earlier run (a restart keeps changes made at run time); `profile` and `overrides` are then ignored. */
  readonly settings?: ServerSettings;
  readonly logger?: Logger;
  /** Clock for mailbox authorizations (unix seconds). */
  readonly nowSecs?: () => bigint;
  /** The Lightning node the server pays (and, when it offers hold invoices, receives) through; without one the Lightning RPCs answer UNAVAILABLE. */
  readonly lightning?: LightningBackend;
}

/** bark releases the handshake recognizes; any other `bark_version` gets an update PSA, not a refusal. */
const KNOWN_BARK_VERSIONS = ["0.1.0", "0.1.1", "0.2.0", "0.2.1", "0.2.2", "0.2.3", "0.2.4", "0.3.0", "0.4.0", "0.5.0", "0.6.0"];
const UPDATE_PSA = "Your wallet version is unknown or outdated; please update your wallet.";

/** `HandshakeResponse` as plain data. */
export interface Handshake {
  minProtocolVersion: number;
  maxProtocolVersion: number;
  psa?: string;
}

/** Key under which the server seed is stored. */
const SEED_KEY = "server_seed";

/** One running reference server (its state lives in the database). */
export class ArkServer {
  readonly boards: BoardService;
  /** How long each public unary call was held (benches). */
  readonly rpcTimes = new RpcTimes();
  readonly arkoor: ArkoorService;
  readonly vtxos: VtxoRegistry;
  readonly mailbox: MailboxService;
  readonly wallet: ServerWallet;
  /** Round tables (finished rounds, participations, forfeits). */
  readonly roundStore: RoundStore;
  /** The round coordinator (schedule, attempts, round events). */
  readonly rounds: RoundCoordinator;
  /** Leaf co-signatures, forfeit nonces and forfeits after a round. */
  readonly harkSwap: HarkSwap;
  readonly delegated: DelegatedParticipations;
  /** Offboard sessions, finished offboards and their background task. */
  readonly offboards: OffboardService;
  /** Lightning send: HTLC cosigning, payment attempts, revocations. */
  readonly lightningSend: LightningSendService;
  /** Lightning receive: hold invoices, HTLC-recv grants from the VTXO pool, claims. */
  readonly lightningReceive: LightningReceiveService;

  private constructor(readonly ctx: ServerContext, lightning?: LightningBackend) {
    this.boards = new BoardService(ctx);
    this.arkoor = new ArkoorService(ctx);
    this.vtxos = new VtxoRegistry(ctx);
    this.mailbox = new MailboxService(ctx);
    this.wallet = new ServerWallet(ctx);
    this.roundStore = new RoundStore(ctx.store);
    this.harkSwap = new HarkSwap(ctx, this.roundStore);
    this.delegated = new DelegatedParticipations(ctx, this.roundStore);
    this.rounds = new RoundCoordinator(ctx, this.roundStore, this.harkSwap, this.delegated, this.mailbox);
    this.offboards = new OffboardService(ctx, this.roundStore);
    ctx.walletCoinHolds.add(() => this.offboards.heldWalletCoins());
    this.lightningSend = new LightningSendService(ctx, this.arkoor, this.mailbox, lightning);
    this.lightningReceive = new LightningReceiveService(ctx, this.arkoor, this.mailbox, this.lightningSend.store, this.roundStore, lightning);
    this.lightningSend.receive = this.lightningReceive;
    this.lightningReceive.sender = this.lightningSend;
  }

  /** Opens the database (creating the server seed on first start) and builds the server. */
  static async open(opts: ArkServerOptions): Promise<ArkServer> {
    const settings = opts.settings ?? new ServerSettings(serverConfig(opts.profile ?? "default", opts.overrides));
    const logger = opts.logger ?? silentLogger;
    const location: DatabaseLocation = opts.database ?? { dialect: "sqlite", path: opts.datadir ? join(opts.datadir, "ark-server.sqlite") : ":memory:" };
    const store = await ArkServerStore.open(location, logger);
    const seed = (await store.getMeta(SEED_KEY)) ?? (await store.initMeta(SEED_KEY, newServerSeed()));
    const keys = deriveServerKeys(seed);
    const nowSecs = opts.nowSecs ?? (() => BigInt(Math.floor(Date.now() / 1000)));
    const chain = opts.chain instanceof DevnetNode ? devnetServerChain(opts.chain) : opts.chain;
    try {
      await chain.watchScript(keys.walletScript);
    } catch (e) {
      await store.close();
      throw e;
    }
    const server = new ArkServer({
      get config() {
        return settings.current;
      },
      settings, keys, store, chain, locks: new VtxoFluxLocks(), walletCoinHolds: new WalletCoinHolds(), logger, nowSecs,
    }, opts.lightning);
    server.rounds.start();
    server.offboards.start();
    server.lightningSend.start();
    server.lightningReceive.start();
    return server;
  }

  get config(): ArkServerConfig {
    return this.ctx.config;
  }

  /** Stops the round coordinator (a running attempt is abandoned), ends subscriptions and closes the database. */
  async close(): Promise<void> {
    await this.offboards.stop();
    await this.lightningSend.stop();
    await this.lightningReceive.stop();
    await this.rounds.stop();
    this.mailbox.close();
    await this.ctx.store.close();
  }

  /** `Handshake`: the version range, plus a PSA for unknown bark versions and the operator PSA. */
  handshake(barkVersion?: string): Handshake {
    const token = barkVersion ? /\d+\.\d+\.\d+/.exec(barkVersion)?.[0] : undefined;
    const psas: string[] = [];
    if (!token || !KNOWN_BARK_VERSIONS.includes(token)) psas.push(UPDATE_PSA);
    if (this.config.handshakePsa) psas.push(this.config.handshakePsa);
    return { minProtocolVersion: SERVER_MIN_PROTOCOL_VERSION, maxProtocolVersion: SERVER_MAX_PROTOCOL_VERSION, ...(psas.length ? { psa: psas.join("\n\n") } : {}) };
  }

  /** The "regular" fee rate in sat/kvB (`GetOffboardFeeRate`). */
  async offboardFeeRateSatVkb(): Promise<bigint> {
    return this.offboards.feeRateSatPerKvb();
  }

  /** `GetArkInfo`. */
  async arkInfo(): Promise<ArkInfo> {
    const c = this.config;
    return {
      network: c.network,
      serverPubkey: this.ctx.keys.serverPubkey,
      mailboxPubkey: this.ctx.keys.mailboxPubkey,
      roundIntervalSecs: c.roundIntervalSecs,
      nbRoundNonces: c.nbRoundNonces,
      vtxoExitDelta: c.vtxoExitDelta,
      vtxoExpiryDelta: c.vtxoLifetime,
      vtxoLifetime: c.vtxoLifetime,
      htlcSendExpiryDelta: c.htlcSendExpiryDelta,
      htlcExpiryDelta: c.htlcExpiryDelta,
      ...(c.maxVtxoAmount !== undefined ? { maxVtxoAmount: c.maxVtxoAmount } : {}),
      requiredBoardConfirmations: c.requiredBoardConfirmations,
      maxUserInvoiceCltvDelta: c.maxUserInvoiceCltvDelta,
      minBoardAmount: c.minBoardAmount,
      offboardFeerateSatVkb: await this.offboardFeeRateSatVkb(),
      lnReceiveAntiDosRequired: c.lnReceiveAntiDosRequired,
      fees: c.fees,
      maxVtxoExitDepth: c.maxVtxoExitDepth,
      maxOffboardInputs: c.maxOffboardInputs,
      ...(c.tosLink ? { tosLink: c.tosLink } : {}),
    };
  }

  // ---- wallet RPCs (thin delegates, so the gRPC layer has one object) -----------------

  requestBoardCosign(req: BoardCosignRequest, pver: number): Promise<MusigCosignResponse> {
    return this.boards.requestBoardCosign(req, pver);
  }

  registerBoardVtxo(vtxo: Uint8Array | undefined): Promise<void> {
    return this.boards.registerBoardVtxo(vtxo);
  }

  requestArkoorCosign(parts: readonly ArkoorCosignPartRequest[]): Promise<ArkoorCosignPartResponse[]> {
    return this.arkoor.requestArkoorCosign(parts);
  }

  registerVtxoTransactions(vtxos: readonly Uint8Array[]): Promise<void> {
    return this.vtxos.registerVtxoTransactions(vtxos);
  }

  getVtxo(id: Uint8Array | undefined): Promise<Uint8Array> {
    return this.vtxos.getVtxo(id);
  }

  getVtxoStatus(id: Uint8Array | undefined, attestation: Uint8Array | undefined): Promise<number> {
    return this.vtxos.getVtxoStatus(id, attestation);
  }

  postArkoorMessage(blindedId: Uint8Array | undefined, vtxos: readonly Uint8Array[]): Promise<void> {
    return this.mailbox.postArkoorMessage(blindedId, vtxos);
  }

  readMailbox(mailboxId: Uint8Array | undefined, authorization: Uint8Array | undefined, checkpoint: bigint): Promise<MailboxPage> {
    return this.mailbox.readMailbox(mailboxId, authorization, checkpoint);
  }

  subscribeMailbox(mailboxId: Uint8Array | undefined, authorization: Uint8Array | undefined, checkpoint: bigint, signal?: AbortSignal): AsyncGenerator<MailboxMessageData> {
    return this.mailbox.subscribeMailbox(mailboxId, authorization, checkpoint, signal);
  }

  postRecoveryVtxoIds(mailboxId: Uint8Array | undefined, ids: readonly Uint8Array[], authorization: Uint8Array | undefined): Promise<void> {
    return this.mailbox.postRecoveryVtxoIds(mailboxId, ids, authorization);
  }

  // ---- rounds ---------------------------------------------------------------------------

  /** `NextRoundTime`: unix seconds of the next scheduled round. */
  nextRoundTime(): number {
    return this.rounds.nextRoundTimeSecs();
  }

  /** `SubscribeRounds`: the last event first, then live events until `signal` aborts or the server closes. */
  subscribeRounds(signal?: AbortSignal): AsyncGenerator<RoundEvent> {
    return this.rounds.events.subscribe(signal);
  }

  /** `LastRoundEvent`: NOT_FOUND "no round event yet" before the first event. */
  lastRoundEvent(): RoundEvent {
    const e = this.rounds.lastEvent();
    if (!e) throw new NotFoundError("no round event yet");
    return e;
  }

  /** `SubmitPayment`: joins the running attempt; returns the unlock hash. */
  submitPayment(req: SubmitPaymentData, pver: number): Promise<Uint8Array> {
    return this.rounds.submitPayment(req, pver);
  }

  /** `ProvideVtxoSignatures`: one output's branch partial signatures. */
  provideVtxoSignatures(pubkey: Uint8Array | undefined, signatures: readonly Uint8Array[], pver: number): void {
    this.rounds.provideVtxoSignatures(pubkey, signatures, pver);
  }

  /** `SubmitRoundParticipation`: a delegated participation; returns the unlock hash. */
  submitRoundParticipation(req: RoundParticipationData, pver: number): Promise<Uint8Array> {
    return this.delegated.submit(req, pver);
  }

  /** `RoundParticipationStatus`. */
  roundParticipationStatus(unlockHash: Uint8Array | undefined): Promise<ParticipationStatusData> {
    return this.delegated.status(unlockHash);
  }

  /** `RequestLeafVtxoCosign`. */
  requestLeafVtxoCosign(vtxoId: Uint8Array | undefined, pubNonce: Uint8Array | undefined, pver: number): Promise<MusigCosignResponse> {
    return this.harkSwap.requestLeafVtxoCosign(vtxoId, pubNonce, pver);
  }

  /** `RequestForfeitNonces`. */
  requestForfeitNonces(unlockHash: Uint8Array | undefined, vtxoIds: readonly Uint8Array[], pver: number): Promise<Uint8Array[]> {
    return this.harkSwap.requestForfeitNonces(unlockHash, vtxoIds, pver);
  }

  /** `ForfeitVtxos`: returns the unlock preimage. */
  forfeitVtxos(bundles: readonly Uint8Array[], pver: number): Promise<Uint8Array> {
    return this.harkSwap.forfeitVtxos(bundles, pver);
  }

  // ---- offboards -----------------------------------------------------------------------

  /** `PrepareOffboard`: the unsigned offboard tx and one forfeit nonce per input. */
  prepareOffboard(req: PrepareOffboardData, pver: number): Promise<PreparedOffboardData> {
    return this.offboards.prepare(req, pver);
  }

  /** `FinishOffboard`: the signed offboard tx. */
  finishOffboard(req: FinishOffboardData): Promise<Uint8Array> {
    return this.offboards.finish(req);
  }

  // ---- admin --------------------------------------------------------------------------

  /** `RoundAdminService.TriggerRound`: starts a round now (or right after the running one); a second trigger while one is queued is ignored. */
  triggerRound(): void {
    this.rounds.trigger();
  }

  /** `WalletAdminService.WalletStatus` (rounds wallet). */
  walletStatus(): Promise<WalletStatus> {
    return this.wallet.status();
  }

  /** `BanAdminService.BanVtxo`: banned until `tip + banBlocks`. */
  async banVtxo(id: Uint8Array | undefined, banBlocks: number): Promise<number> {
    const text = vtxoIdText(id);
    const until = (await this.ctx.chain.tipHeight()) + banBlocks;
    if (!(await this.ctx.store.setBan(text, until))) throw new NotFoundError("vtxo not found", [text]);
    return until;
  }

  /** `BanAdminService.UnbanVtxo`. */
  async unbanVtxo(id: Uint8Array | undefined): Promise<void> {
    const text = vtxoIdText(id);
    if (!(await this.ctx.store.setBan(text, null))) throw new NotFoundError("vtxo not found", [text]);
  }

  /** `BanAdminService.ListBannedVtxos`: bans still active at the tip. */
  async listBannedVtxos(): Promise<{ id: string; until: number }[]> {
    return this.ctx.store.activeBans(await this.ctx.chain.tipHeight());
  }
}
