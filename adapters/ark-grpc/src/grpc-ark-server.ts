/**
 * The Ark server port over gRPC: {@link GrpcArkServer} wraps an {@link ArkServerClient} and maps
 * the generated messages to the port's plain data and back; {@link grpcArkServerConnector} is what
 * the daemon binary provides to the Ark plugin.
 */
import type {
  ArkoorCosignPart, ArkoorCosignResponse, ArkServer, ArkServerConnector, ArkServerOptions, ArkSession, BoardCosignRequest,
  BoardCosignResponse, LeafVtxoCosignRequest, LeafVtxoCosignResponse, MailboxPage, MailboxReadRequest, MailboxSubscription,
  MailboxSubscriptionRequest, RecoveryIdsPost, FinishOffboardRequest, PreparedOffboard, PrepareOffboardRequest, RoundEvent, RoundInput, RoundParticipationRequest, RoundParticipationStatus,
  RoundSubscription, RoundSubscriptionRequest, SubmitPaymentRequest, VtxoSignaturesRequest,
  FetchBolt12InvoiceRequest, InitiateLightningPaymentRequest, LightningPaymentStatus, VtxoSpendState,
  ClaimLightningReceiveRequest, LightningReceiveStatus, PrepareLightningReceiveClaimRequest, PrepareLightningReceiveClaimResponse,
  StartLightningReceiveRequest,
} from "@tender/ark-protocol/server";
import { ArkServerNotFoundError, InvalidServerResponseError } from "@tender/ark-protocol/server";
import { ArkServerClient, type ArkServerClientOptions, type ServerSession } from "./client.js";
import { arkSessionOf, lightningReceiveStatusOf, mailboxMessageOf, roundEventOf, roundParticipationStatusOf, vtxoSpendStateOf } from "./domain-mapping.js";
import { serverNetworkOf } from "./networks.js";

const output = (o: { amount: bigint; policy: Uint8Array }) => ({ totalAmount: o.amount, policy: o.policy });
const input = (i: RoundInput) => ({ vtxoId: i.vtxoId, attestation: i.attestation });
const cosignPart = (p: ArkoorCosignPart) => ({
  inputVtxoId: p.inputVtxoId, outputs: p.outputs.map(output), isolatedOutputs: p.isolatedOutputs.map(output),
  userPubNonces: [...p.userPubNonces], useCheckpoint: p.useCheckpoint, attestation: p.attestation,
});
const cosignAnswer = (p: { serverPubNonces: Uint8Array[]; serverPartialSigs: Uint8Array[] }): ArkoorCosignResponse => ({ serverPubNonces: p.serverPubNonces, serverPartialSigs: p.serverPartialSigs });

/** An {@link ArkServer} over one {@link ArkServerClient}. */
export class GrpcArkServer implements ArkServer {
  private readonly subscriptions = new Set<MailboxSubscription | RoundSubscription>();
  private mapped: { raw: ServerSession; session: ArkSession } | undefined;

  constructor(readonly client: ArkServerClient) {}

  get connected(): boolean {
    return this.client.connected;
  }

  get session(): ArkSession | undefined {
    const raw = this.client.currentSession;
    return raw ? this.sessionOf(raw) : undefined;
  }

  async connect(): Promise<ArkSession> {
    return this.sessionOf(await this.client.connect());
  }

  heartbeat(): Promise<boolean> {
    return this.client.heartbeat();
  }

  async nextRoundTime(): Promise<number> {
    return Number((await this.client.ark("nextRoundTime", {})).timestamp);
  }

  async registerVtxoTransactions(vtxos: readonly Uint8Array[]): Promise<void> {
    await this.client.ark("registerVtxoTransactions", { vtxos: [...vtxos] });
  }

  async requestArkoorCosign(parts: readonly ArkoorCosignPart[]): Promise<ArkoorCosignResponse[]> {
    const res = await this.client.ark("requestArkoorCosign", { parts: parts.map(cosignPart) });
    return res.parts.map(cosignAnswer);
  }

