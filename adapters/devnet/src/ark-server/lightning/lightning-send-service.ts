/**
 * Lightning send on the server side (captaind's rules and texts):
 *
 * | RPC | What the server does |
 * |---|---|
 * | `RequestLightningPayHtlcCosign` | checks the HTLC outputs (present, identical, hash not a round unlock hash, not settled, expiry far enough, no open attempt), then cosigns the package as an arkoor |
 * | `InitiateLightningPayment` | checks the HTLC VTXOs against the invoice and the fee, records the attempt, then pays through the Lightning backend (fire and forget, with the routing and delay budget) |
 * | `CheckLightningPayment` | the latest attempt's status (`wait`: blocks until final) |
 * | `RequestLightningPayHtlcRevocation` | cosigns giving the HTLCs back when the payment failed (or expired without success), never after a settlement |
 * | `FetchBolt12Invoice` | asks the backend for an invoice for an offer |
 *
 * When the invoice is one this server issued for a Lightning receive (payer and payee are wallets
 * of this server), no Lightning payment is made: the invoice must be the one issued, byte for
 * byte, the receive becomes `accepted` with the sender's HTLC expiry, and the receive side
 * completes (claim) or fails (cancel) the attempt.
 *
 * An attempt is persisted before the backend is asked to pay; at start, pending attempts are
 * reconciled with the backend (paid again if the backend never saw them), and every final
 * outcome is posted once to the sender's mailbox as `LightningSendFinished`.
 */
import {
  decodeUserPolicy, isHtlcSendPolicy, lightningMaxRoutingFeeSat, lightningSendFee, toHex, bytesEqual,
  type HtlcSendPolicy,
} from "@tender/ark-protocol";
import { sha256 } from "@noble/hashes/sha2.js";
import type { ArkoorCosignPartRequest, ArkoorCosignPartResponse, ArkoorService } from "../arkoor-service.js";
import type { MailboxService } from "../mailbox-service.js";
import { BadUserInputError, NotFoundError, UnavailableError, UnusableInputsError } from "../server-errors.js";
import type { ServerContext } from "../server-context.js";
import { vtxoFromBytes, vtxoIdText } from "../request-decoding.js";
import { Bolt11Error, decodeBolt11, type Bolt11Network } from "../../lightning/bolt11-codec.js";
import { decodeBolt12Invoice, readOffer } from "../../lightning/bolt12-codec.js";
import { LightningBackendError, type LightningBackend, type LightningPay } from "../../lightning/lightning-backend.js";
import { LightningStore, type PaymentAttempt } from "./lightning-store.js";
import { refuseIfListed } from "../refused-calls.js";
import type { IntraArkSender, LightningReceiveService } from "./receive-service.js";

/** Lowest protocol version that may use Lightning. */
export const PVER_LIGHTNING = 5;
/** Share of the send fee the routing may use, in ppm (`ln_max_fee_ppm`). */
export const LN_MAX_FEE_PPM = 900_000n;
/** How long the backend retries routes (`cln_xpay_timeout`, seconds). */
export const XPAY_RETRY_SECS = 60;
/** Period of the reconciliation with the backend (ms). */
export const RECONCILE_INTERVAL_MS = 2_000;

const UPDATE_MESSAGE = "YOU NEED TO UPDATE YOUR WALLET VERSION FOR THIS OPERATION";

/** The Lightning-send side of the server. */
export class LightningSendService implements IntraArkSender {
  readonly store: LightningStore;
  /** The receive side, for payments to invoices this server issued (set by the server). */
  receive: Pick<LightningReceiveService, "subscription" | "acceptIntraArk" | "beforeRevocation"> | undefined;
  private readonly waiters = new Map<string, Set<() => void>>();
  private unsubscribe: (() => void) | undefined;
  private timer: NodeJS.Timeout | undefined;
  private reconciling: Promise<void> | undefined;
  private stopped = false;

  constructor(
    private readonly ctx: ServerContext,
    private readonly arkoor: ArkoorService,
    private readonly mailbox: MailboxService,
    private readonly backend: LightningBackend | undefined,
  ) {
    this.store = new LightningStore(ctx.store);
  }

