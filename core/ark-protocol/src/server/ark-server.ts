import type { ArkSession, PinnedServerKeys } from "./ark-info.js";
import type { ArkoorCosignPart, ArkoorCosignResponse, BoardCosignRequest, BoardCosignResponse } from "./cosign-requests.js";
import type { MailboxPage, MailboxReadRequest, MailboxSubscription, MailboxSubscriptionRequest, RecoveryIdsPost } from "./mailbox-messages.js";
import type {
  ClaimLightningReceiveRequest, LightningReceiveStatus, PrepareLightningReceiveClaimRequest, PrepareLightningReceiveClaimResponse,
  StartLightningReceiveRequest,
} from "./lightning-receive-messages.js";
import type {
  LeafVtxoCosignRequest, LeafVtxoCosignResponse, RoundEvent, RoundParticipationRequest, RoundParticipationStatus, RoundSubscription,
  RoundSubscriptionRequest, SubmitPaymentRequest, VtxoSignaturesRequest,
} from "./round-messages.js";
import type { FinishOffboardRequest, PreparedOffboard, PrepareOffboardRequest } from "./offboard-messages.js";
import type { VtxoSpendState } from "./vtxo-queries.js";
import type { FetchBolt12InvoiceRequest, InitiateLightningPaymentRequest, LightningPaymentStatus } from "./lightning-messages.js";

/**
 * A wallet's connection to its Ark server: what the daemon asks of the server, in plain data.
 * Every call connects first when needed (handshake, protocol version, Ark info with its checks,
 * the pinned keys compared); failures are the errors of `./errors.js`.
 */