  async postArkoorMessage(blindedId: Uint8Array, vtxos: readonly Uint8Array[]): Promise<void> {
    await this.client.mailbox("postArkoorMessage", { blindedId, vtxos: [...vtxos] });
  }

  async readMailbox(r: MailboxReadRequest): Promise<MailboxPage> {
    const res = await this.client.mailbox("readMailbox", { mailboxId: r.mailboxId, authorization: r.authorization, checkpoint: r.checkpoint });
    return { messages: res.messages.map(mailboxMessageOf), haveMore: res.haveMore };
  }

  subscribeMailbox(r: MailboxSubscriptionRequest): MailboxSubscription {
    const sub = this.client.subscribeMailbox({
      mailboxId: r.mailboxId, checkpoint: r.checkpoint, authorization: r.authorization, onMessage: (m) => r.onMessage(mailboxMessageOf(m)),
    });
    this.subscriptions.add(sub);
    void sub.done.then(() => this.subscriptions.delete(sub));
    return sub;
  }

  async postRecoveryVtxoIds(p: RecoveryIdsPost): Promise<void> {
    await this.client.mailbox("postRecoveryVtxoIds", { mailboxId: p.mailboxId, vtxoIds: [...p.vtxoIds], authorization: p.authorization });
  }

  async getVtxo(vtxoId: Uint8Array): Promise<Uint8Array> {
    return (await this.client.ark("getVtxo", { vtxoId })).vtxo;
  }

  async getVtxoStatus(vtxoId: Uint8Array, attestation: Uint8Array): Promise<VtxoSpendState> {
    return vtxoSpendStateOf((await this.client.ark("getVtxoStatus", { vtxoId, attestation })).spendState);
  }

  async requestBoardCosign(r: BoardCosignRequest): Promise<BoardCosignResponse> {
    const res = await this.client.ark("requestBoardCosign", {
      amount: r.amount, utxo: r.utxo, expiryHeight: r.expiryHeight, userPubkey: r.userPubkey, pubNonce: r.pubNonce, fundingTx: r.fundingTx,
    });
    return { pubNonce: res.pubNonce, partialSig: res.partialSig };
  }

  async registerBoardVtxo(vtxo: Uint8Array): Promise<void> {
    await this.client.ark("registerBoardVtxo", { boardVtxo: vtxo });
  }

  subscribeRounds(r: RoundSubscriptionRequest): RoundSubscription {
    const sub = this.client.subscribeRounds({
      onEvent: async (m) => {
        const ev = roundEventOf(m);
        return ev === undefined ? true : r.onEvent(ev);
      },
    });
    this.subscriptions.add(sub);
    void sub.done.then(() => this.subscriptions.delete(sub));
    return sub;
  }

  async lastRoundEvent(): Promise<RoundEvent | undefined> {
    try {
      return roundEventOf(await this.client.ark("lastRoundEvent", {}));
    } catch (e) {
      if (e instanceof ArkServerNotFoundError) return undefined;
      throw e;
    }
  }

  async submitPayment(r: SubmitPaymentRequest): Promise<Uint8Array> {
    const res = await this.client.ark("submitPayment", {
      inputVtxos: r.inputs.map(input),
      vtxoRequests: r.outputs.map((o) => ({ vtxo: { amount: o.amount, policy: o.policy }, cosignPubkey: o.cosignPubkey, publicNonces: [...o.pubNonces] })),
      offboardRequests: [],
      ...(r.mailboxId ? { unblindedMailboxId: r.mailboxId } : {}),
    });
    return res.unlockHash;
  }

  async provideVtxoSignatures(r: VtxoSignaturesRequest): Promise<void> {
    await this.client.ark("provideVtxoSignatures", { pubkey: r.cosignPubkey, signatures: [...r.signatures] });
  }