  /** Follows the backend's payment updates and reconciles unfinished attempts now and periodically. */
  start(): void {
    if (!this.backend) return;
    this.unsubscribe = this.backend.onPayUpdate((p) => void this.onPay(p).catch((e: unknown) => this.ctx.logger.warn(`lightning: payment update: ${String(e)}`)));
    const tick = () => {
      if (this.stopped) return;
      this.reconciling = this.reconcile().catch((e: unknown) => this.ctx.logger.warn(`lightning: reconciliation: ${String(e)}`));
      void this.reconciling.then(() => {
        if (!this.stopped) this.timer = setTimeout(tick, RECONCILE_INTERVAL_MS);
      });
    };
    tick();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.unsubscribe?.();
    if (this.timer) clearTimeout(this.timer);
    await this.reconciling;
    for (const set of this.waiters.values()) for (const w of [...set]) w();
  }

  private requireBackend(): LightningBackend {
    if (!this.backend) throw new UnavailableError("no Lightning node configured");
    return this.backend;
  }

  // ---- RequestLightningPayHtlcCosign ---------------------------------------------------

  async requestHtlcCosign(parts: readonly ArkoorCosignPartRequest[], pver: number): Promise<ArkoorCosignPartResponse[]> {
    if (pver < PVER_LIGHTNING) throw new UnavailableError(UPDATE_MESSAGE);
    this.requireBackend();
    const htlcs: HtlcSendPolicy[] = [];
    for (const p of parts) {
      for (const o of [...p.outputs, ...p.isolatedOutputs]) {
        let policy;
        try {
          policy = decodeUserPolicy(o.policy ?? new Uint8Array(0));
        } catch {
          continue; // the arkoor checks refuse it with their own text
        }
        if (isHtlcSendPolicy(policy)) htlcs.push(policy);
      }
    }
    if (htlcs.length === 0) throw new BadUserInputError("no HTLC outputs provided");
    const first = htlcs[0]!;
    const same = (h: HtlcSendPolicy) => h.type === first.type && bytesEqual(h.userPubkey, first.userPubkey) && bytesEqual(h.paymentHash, first.paymentHash) && h.htlcExpiry === first.htlcExpiry;
    if (!htlcs.every(same)) throw new BadUserInputError("not all HTLC outputs are identical");
    const hash = toHex(first.paymentHash);
    if (await this.store.isUnlockHash(hash)) throw new BadUserInputError("payment hash collides with an existing unlock hash");
    if (await this.store.settlement(hash)) throw new BadUserInputError("invoice has already been paid");
    const tip = await this.ctx.chain.tipHeight();
    if (first.htlcExpiry < tip + this.ctx.config.htlcSendExpiryDelta - 1) {
      throw new BadUserInputError(`requested expiry is too low. our tip is ${tip}. sync your node and try again`);
    }
    if ((await this.store.latest(hash))?.status === "pending") throw new BadUserInputError("payment already in progress for this invoice");
    return this.arkoor.requestArkoorCosign(parts);
  }

  // ---- InitiateLightningPayment ----------------------------------------------------------