export interface ArkServer {
  /** Whether the last connection attempt, heartbeat or call found the server reachable and valid. */
  readonly connected: boolean;
  /** The live session, without connecting; `undefined` while not connected. */
  readonly session: ArkSession | undefined;
  /** The live session, connecting first if needed (concurrent callers share one attempt). */
  connect(): Promise<ArkSession>;
  /** Checks the connection now (bark's `check_connection`), reconnecting if it was lost. Never throws; returns {@link connected}. */
  heartbeat(): Promise<boolean>;
  /** Unix time (seconds) of the next scheduled round. */
  nextRoundTime(): Promise<number>;
  /** Registers the transaction chains of full VTXOs with the server (idempotent). */
  registerVtxoTransactions(vtxos: readonly Uint8Array[]): Promise<void>;
  /** Asks the server to co-sign an arkoor package; one response per part, in order. */
  requestArkoorCosign(parts: readonly ArkoorCosignPart[]): Promise<ArkoorCosignResponse[]>;
  /** Delivers arkoor VTXOs to the mailbox behind a blinded id (from the recipient's Ark address). */
  postArkoorMessage(blindedId: Uint8Array, vtxos: readonly Uint8Array[]): Promise<void>;
  /** One page of a mailbox after a checkpoint. */
  readMailbox(request: MailboxReadRequest): Promise<MailboxPage>;
  /** Streams a mailbox from a checkpoint, resuming after drops until stopped (or it gives up). */
  subscribeMailbox(request: MailboxSubscriptionRequest): MailboxSubscription;
  /** Backs VTXO ids up in a recovery mailbox. */
  postRecoveryVtxoIds(post: RecoveryIdsPost): Promise<void>;
  /** The full VTXO (encoded) the server stores under this 36-byte id; an unknown id throws the not-found error. */
  getVtxo(vtxoId: Uint8Array): Promise<Uint8Array>;
  /** The server's spend state of a user VTXO, proved to be asked by its owner with a `VtxoStatusAttestation` (64-byte signature). */
  getVtxoStatus(vtxoId: Uint8Array, attestation: Uint8Array): Promise<VtxoSpendState>;
  /** Asks the server to co-sign a board's exit transaction. */
  requestBoardCosign(request: BoardCosignRequest): Promise<BoardCosignResponse>;
  /** Registers a board VTXO once its funding transaction has the confirmations the server requires (idempotent). */
  registerBoardVtxo(vtxo: Uint8Array): Promise<void>;
  /** Streams round events, resubscribing after drops until stopped. */
  subscribeRounds(request: RoundSubscriptionRequest): RoundSubscription;
  /** The last round event the server broadcast; `undefined` when there is none yet. */
  lastRoundEvent(): Promise<RoundEvent | undefined>;
  /** Joins the current round attempt; returns the unlock hash of the participation. */
  submitPayment(request: SubmitPaymentRequest): Promise<Uint8Array>;
  /** Hands one output's branch partial signatures to the round coordinator. */
  provideVtxoSignatures(request: VtxoSignaturesRequest): Promise<void>;
  /** Hands a delegated participation to the server; returns its unlock hash. */
  submitRoundParticipation(request: RoundParticipationRequest): Promise<Uint8Array>;
  /** Status of a delegated participation; an unknown unlock hash throws the not-found error. */
  roundParticipationStatus(unlockHash: Uint8Array): Promise<RoundParticipationStatus>;
  /** The server's nonce and partial signature for a round leaf's hash-lock spend (repeatable). */
  requestLeafVtxoCosign(request: LeafVtxoCosignRequest): Promise<LeafVtxoCosignResponse>;
  /** One server forfeit nonce per input of the participation (≤ 1000 ids per call), in order. */
  requestForfeitNonces(unlockHash: Uint8Array, vtxoIds: readonly Uint8Array[]): Promise<Uint8Array[]>;
  /** Hands over the hash-locked forfeit bundles (encoded); returns the unlock preimage. */
  forfeitVtxos(bundles: readonly Uint8Array[]): Promise<Uint8Array>;
  /** The server's "regular" fee rate for offboards, sat per 1000 vbytes (`GetOffboardFeeRate`). */
  offboardFeeRateSatPerKvb(): Promise<bigint>;
  /** Asks the server to build an offboard tx for these inputs; an identical request while its session lives gets the same answer. */
  prepareOffboard(request: PrepareOffboardRequest): Promise<PreparedOffboard>;
  /** Hands over the forfeit signatures; returns the signed offboard tx (replayed for the same txid while the session lives). */
  finishOffboard(request: FinishOffboardRequest): Promise<Uint8Array>;
  /** Asks the server to co-sign the HTLC package of a Lightning send (checkpoints; HTLC outputs and change). */
  requestLightningPayHtlcCosign(parts: readonly ArkoorCosignPart[]): Promise<ArkoorCosignResponse[]>;
  /** Hands the invoice and the cosigned HTLC VTXOs to the server, which pays it (idempotent per payment hash). */
  initiateLightningPayment(request: InitiateLightningPaymentRequest): Promise<void>;
  /** Where the payment with this hash stands; with `wait`, the server answers once it is final. Unknown hash: the not-found error. */
  checkLightningPayment(paymentHash: Uint8Array, wait: boolean): Promise<LightningPaymentStatus>;
  /** Asks the server to co-sign the package that gives the HTLC VTXOs of a failed send back to the wallet. */
  requestLightningPayHtlcRevocation(parts: readonly ArkoorCosignPart[]): Promise<ArkoorCosignResponse[]>;
  /** A BOLT12 invoice (raw TLV bytes) the offer's issuer signed for this amount. */
  fetchBolt12Invoice(request: FetchBolt12InvoiceRequest): Promise<Uint8Array>;
  /** Asks for a hold invoice on the wallet's payment hash; returns the BOLT11 invoice. */
  startLightningReceive(request: StartLightningReceiveRequest): Promise<string>;
  /** Where a receive stands; with `wait`, the server may hold the call until it changes. Unknown hashes throw the not-found error. */
  checkLightningReceive(paymentHash: Uint8Array, wait: boolean): Promise<LightningReceiveStatus>;
  /** Has HTLC-recv VTXOs granted for a receive whose payer's HTLCs are held. */
  prepareLightningReceiveClaim(request: PrepareLightningReceiveClaimRequest): Promise<PrepareLightningReceiveClaimResponse>;
  /** Reveals the preimage and has the claim package cosigned; one response per part, in order. */
  claimLightningReceive(request: ClaimLightningReceiveRequest): Promise<ArkoorCosignResponse[]>;
  /** Cancels a receive (its hold invoice is cancelled; the payer gets the money back). */
  cancelLightningReceive(paymentHash: Uint8Array): Promise<void>;
  /** Closes the connection and ends its subscriptions; later calls fail with `ArkClientClosedError`. */
  close(): void;
}

/** Where a connection's log lines go (the kernel's logger fits). */
export interface ArkServerLogger {
  debug(msg: string): void;
  info(msg: string): void;
  warn(msg: string): void;
}

/** What a connection to a wallet's Ark server is opened with. */
export interface ArkServerOptions {
  /** The server's address from the wallet configuration (`http://…` plaintext, `https://…` TLS; no scheme means https). */
  readonly url: string;
  /**
   * The wallet's network (`mainnet`, `signet`, `mutinynet`, `regtest`): the server must announce
   * the matching bitcoin network (`bitcoin`, `signet`, `signet`, `regtest`).
   */
  readonly network: string;
  /** The keys the wallet pinned; absent = pin whatever the first successful connection presents. */
  readonly pinnedKeys?: PinnedServerKeys;
  /** Called once when a first connection pins the keys, to persist them; awaited before that connection is used. */
  readonly onKeysPinned?: (keys: PinnedServerKeys) => void | Promise<void>;
  readonly logger?: ArkServerLogger;
}

/** Opens connections to Ark servers. The daemon binary provides one (gRPC); tests provide fakes. */
export interface ArkServerConnector {
  /** A connection to the server at `options.url`; nothing is sent until the first call or {@link ArkServer.connect}. */
  open(options: ArkServerOptions): ArkServer;
}