  async submitRoundParticipation(r: RoundParticipationRequest): Promise<Uint8Array> {
    const res = await this.client.ark("submitRoundParticipation", {
      inputVtxos: r.inputs.map(input),
      vtxoRequests: r.outputs.map((o) => ({ amount: o.amount, policy: o.policy })),
      ...(r.mailboxId ? { unblindedMailboxId: r.mailboxId } : {}),
      ...(r.scheduledHeight !== undefined ? { scheduledHeight: r.scheduledHeight } : {}),
    });
    return res.unlockHash;
  }

  async roundParticipationStatus(unlockHash: Uint8Array): Promise<RoundParticipationStatus> {
    return roundParticipationStatusOf(await this.client.ark("roundParticipationStatus", { unlockHash }));
  }

  async requestLeafVtxoCosign(r: LeafVtxoCosignRequest): Promise<LeafVtxoCosignResponse> {
    const res = await this.client.ark("requestLeafVtxoCosign", { vtxoId: r.vtxoId, publicNonce: r.pubNonce });
    return { pubNonce: res.publicNonce, partialSig: res.partialSignature };
  }

  async requestForfeitNonces(unlockHash: Uint8Array, vtxoIds: readonly Uint8Array[]): Promise<Uint8Array[]> {
    return (await this.client.ark("requestForfeitNonces", { unlockHash, vtxoIds: [...vtxoIds] })).publicNonces;
  }

  async forfeitVtxos(bundles: readonly Uint8Array[]): Promise<Uint8Array> {
    return (await this.client.ark("forfeitVtxos", { forfeitBundles: [...bundles] })).unlockPreimage;
  }

  async offboardFeeRateSatPerKvb(): Promise<bigint> {
    return (await this.client.ark("getOffboardFeeRate", {})).satVkb;
  }

  async prepareOffboard(r: PrepareOffboardRequest): Promise<PreparedOffboard> {
    const res = await this.client.ark("prepareOffboard", {
      offboard: {
        netAmountSat: r.offboard.netAmountSat, offboardSpk: r.offboard.script, deductFeesFromGrossAmount: r.offboard.deductFeesFromGrossAmount,
        feeRateKwu: r.offboard.feeRateSatPerKwu,
      },
      inputVtxoIds: [...r.inputVtxoIds],
      attestation: [...r.attestations],
    });
    return { offboardTx: res.offboardTx, forfeitCosignNonces: res.forfeitCosignNonces };
  }

  async finishOffboard(r: FinishOffboardRequest): Promise<Uint8Array> {
    const res = await this.client.ark("finishOffboard", { offboardTxid: r.offboardTxid, userNonces: [...r.userNonces], partialSignatures: [...r.partialSignatures] });
    return res.signedOffboardTx;
  }

  async requestLightningPayHtlcCosign(parts: readonly ArkoorCosignPart[]): Promise<ArkoorCosignResponse[]> {
    const res = await this.client.ark("requestLightningPayHtlcCosign", { parts: parts.map(cosignPart) });
    return res.parts.map(cosignAnswer);
  }

  async initiateLightningPayment(r: InitiateLightningPaymentRequest): Promise<void> {
    await this.client.ark("initiateLightningPayment", {
      invoice: r.invoice, htlcVtxoIds: [...r.htlcVtxoIds], paymentAmountSat: r.paymentAmountSat, ...(r.mailboxId ? { mailboxId: r.mailboxId } : {}),
    });
  }

  async checkLightningPayment(paymentHash: Uint8Array, wait: boolean): Promise<LightningPaymentStatus> {
    const res = await this.client.ark("checkLightningPayment", { hash: paymentHash, wait });
    const s = res.paymentStatus;
    if (s?.$case === "success") return { status: "success", preimage: s.value.preimage };
    if (s?.$case === "failed") return { status: "failed" };
    return { status: "pending" };
  }

  async requestLightningPayHtlcRevocation(parts: readonly ArkoorCosignPart[]): Promise<ArkoorCosignResponse[]> {
    const res = await this.client.ark("requestLightningPayHtlcRevocation", { parts: parts.map(cosignPart) });
    return res.parts.map(cosignAnswer);
  }