  async initiate(req: { invoice: string; htlcVtxoIds: readonly Uint8Array[]; paymentAmountSat: bigint; mailboxId?: Uint8Array }, pver: number): Promise<void> {
    if (pver < PVER_LIGHTNING) throw new UnavailableError(UPDATE_MESSAGE);
    const backend = this.requireBackend();
    const invoice = this.decodeInvoice(req.invoice);
    const hash = toHex(invoice.paymentHash);
    if (req.htlcVtxoIds.length === 0) throw new BadUserInputError("no HTLC VTXOs provided");
    const ids = req.htlcVtxoIds.map((b) => vtxoIdText(b));
    const tip = await this.ctx.chain.tipHeight();
    const htlcs = [];
    for (const id of ids) {
      const row = await this.ctx.store.getVtxo(id);
      if (!row) throw new NotFoundError("htlc vtxo not found", [id]);
      const v = vtxoFromBytes(row.bytes);
      if (!isHtlcSendPolicy(v.policy)) throw new BadUserInputError(`vtxo ${id} is not an HTLC-send VTXO`, undefined, [id]);
      if (!bytesEqual(v.serverPubkey, this.ctx.keys.serverPubkey)) throw new BadUserInputError(`vtxo ${id} is not for this server`, undefined, [id]);
      if (!bytesEqual(v.policy.paymentHash, invoice.paymentHash)) throw new BadUserInputError("htlc payment hash doesn't match invoice", undefined, [id]);
      htlcs.push({ id, vtxo: v, row });
    }
    const existing = await this.store.latest(hash);
    if (existing && sameSet(existing.htlcVtxoIds, ids)) return; // replay of the same payment
    for (const h of htlcs) {
      if (h.row.state !== "spendable") throw new UnusableInputsError(`htlc vtxo ${h.id} is not spendable (state: ${h.row.state})`, undefined, [h.id]);
      if (h.row.bannedUntilHeight !== null && tip < h.row.bannedUntilHeight) throw new UnusableInputsError(`vtxo ${h.id} is banned until block ${h.row.bannedUntilHeight}`, undefined, [h.id]);
      if ((await this.ctx.chain.getTxStatus(h.id.split(":")[0]!))?.confirmed) throw new UnusableInputsError(`vtxo ${h.id} has exited onchain`, undefined, [h.id]);
    }
    if (existing?.status === "pending") throw new BadUserInputError("payment already in progress for this invoice");
    if (await this.store.settlement(hash)) throw new BadUserInputError("invoice has already been paid");
    const amount = req.paymentAmountSat;
    if (invoice.amountMsat !== undefined) {
      const invSat = (invoice.amountMsat + 999n) / 1000n;
      if (amount < invSat) throw new BadUserInputError("requested payment amount too low for invoice");
      if (amount > 2n * invSat) throw new BadUserInputError("requested payment amount more than double invoice amount");
    } else if (amount <= 0n) {
      throw new BadUserInputError("requested payment amount too low for invoice");
    }
    const sum = htlcs.reduce((s, h) => s + h.vtxo.amount, 0n);
    const fee = lightningSendFee(this.ctx.config.fees.lightningSend, amount, htlcs.map((h) => ({ amount: h.vtxo.amount, blocksToExpiry: Math.max(0, h.vtxo.expiryHeight - tip) })));
    if (sum < amount + fee) throw new BadUserInputError(`HTLC VTXO sum of ${sum} is less than the payment amount of ${amount} plus fees of ${fee}`);
    const maxFeeSat = lightningMaxRoutingFeeSat(fee, LN_MAX_FEE_PPM, sum, amount);
    const htlcExpiry = Math.min(...htlcs.map((h) => (h.vtxo.policy as HtlcSendPolicy).htlcExpiry));
    const receive = await this.receive?.subscription(hash);
    if (receive) {
      if (receive.invoice !== req.invoice) throw new BadUserInputError("invoice does not match the invoice we issued for this payment hash");
      if (amount < receive.amountSat) throw new BadUserInputError("requested payment amount too low for invoice");
      if (receive.status !== "created") throw new BadUserInputError(`invoice receive is not awaiting payment (status: ${receive.status})`);
    }
    const attempt = await this.store.insert({
      paymentHash: hash, invoice: invoice.invoice, amountMsat: amount * 1000n, senderMailbox: req.mailboxId ? toHex(req.mailboxId) : null, htlcVtxoIds: ids,
    });
    if (receive) return this.payIntraArk(attempt, htlcExpiry);
    this.ctx.logger.debug(`lightning: attempt ${attempt.id} pays ${hash} (${amount} sat, routing budget ${maxFeeSat} sat)`);
    await this.pay(backend, attempt, maxFeeSat, htlcExpiry);
  }

  /** A payment to a receive of this server: the receive is accepted instead of a Lightning payment. */
  private async payIntraArk(attempt: PaymentAttempt, htlcExpiry: number): Promise<void> {
    this.ctx.logger.debug(`lightning: attempt ${attempt.id} pays ${attempt.paymentHash} inside the Ark`);
    if (await this.receive!.acceptIntraArk(attempt.paymentHash, htlcExpiry, attempt.id)) return;
    await this.store.fail(attempt, "the receive is no longer awaiting payment");
    await this.finished(attempt.paymentHash);
  }

  /** The receiver of an intra-Ark payment claimed: the attempt succeeds with its preimage. */
  async completeIntraArk(paymentHash: string, attemptId: number, preimage: string): Promise<void> {
    const a = await this.store.latest(paymentHash);
    if (a && a.id === attemptId && a.status === "pending") {
      const missed = await this.store.succeed(a, preimage);
      if (missed.length) this.ctx.logger.warn(`lightning: intra-Ark payment ${paymentHash} succeeded but HTLC VTXO(s) ${missed.join(", ")} were no longer spendable`);
    }
    await this.finished(paymentHash);
  }

  /** The receive of an intra-Ark payment was canceled: the attempt fails (the sender may revoke). */
  async failIntraArk(paymentHash: string, attemptId: number, why: string): Promise<void> {
    const a = await this.store.latest(paymentHash);
    if (a && a.id === attemptId) await this.store.fail(a, why);
    await this.finished(paymentHash);
  }

  private async pay(backend: LightningBackend, attempt: PaymentAttempt, maxFeeSat: bigint, htlcExpiry: number): Promise<void> {
    const nodeTip = await backend.tipHeight();
    const maxDelay = htlcExpiry - (nodeTip + this.ctx.config.htlcExpiryDelta);
    const invoice = this.decodeInvoice(attempt.invoice);
    try {
      await backend.pay({
        invoice: attempt.invoice, ...(invoice.amountMsat === undefined ? { amountMsat: attempt.amountMsat } : {}),
        maxFeeMsat: maxFeeSat * 1000n, maxDelay, retryForSecs: XPAY_RETRY_SECS,
      });
    } catch (e) {
      // refused outright: the payment never left
      const why = e instanceof LightningBackendError ? e.message : String(e);
      await this.store.fail(attempt, why);
      await this.finished(attempt.paymentHash);
    }
  }

  /** A BOLT11 invoice, or a BOLT12 invoice (`lni1…`, its signature checked against its node id). */
  private decodeInvoice(text: string): { invoice: string; network: Bolt11Network | undefined; paymentHash: Uint8Array; amountMsat: bigint | undefined } {
    let inv: { invoice: string; network: Bolt11Network | undefined; paymentHash: Uint8Array; amountMsat: bigint | undefined };
    try {
      inv = /^lni1/i.test(text) ? decodeBolt12Invoice(text) : decodeBolt11(text);
    } catch (e) {
      if (e instanceof Bolt11Error || /^lni1/i.test(text)) throw new BadUserInputError(`invalid invoice: ${(e as Error).message}`);
      throw e;
    }
    if (inv.network !== this.ctx.config.network) throw new BadUserInputError(`invoice is for network ${inv.network}, the server runs on ${this.ctx.config.network}`);
    return inv;
  }

  // ---- CheckLightningPayment --------------------------------------------------------------

  async check(hashBytes: Uint8Array | undefined, wait: boolean, signal?: AbortSignal): Promise<{ status: "pending" } | { status: "success"; preimage: Uint8Array } | { status: "failed" }> {
    const hash = hashOf(hashBytes);
    for (;;) {
      const a = await this.store.latest(hash);
      if (!a) throw new NotFoundError("payment attempt not found");
      if (a.status === "succeeded" && a.preimage) return { status: "success", preimage: Buffer.from(a.preimage, "hex") };
      if (a.status === "failed") return { status: "failed" };
      if (!wait || this.stopped || signal?.aborted) return { status: "pending" };
      await this.waitFor(hash, signal);
    }
  }

  private waitFor(hash: string, signal?: AbortSignal): Promise<void> {
    return new Promise((resolve) => {
      const set = this.waiters.get(hash) ?? new Set();
      this.waiters.set(hash, set);
      const timer = setTimeout(done, RECONCILE_INTERVAL_MS * 5);
      function done() {
        clearTimeout(timer);
        set.delete(done);
        signal?.removeEventListener("abort", done);
        resolve();
      }
      set.add(done);
      signal?.addEventListener("abort", done, { once: true });
    });
  }

  // ---- RequestLightningPayHtlcRevocation ------------------------------------------------