  async fetchBolt12Invoice(r: FetchBolt12InvoiceRequest): Promise<Uint8Array> {
    const res = await this.client.ark("fetchBolt12Invoice", { offer: r.offer, ...(r.amountSat !== undefined ? { amountSat: r.amountSat } : {}) });
    return res.invoice;
  }

  async startLightningReceive(r: StartLightningReceiveRequest): Promise<string> {
    const res = await this.client.ark("startLightningReceive", {
      paymentHash: r.paymentHash, amountSat: r.amountSat, minCltvDelta: r.minCltvDelta,
      ...(r.mailboxId ? { mailboxId: r.mailboxId } : {}),
      ...(r.description !== undefined ? { description: r.description } : {}),
    });
    return res.bolt11;
  }

  async checkLightningReceive(paymentHash: Uint8Array, wait: boolean): Promise<LightningReceiveStatus> {
    return lightningReceiveStatusOf(await this.client.ark("checkLightningReceive", { hash: paymentHash, wait }));
  }

  async prepareLightningReceiveClaim(r: PrepareLightningReceiveClaimRequest): Promise<PrepareLightningReceiveClaimResponse> {
    const antiDos = r.antiDos?.kind === "vtxo"
      ? { lightningReceiveAntiDos: { $case: "inputVtxo" as const, value: { vtxoId: r.antiDos.vtxoId, attestation: r.antiDos.attestation } } }
      : r.antiDos?.kind === "token"
        ? { lightningReceiveAntiDos: { $case: "token" as const, value: r.antiDos.token } }
        : { lightningReceiveAntiDos: undefined };
    const res = await this.client.ark("prepareLightningReceiveClaim", { paymentHash: r.paymentHash, userPubkey: r.userPubkey, htlcRecvExpiry: r.htlcRecvExpiry, ...antiDos });
    if (!res.receive) throw new InvalidServerResponseError("lightning receive claim answer lacks the receive");
    return { receive: lightningReceiveStatusOf(res.receive), htlcVtxos: res.htlcVtxos };
  }

  async claimLightningReceive(r: ClaimLightningReceiveRequest): Promise<ArkoorCosignResponse[]> {
    const res = await this.client.ark("claimLightningReceive", { paymentHash: r.paymentHash, paymentPreimage: r.preimage, cosignRequest: { parts: r.parts.map(cosignPart) } });
    return res.parts.map(cosignAnswer);
  }

  async cancelLightningReceive(paymentHash: Uint8Array): Promise<void> {
    await this.client.ark("cancelLightningReceive", { paymentHash });
  }

  close(): void {
    for (const s of this.subscriptions) void s.stop();
    this.subscriptions.clear();
    this.client.close();
  }

  /** One mapped session per client session, so repeated reads return the same object. */
  private sessionOf(raw: ServerSession): ArkSession {
    if (this.mapped?.raw !== raw) this.mapped = { raw, session: arkSessionOf(raw) };
    return this.mapped.session;
  }
}

/** Opens {@link GrpcArkServer}s; `extra` adds client options (tests: back-off, TLS roots). */
export function grpcArkServerConnectorWith(extra: Partial<ArkServerClientOptions> = {}): ArkServerConnector {
  return {
    open(o: ArkServerOptions): ArkServer {
      return new GrpcArkServer(new ArkServerClient({
        ...extra,
        url: o.url,
        network: serverNetworkOf(o.network),
        ...(o.pinnedKeys ? { pinnedKeys: o.pinnedKeys } : {}),
        ...(o.onKeysPinned ? { onKeysPinned: o.onKeysPinned } : {}),
        ...(o.logger ? { logger: o.logger } : {}),
      }));
    },
  };
}

/** The gRPC connector the daemon binary provides to the Ark plugin. */
export const grpcArkServerConnector: ArkServerConnector = grpcArkServerConnectorWith();