  async requestRevocation(parts: readonly ArkoorCosignPartRequest[], pver: number): Promise<ArkoorCosignPartResponse[]> {
    if (pver < PVER_LIGHTNING) throw new UnavailableError(UPDATE_MESSAGE);
    refuseIfListed(this.ctx.config, "RequestLightningPayHtlcRevocation");
    let hash: string | undefined;
    let expiry = 0;
    for (const p of parts) {
      for (const o of [...p.outputs, ...p.isolatedOutputs]) {
        let policy;
        try {
          policy = decodeUserPolicy(o.policy ?? new Uint8Array(0));
        } catch {
          throw new BadUserInputError("pay htlcs revocation policy must be pubkey");
        }
        if (policy.type !== "pubkey") throw new BadUserInputError("pay htlcs revocation policy must be pubkey");
      }
      const id = p.inputVtxoId ? vtxoIdText(p.inputVtxoId) : "";
      const row = id ? await this.ctx.store.getVtxo(id) : undefined;
      if (!row) throw new NotFoundError("input vtxo not found", id ? [id] : []);
      const v = vtxoFromBytes(row.bytes);
      if (!isHtlcSendPolicy(v.policy)) throw new BadUserInputError("all inputs must be HTLC-send VTXOs");
      const h = toHex(v.policy.paymentHash);
      if (hash !== undefined && h !== hash) throw new BadUserInputError("all inputs must share one HTLC-send policy");
      hash = h;
      expiry = v.policy.htlcExpiry;
    }
    if (hash === undefined) throw new BadUserInputError("no inputs provided");
    const settledText = async () => {
      const pre = await this.store.settlement(hash!);
      if (pre) throw new BadUserInputError(`invoice has already been paid, preimage: ${pre}`);
    };
    await settledText();
    const attempt = await this.store.latest(hash);
    if (attempt && attempt.status !== "failed" && !(attempt.status === "succeeded" && !attempt.preimage)) {
      const tip = await this.ctx.chain.tipHeight();
      if (tip <= expiry) throw new BadUserInputError("This lightning payment is not eligible for revocation yet");
      // past expiry: a last look at the node before giving the money back
      const pays = this.backend ? await this.backend.listPays(Buffer.from(hash, "hex")) : [];
      const done = pays.find((p) => p.status === "complete" && p.preimage);
      if (done) {
        await this.onPay(done);
        throw new BadUserInputError(`This lightning payment has completed. preimage: ${toHex(done.preimage!)}`);
      }
    }
    const receive = await this.receive?.subscription(hash);
    const intraArk = receive && attempt && receive.intraArkAttempt === attempt.id ? attempt : undefined;
    const beforeRecord = async () => {
      await settledText();
      if (intraArk) await this.receive!.beforeRevocation(hash!);
    };
    try {
      const signed = await this.arkoor.requestArkoorCosign(parts, { inputs: "htlc-send", exitDepthLimit: false, dustMixRule: false, onePerInput: true, beforeRecord });
      if (intraArk?.status === "pending") await this.failIntraArk(hash, intraArk.id, "revoked by the sender");
      return signed;
    } catch (e) {
      if (e instanceof UnusableInputsError) await settledText();
      throw e;
    }
  }

  // ---- FetchBolt12Invoice -----------------------------------------------------------------

  async fetchBolt12Invoice(offer: Uint8Array | undefined, amountSat: bigint | undefined): Promise<Uint8Array> {
    const backend = this.requireBackend();
    if (!offer || offer.length === 0) throw new BadUserInputError("invalid offer");
    let read;
    try {
      read = readOffer(offer);
    } catch {
      throw new BadUserInputError("invalid offer");
    }
    if (amountSat === undefined && (read.amountMsat === undefined || read.currency)) throw new BadUserInputError("cannot determine the amount to request for this offer");
    try {
      return await backend.fetchInvoice(offer, amountSat !== undefined ? amountSat * 1000n : undefined);
    } catch (e) {
      if (e instanceof LightningBackendError) throw new BadUserInputError(e.message);
      throw e;
    }
  }

  // ---- outcomes ---------------------------------------------------------------------------

  /** Applies a payment update of the backend to the latest pending attempt of its hash. */
  private async onPay(p: LightningPay): Promise<void> {
    const hash = toHex(p.paymentHash);
    const attempt = await this.store.latest(hash);
    if (!attempt || attempt.status !== "pending") return;
    if (p.status === "complete") {
      if (!p.preimage || !bytesEqual(sha256(p.preimage), p.paymentHash)) return;
      const missed = await this.store.succeed(attempt, toHex(p.preimage));
      if (missed.length) this.ctx.logger.warn(`lightning: payment ${hash} succeeded but HTLC VTXO(s) ${missed.join(", ")} were no longer spendable`);
    } else if (p.status === "failed") {
      // another payment of the same hash may still be in flight
      const pays = this.backend ? await this.backend.listPays(p.paymentHash) : [];
      if (pays.some((q) => q.status === "pending")) return;
      const done = pays.find((q) => q.status === "complete");
      if (done) return this.onPay(done);
      await this.store.fail(attempt, p.failure ?? "payment failed");
    } else {
      return;
    }
    await this.finished(hash);
  }

  /**
   * Tells the sender once (idempotent: a mailbox post per attempt), then wakes waiters: a check
   * waiting for the outcome answers once the sender's mailbox holds it.
   */
  private async finished(hash: string): Promise<void> {
    try {
      const a = await this.store.latest(hash);
      if (!a || a.status === "pending" || a.notified) return;
      if (a.senderMailbox) await this.mailbox.postLightningSendFinished(a.senderMailbox, Buffer.from(hash, "hex"), a.preimage ? Buffer.from(a.preimage, "hex") : undefined, a.id);
      await this.store.markNotified(a.id);
    } finally {
      for (const w of [...(this.waiters.get(hash) ?? [])]) w();
    }
  }

  private async resumeIntraArk(a: PaymentAttempt, receiveStatus: string): Promise<void> {
    if (receiveStatus !== "created") {
      await this.failIntraArk(a.paymentHash, a.id, `the receive is no longer awaiting payment (status: ${receiveStatus})`);
      return;
    }
    const rows = await Promise.all(a.htlcVtxoIds.map((id) => this.ctx.store.getVtxo(id)));
    await this.payIntraArk(a, minHtlcExpiry(rows.flatMap((r) => (r ? [vtxoFromBytes(r.bytes)] : []))));
  }

  /** Brings every unfinished attempt in line with the backend (and pays again one the backend never saw). */
  async reconcile(): Promise<void> {
    const backend = this.backend;
    if (!backend) return;
    for (const a of await this.store.unfinished()) {
      if (a.status !== "pending") {
        await this.finished(a.paymentHash);
        continue;
      }
      const pays = await backend.listPays(Buffer.from(a.paymentHash, "hex"));
      const receive = pays.length === 0 ? await this.receive?.subscription(a.paymentHash) : undefined;
      if (receive) {
        // an intra-Ark payment: the receive side ends it; one stopped before the receive took it is handed over now
        if (receive.intraArkAttempt !== a.id) await this.resumeIntraArk(a, receive.status);
        continue;
      }
      if (pays.length === 0) {
        const vtxos = await Promise.all(a.htlcVtxoIds.map((id) => this.ctx.store.getVtxo(id)));
        const policies = vtxos.flatMap((r) => (r ? [vtxoFromBytes(r.bytes)] : []));
        const sum = policies.reduce((s, v) => s + v.amount, 0n);
        const amount = a.amountMsat / 1000n;
        const tip = await this.ctx.chain.tipHeight();
        const fee = lightningSendFee(this.ctx.config.fees.lightningSend, amount, policies.map((v) => ({ amount: v.amount, blocksToExpiry: Math.max(0, v.expiryHeight - tip) })));
        const expiry = Math.min(...policies.map((v) => (v.policy as HtlcSendPolicy).htlcExpiry));
        this.ctx.logger.info(`lightning: attempt ${a.id} for ${a.paymentHash} was never handed to the node; paying now`);
        await this.pay(backend, a, lightningMaxRoutingFeeSat(fee, LN_MAX_FEE_PPM, sum, amount), expiry);
        continue;
      }
      const done = pays.find((p) => p.status === "complete");
      if (done) await this.onPay(done);
      else if (pays.every((p) => p.status === "failed")) await this.onPay(pays[pays.length - 1]!);
    }
  }
}

function minHtlcExpiry(vtxos: readonly { policy: unknown }[]): number {
  return Math.min(...vtxos.map((v) => (v.policy as HtlcSendPolicy).htlcExpiry));
}

function sameSet(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && [...a].sort().join() === [...b].sort().join();
}

function hashOf(bytes: Uint8Array | undefined): string {
  if (!bytes || bytes.length !== 32) throw new BadUserInputError("invalid payment hash");
  return toHex(bytes);
}


