/**
 * Lightning receive on the server side (captaind's rules and texts):
 *
 * | RPC | What the server does |
 * |---|---|
 * | `StartLightningReceive` | checks the request, issues a hold invoice on the Lightning node for the wallet's payment hash (or returns the open one), stores the subscription `created` with the receiver's mailbox id |
 * | `CheckLightningReceive` | the subscription's invoice, amount, status and granted HTLC-recv VTXO ids (`wait`: blocks while `created`) |
 * | `PrepareLightningReceiveClaim` | anti-DoS proof, expiry safety against the payer's HTLCs, then grants HTLC-recv VTXOs from the VTXO pool (`htlcs-ready`) |
 * | `ClaimLightningReceive` | preimage against the hash, inputs = the granted VTXOs; records the preimage (settlement log, `settled`), then cosigns the claim arkoor |
 * | `CancelLightningReceive` | cancels while nothing was granted |
 *
 * In the background the monitor turns held payer HTLCs into `accepted` (and posts
 * `IncomingLightningPayment` to the receiver's mailbox once), cancels receives whose invoice
 * expired or whose HTLCs were not granted in time, and the settler settles the hold invoice of
 * every `settled` receive (or, for a payment from inside the Ark, completes the sender's
 * attempt) until that succeeded — the preimage is persisted before, so a restart resumes it.
 */
import { refuseIfListed } from "../refused-calls.js";
import { sha256 } from "@noble/hashes/sha2.js";
import {
  bytesEqual, encodeOutPoint, encodeVtxo, formatOutPoint, lightningReceiveAttestation, lightningReceiveFee, parseOutPoint, toHex, verifyAttestation,
  type HtlcReceivePolicy,
} from "@tender/ark-protocol";
import type { LightningReceiveAntiDos, LightningReceiveState, LightningReceiveStatus, PrepareLightningReceiveClaimResponse } from "@tender/ark-protocol/server";
import type { ArkoorCosignPartRequest, ArkoorCosignPartResponse, ArkoorService } from "../arkoor-service.js";
import type { MailboxService } from "../mailbox-service.js";
import { pubkeyFromBytes, vtxoFromBytes, vtxoIdText } from "../request-decoding.js";
import type { RoundStore } from "../rounds/round-store.js";
import type { ServerContext } from "../server-context.js";
import { BadUserInputError, NotFoundError, UnavailableError } from "../server-errors.js";
import { decodeBolt11 } from "../../lightning/bolt11-codec.js";
import type { HoldInvoice, LightningBackend, LightningHoldInvoiceBackend } from "../../lightning/lightning-backend.js";
import type { LightningStore } from "./lightning-store.js";
import { receiveSettings } from "./receive-settings.js";
import { PoolRaceError, ReceiveStore, type ReceiveSubscription } from "./receive-store.js";
import { PoolEmptyError, VtxoPool } from "./vtxo-pool.js";

const PVER_LIGHTNING = 5;
const UPDATE_MESSAGE = "YOU NEED TO UPDATE YOUR WALLET VERSION FOR THIS OPERATION";
/** Longest BOLT11 description (the `d` field holds at most 639 bytes). */
const MAX_DESCRIPTION_BYTES = 639;
/** Blocks a payer's HTLC must still have when the server settles it. */
const SETTLE_SAFETY_BLOCKS = 3;
/** The only token kind a receive claim accepts. */
export const RECEIVE_TOKEN_KIND = "single-use-board";

/** A node that holds invoices as well as paying them. */
export type HoldInvoiceNode = LightningBackend & LightningHoldInvoiceBackend;

/** Whether a backend offers the hold-invoice calls. */
export function holdInvoiceNode(b: LightningBackend | undefined): HoldInvoiceNode | undefined {
  return b && typeof (b as Partial<LightningHoldInvoiceBackend>).createHoldInvoice === "function" ? (b as HoldInvoiceNode) : undefined;
}

/** What the receive side asks of the send side for payments between two wallets of this server. */
export interface IntraArkSender {
  /** The receiver revealed the preimage: the sender's attempt succeeds (HTLC-send VTXOs spent, sender told). */
  completeIntraArk(paymentHash: string, attemptId: number, preimage: string): Promise<void>;
  /** The receive was canceled: the sender's attempt fails (the sender may revoke). */
  failIntraArk(paymentHash: string, attemptId: number, why: string): Promise<void>;
}

/** The Lightning-receive side of the server. */
export class LightningReceiveService {
  readonly store: ReceiveStore;
  readonly pool: VtxoPool;
  /** Set by the server once the send side exists. */
  sender: IntraArkSender | undefined;
  private readonly node: HoldInvoiceNode | undefined;
  private readonly waiters = new Map<string, Set<() => void>>();
  private readonly claiming = new Set<string>();
  private unsubscribe: (() => void) | undefined;
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private lastPoolCheck = 0;
  private stopped = false;

  constructor(
    private readonly ctx: ServerContext,
    private readonly arkoor: ArkoorService,
    private readonly mailbox: MailboxService,
    private readonly lnStore: LightningStore,
    rounds: RoundStore,
    backend: LightningBackend | undefined,
  ) {
    this.store = new ReceiveStore(ctx.store);
    this.pool = new VtxoPool(ctx, rounds);
    this.node = holdInvoiceNode(backend);
  }

  /** Follows hold-invoice updates and runs the monitor, the settler and the pool's top-up periodically. */
  start(): void {
    if (!this.node) return;
    this.ctx.walletCoinHolds.add(() => this.pool.heldWalletCoins());
    this.unsubscribe = this.node.onHoldInvoiceUpdate((inv) => void this.onHoldUpdate(inv).catch((e: unknown) => this.ctx.logger.warn(`lightning receive: hold invoice update: ${String(e)}`)));
    const tick = () => {
      if (this.stopped) return;
      this.running = this.background().catch((e: unknown) => this.ctx.logger.warn(`lightning receive: background: ${String(e)}`));
      void this.running.then(() => {
        if (!this.stopped) this.timer = setTimeout(tick, receiveSettings(this.ctx.config).monitorIntervalMs);
      });
    };
    tick();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.unsubscribe?.();
    if (this.timer) clearTimeout(this.timer);
    await this.running;
    for (const set of this.waiters.values()) for (const w of [...set]) w();
  }

  private requireNode(): HoldInvoiceNode {
    if (!this.node) throw new UnavailableError("no Lightning node configured");
    return this.node;
  }

  // ---- StartLightningReceive -------------------------------------------------------------

  async startReceive(req: { paymentHash: Uint8Array; amountSat: bigint; minCltvDelta: number; mailboxId?: Uint8Array; description?: string }, pver: number): Promise<string> {
    if (pver < PVER_LIGHTNING) throw new UnavailableError(UPDATE_MESSAGE);
    const node = this.requireNode();
    const hash = hashOf(req.paymentHash);
    const cfg = this.ctx.config;
    if (await this.lnStore.isUnlockHash(hash)) throw new BadUserInputError("payment hash collides with an existing unlock hash");
    if (req.amountSat <= 0n) throw new BadUserInputError("Cannot create invoice for 0 sats (this would create an explicit 0 sat invoice, not an amountless invoice)");
    const description = req.description ?? "";
    if (Buffer.byteLength(description, "utf8") > MAX_DESCRIPTION_BYTES) throw new BadUserInputError(`invalid invoice description: longer than ${MAX_DESCRIPTION_BYTES} bytes`);
    if (req.minCltvDelta > cfg.maxUserInvoiceCltvDelta) {
      throw new Error(`Requested min HTLC CLTV delta is greater than max HTLC recv CLTV delta: ${req.minCltvDelta} > ${cfg.maxUserInvoiceCltvDelta}`);
    }
    const fee = lightningReceiveFee(cfg.fees.lightningReceive, req.amountSat);
    if (fee >= req.amountSat) throw new Error(`Fee (${fee}) exceeds amount (${req.amountSat})`);
    if (cfg.maxVtxoAmount !== undefined && req.amountSat > cfg.maxVtxoAmount) throw new BadUserInputError(`Requested amount exceeds limit of ${cfg.maxVtxoAmount}`);
    if (cfg.maxLnReceiveAmount !== undefined && req.amountSat > cfg.maxLnReceiveAmount) throw new BadUserInputError(`Requested amount exceeds lightning receive limit of ${cfg.maxLnReceiveAmount}`);
    const mailboxId = req.mailboxId && req.mailboxId.length ? toHex(pubkeyFromBytes(req.mailboxId)) : null;
    const existing = await this.store.get(hash);
    if (existing?.status === "settled") throw new Error("invoice already settled");
    if (existing?.status === "accepted") throw new Error("invoice already accepted");
    if (existing?.status === "htlcs-ready") throw new Error("invoice already has htlcs ready");
    if (existing?.status === "created") return existing.invoice;
    let invoice: string;
    if (existing) {
      invoice = existing.invoice;
      await node.injectHoldInvoice(invoice);
    } else {
      invoice = await node.createHoldInvoice({
        paymentHash: req.paymentHash, amountMsat: req.amountSat * 1000n, minFinalCltvExpiry: req.minCltvDelta + cfg.htlcExpiryDelta,
        expirySecs: receiveSettings(cfg).invoiceExpirySecs, description,
      });
    }
    await this.store.create({ paymentHash: hash, invoice, amountSat: existing ? existing.amountSat : req.amountSat, mailboxId });
    this.ctx.logger.debug(`lightning receive: invoice for ${hash} (${req.amountSat} sat)`);
    return (await this.store.get(hash))!.invoice;
  }

  // ---- CheckLightningReceive -------------------------------------------------------------

  async check(hashBytes: Uint8Array | undefined, wait: boolean, signal?: AbortSignal): Promise<LightningReceiveStatus> {
    const hash = hashOf(hashBytes);
    const deadline = Date.now() + receiveSettings(this.ctx.config).checkWaitMs;
    for (;;) {
      const sub = await this.store.get(hash);
      if (!sub) throw new NotFoundError("invoice not found", [hash]);
      if (!wait || sub.status !== "created" || this.stopped || signal?.aborted || Date.now() >= deadline) return statusOf(sub);
      await this.waitFor(hash, deadline - Date.now(), signal);
    }
  }

  private waitFor(hash: string, ms: number, signal?: AbortSignal): Promise<void> {
    return new Promise((resolve) => {
      const set = this.waiters.get(hash) ?? new Set();
      this.waiters.set(hash, set);
      const timer = setTimeout(done, Math.max(0, ms));
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

  private wake(hash: string): void {
    for (const w of [...(this.waiters.get(hash) ?? [])]) w();
  }

  // ---- PrepareLightningReceiveClaim ------------------------------------------------------

  async prepareClaim(req: { paymentHash: Uint8Array; userPubkey: Uint8Array; htlcRecvExpiry: number; antiDos?: LightningReceiveAntiDos }, pver: number): Promise<PrepareLightningReceiveClaimResponse> {
    if (pver < PVER_LIGHTNING) throw new UnavailableError(UPDATE_MESSAGE);
    const hash = hashOf(req.paymentHash);
    if (this.claiming.has(hash)) throw new Error("a claim for this payment hash is already in progress");
    this.claiming.add(hash);
    try {
      return await this.prepareClaimLocked(hash, req);
    } finally {
      this.claiming.delete(hash);
    }
  }

  private async prepareClaimLocked(hash: string, req: { paymentHash: Uint8Array; userPubkey: Uint8Array; htlcRecvExpiry: number; antiDos?: LightningReceiveAntiDos }): Promise<PrepareLightningReceiveClaimResponse> {
    const sub = await this.store.get(hash);
    if (!sub) throw new NotFoundError("invoice not found", [hash]);
    if (sub.status === "htlcs-ready") return this.granted(sub);
    if (sub.status === "canceled") throw new BadUserInputError("payment canceled");
    if (sub.status === "settled") throw new BadUserInputError("payment already settled");
    if (sub.status === "created") throw new BadUserInputError("payment not yet initiated by sender");
    const userPubkey = pubkeyFromBytes(req.userPubkey);
    await this.checkAntiDos(req.paymentHash, req.antiDos);
    const cfg = this.ctx.config;
    const htlcAmount = sub.amountSat - lightningReceiveFee(cfg.fees.lightningReceive, sub.amountSat);
    const tip = await this.ctx.chain.tipHeight();
    const lowest = sub.lowestHtlcExpiry ?? 0;
    if (tip + cfg.htlcExpiryDelta > lowest) throw new BadUserInputError(`Inbound HTLC too close to expiring: tip ${tip} + htlc expiry delta ${cfg.htlcExpiryDelta} > lowest inbound HTLC expiry ${lowest}`);
    if (req.htlcRecvExpiry + cfg.htlcExpiryDelta > lowest) {
      throw new BadUserInputError(`Requested HTLC recv expiry too close to inbound HTLC expiry: ${req.htlcRecvExpiry} + ${cfg.htlcExpiryDelta} > ${lowest}`);
    }
    const policy: HtlcReceivePolicy = { type: "server-htlc-receive", userPubkey, paymentHash: req.paymentHash, htlcExpiry: req.htlcRecvExpiry, htlcExpiryDelta: cfg.htlcExpiryDelta };
    for (let attempt = 0; ; attempt++) {
      let grant;
      try {
        grant = await this.pool.buildGrant(htlcAmount, policy);
      } catch (e) {
        if (!(e instanceof PoolEmptyError) || attempt > 0) throw e;
        // nothing fits: issue now (the background top-up may not have run yet), then try once more
        await this.pool.topUp(true).catch((err: unknown) => this.ctx.logger.warn(`vtxo pool: ${String(err)}`));
        continue;
      }
      const row = (v: ReturnType<typeof vtxoFromBytes>, state: "spendable" | "htlc-recv-unclaimed") => ({ id: formatOutPoint(v.point), bytes: encodeVtxo(v), state, userPubkey: toHex(v.policy.userPubkey), policyType: v.policy.type });
      const htlcIds = sortById(grant.htlcs.map((v) => formatOutPoint(v.point)));
      try {
        const ok = await this.store.grant(hash, {
          inputs: grant.inputs, txs: grant.txs, htlcVtxoIds: htlcIds,
          outputs: [...grant.htlcs.map((v) => row(v, "htlc-recv-unclaimed")), ...grant.change.map((v) => row(v, "spendable"))],
        });
        if (!ok) {
          const now = await this.store.get(hash);
          if (now?.status === "htlcs-ready") return this.granted(now);
          throw new BadUserInputError(`payment status in incorrect state: ${now?.status ?? "unknown"}`);
        }
      } catch (e) {
        if (e instanceof PoolRaceError && attempt === 0) continue;
        throw e;
      }
      this.ctx.logger.debug(`lightning receive: ${hash} granted ${htlcIds.join(", ")} (${htlcAmount} sat)`);
      this.wake(hash);
      return this.granted((await this.store.get(hash))!);
    }
  }

  private async checkAntiDos(paymentHash: Uint8Array, proof: LightningReceiveAntiDos | undefined): Promise<void> {
    if (!proof) {
      if (this.ctx.config.lnReceiveAntiDosRequired) throw new BadUserInputError("either a receive token or a challenge proof must be provided");
      return;
    }
    if (proof.kind === "vtxo") {
      const id = vtxoIdText(proof.vtxoId);
      const row = await this.ctx.store.getVtxo(id);
      if (!row) throw new NotFoundError("anti-dos proof vtxo not found", [id]);
      const tip = await this.ctx.chain.tipHeight();
      const exited = (await this.ctx.chain.getTxStatus(id.split(":")[0]!)) !== undefined;
      const banned = row.bannedUntilHeight !== null && tip < row.bannedUntilHeight;
      if (exited || banned || (row.state !== "spendable" && row.state !== "unregistered")) throw new BadUserInputError("anti-dos proof vtxo must be spendable", undefined, [id]);
      const v = vtxoFromBytes(row.bytes);
      if (proof.attestation.length !== 64 || !verifyAttestation(proof.attestation, lightningReceiveAttestation(paymentHash, encodeOutPoint(v.point)), v.policy.userPubkey)) {
        throw new BadUserInputError("vtxo attestation invalid", undefined, [id]);
      }
      return;
    }
    const t = await this.store.token(proof.token);
    if (!t) throw new NotFoundError("receive token not found");
    if (t.expiresAtSecs <= this.ctx.nowSecs()) throw new BadUserInputError("receive token expired");
    if (t.status !== "unused") throw new BadUserInputError("receive token already used");
    if (t.kind !== RECEIVE_TOKEN_KIND) throw new BadUserInputError(`receive token of wrong type: ${t.kind}`);
    if (!(await this.store.useToken(proof.token))) throw new BadUserInputError("receive token already used");
  }

  private async granted(sub: ReceiveSubscription): Promise<PrepareLightningReceiveClaimResponse> {
    const rows = await Promise.all(sub.htlcVtxoIds.map((id) => this.ctx.store.getVtxo(id)));
    return { receive: statusOf(sub), htlcVtxos: rows.map((r) => r!.bytes) };
  }

  // ---- ClaimLightningReceive -------------------------------------------------------------

  async claim(req: { paymentHash: Uint8Array; preimage: Uint8Array; parts: readonly ArkoorCosignPartRequest[] }, pver: number): Promise<ArkoorCosignPartResponse[]> {
    if (pver < PVER_LIGHTNING) throw new UnavailableError(UPDATE_MESSAGE);
    refuseIfListed(this.ctx.config, "ClaimLightningReceive");
    const hash = hashOf(req.paymentHash);
    if (req.preimage.length !== 32 || !bytesEqual(sha256(req.preimage), req.paymentHash)) throw new BadUserInputError("preimage doesn't match payment hash");
    const sub = await this.store.get(hash);
    if (!sub) throw new NotFoundError("invoice not found", [hash]);
    if (sub.status === "htlcs-ready") {
      if (sub.intraArkAttempt === null) {
        const tip = await this.ctx.chain.tipHeight();
        if (tip + SETTLE_SAFETY_BLOCKS > (sub.lowestHtlcExpiry ?? 0)) {
          throw new BadUserInputError(`the lowest inbound HTLC expiry (${sub.lowestHtlcExpiry}) is too close to the current chaintip to safely settle the hold invoice (tip: ${tip})`);
        }
      }
    } else if (sub.status !== "settled") {
      throw new BadUserInputError(`payment status in incorrect state: ${sub.status}`);
    }
    const inputs = req.parts.map((p) => vtxoIdText(p.inputVtxoId));
    const expected = sortById(sub.htlcVtxoIds);
    if (inputs.length !== expected.length || inputs.some((id, i) => id !== expected[i])) {
      throw new BadUserInputError(`cosign inputs do not match htlcs: expected ${expected.join(", ")}, got ${inputs.join(", ")}`);
    }
    if (sub.status === "htlcs-ready") {
      // the preimage first: from here on the payment is the receiver's, whatever happens next
      if (!(await this.store.settle(hash, toHex(req.preimage), expected))) {
        const now = await this.store.get(hash);
        if (now?.status !== "settled") throw new BadUserInputError(`payment status in incorrect state: ${now?.status ?? "unknown"}`);
      }
      this.ctx.logger.debug(`lightning receive: ${hash} claimed`);
      this.wake(hash);
      void this.settleOne(hash).catch((e: unknown) => this.ctx.logger.warn(`lightning receive: settling ${hash}: ${String(e)}`));
    }
    return this.arkoor.requestArkoorCosign(req.parts, { inputs: "htlc-recv", exitDepthLimit: false, dustMixRule: false, onePerInput: true });
  }

  // ---- CancelLightningReceive ------------------------------------------------------------

  async cancel(hashBytes: Uint8Array | undefined): Promise<void> {
    const hash = hashOf(hashBytes);
    const sub = await this.store.get(hash);
    if (!sub) throw new NotFoundError("invoice not found", [hash]);
    if (sub.status === "htlcs-ready") throw new BadUserInputError("cannot cancel: HTLC-recv vtxos have already been granted");
    if (sub.status === "settled") throw new BadUserInputError("cannot cancel: payment already settled");
    if (sub.status === "canceled") return;
    if (!(await this.cancelSubscription(sub, ["created", "accepted"], "canceled by the receiver"))) {
      const now = await this.store.get(hash);
      if (now?.status !== "canceled") throw new BadUserInputError(`cannot cancel: payment status is ${now?.status ?? "unknown"}`);
    }
  }

  /** Sets `canceled` (from `from`), then cancels the hold invoice (best effort) or fails the intra-Ark sender. */
  private async cancelSubscription(sub: ReceiveSubscription, from: readonly LightningReceiveState[], why: string): Promise<boolean> {
    if (!(await this.store.cancel(sub.paymentHash, from))) return false;
    this.ctx.logger.debug(`lightning receive: ${sub.paymentHash} canceled (${why})`);
    if (sub.htlcVtxoIds.length) await this.store.retireHtlcs(sub.htlcVtxoIds);
    if (sub.intraArkAttempt !== null) await this.sender?.failIntraArk(sub.paymentHash, sub.intraArkAttempt, why);
    else await this.node?.cancelHoldInvoice(Buffer.from(sub.paymentHash, "hex")).catch((e: unknown) => this.ctx.logger.warn(`lightning receive: cancel hold invoice ${sub.paymentHash}: ${String(e)}`));
    this.wake(sub.paymentHash);
    return true;
  }

  // ---- intra-Ark payments (called by the send side) ----------------------------------------

  /** The subscription of a hash, if this server issued its invoice. */
  subscription(paymentHashHex: string): Promise<ReceiveSubscription | undefined> {
    return this.store.get(paymentHashHex);
  }

  /**
   * A wallet of this server pays the invoice: `created` → `accepted` with the sender's lowest
   * HTLC expiry and its attempt, the receiver told, the hold invoice cancelled on the node (no
   * Lightning payment is made). False if the subscription was not `created`.
   */
  async acceptIntraArk(paymentHashHex: string, lowestHtlcExpiry: number, attemptId: number): Promise<boolean> {
    if (!(await this.store.accept(paymentHashHex, lowestHtlcExpiry, attemptId))) return false;
    await this.notifyReceiver(paymentHashHex);
    await this.node?.cancelHoldInvoice(Buffer.from(paymentHashHex, "hex")).catch((e: unknown) => this.ctx.logger.warn(`lightning receive: cancel hold invoice ${paymentHashHex}: ${String(e)}`));
    this.wake(paymentHashHex);
    return true;
  }

  /**
   * Before an intra-Ark sender's HTLCs are revoked: refused once the receiver holds HTLC-recv
   * VTXOs or claimed, else the receive is canceled.
   */
  async beforeRevocation(paymentHashHex: string): Promise<void> {
    const sub = await this.store.get(paymentHashHex);
    if (!sub || sub.intraArkAttempt === null) return;
    if (sub.status === "htlcs-ready" || sub.status === "settled") throw new BadUserInputError(`invoice receive is already committed (status: ${sub.status}), cannot revoke the payment`);
    if (sub.status !== "canceled" && !(await this.store.cancel(paymentHashHex, ["created", "accepted"]))) {
      const now = await this.store.get(paymentHashHex);
      throw new BadUserInputError(`invoice receive is already committed (status: ${now?.status ?? "unknown"}), cannot revoke the payment`);
    }
    this.wake(paymentHashHex);
  }

  // ---- background ------------------------------------------------------------------------

  private async onHoldUpdate(inv: HoldInvoice): Promise<void> {
    const sub = await this.store.get(toHex(inv.paymentHash));
    if (!sub) return;
    await this.follow(sub, inv);
  }

  /** One pass: every open subscription, then the pool's top-up when its period passed. */
  private async background(): Promise<void> {
    for (const sub of await this.store.open()) {
      try {
        await this.follow(sub, undefined);
      } catch (e) {
        this.ctx.logger.warn(`lightning receive: ${sub.paymentHash}: ${String(e)}`);
      }
    }
    const s = receiveSettings(this.ctx.config);
    if (Date.now() - this.lastPoolCheck >= s.poolIssueIntervalMs) {
      this.lastPoolCheck = Date.now();
      if (await this.pool.everIssued()) await this.pool.topUp().catch((e: unknown) => this.ctx.logger.debug(`vtxo pool: ${String(e)}`));
    }
  }

  /** Moves one subscription along (the hold invoice as the node reports it, fetched when not given). */
  private async follow(sub: ReceiveSubscription, reported: HoldInvoice | undefined): Promise<void> {
    const node = this.node;
    if (!node) return;
    const hashBytes = Buffer.from(sub.paymentHash, "hex");
    const intra = sub.intraArkAttempt !== null;
    const inv = intra ? undefined : reported ?? (await node.listHoldInvoices(hashBytes))[0];
    if (sub.status === "created") {
      if (inv?.state === "accepted" && inv.heldHtlcExpiries.length) return this.onAccepted(sub, inv);
      const d = decodeBolt11(sub.invoice);
      if (Number(this.ctx.nowSecs()) >= d.timestamp + d.expirySecs) await this.cancelSubscription(sub, ["created"], "invoice expired");
      return;
    }
    if (sub.status === "accepted") {
      if (!sub.notified) await this.notifyReceiver(sub.paymentHash);
      const timeout = receiveSettings(this.ctx.config).htlcForwardTimeoutMs;
      if (inv && inv.state === "cancelled") await this.cancelSubscription(sub, ["accepted"], "the payer's HTLCs are gone");
      else if (sub.acceptedAt && Date.now() - Date.parse(sub.acceptedAt) > timeout) await this.cancelSubscription(sub, ["accepted"], "HTLCs not claimed in time");
      return;
    }
    if (sub.status === "htlcs-ready") {
      if (!sub.notified) await this.notifyReceiver(sub.paymentHash);
      if (intra) return;
      const tip = await this.ctx.chain.tipHeight();
      if ((inv && inv.state === "cancelled") || tip + SETTLE_SAFETY_BLOCKS > (sub.lowestHtlcExpiry ?? 0)) await this.cancelSubscription(sub, ["htlcs-ready"], "the payer's HTLCs expire before a claim");
      return;
    }
    if (sub.status === "settled") {
      if (!sub.notified) await this.notifyReceiver(sub.paymentHash);
      if (!sub.holdSettled) await this.settleOne(sub.paymentHash);
    }
  }

  /** The payer's HTLCs are held: accept if they leave the invoice's final CLTV delta, else cancel. */
  private async onAccepted(sub: ReceiveSubscription, inv: HoldInvoice): Promise<void> {
    const lowest = Math.min(...inv.heldHtlcExpiries);
    const tip = await this.ctx.chain.tipHeight();
    const minFinal = decodeBolt11(sub.invoice).minFinalCltvExpiryDelta;
    if (lowest < tip + minFinal - 1) {
      await this.cancelSubscription(sub, ["created"], `incoming HTLC expiry ${lowest} below tip ${tip} + final delta ${minFinal}`);
      return;
    }
    if (await this.store.accept(sub.paymentHash, lowest, null)) {
      this.ctx.logger.debug(`lightning receive: ${sub.paymentHash} accepted (lowest HTLC expiry ${lowest})`);
      await this.notifyReceiver(sub.paymentHash);
      this.wake(sub.paymentHash);
    }
  }

  /** Posts `IncomingLightningPayment` to the receiver's mailbox (the mailbox dedupes by hash), then marks it told. */
  private async notifyReceiver(hash: string): Promise<void> {
    const sub = await this.store.get(hash);
    if (!sub || sub.notified) return;
    if (sub.mailboxId) await this.mailbox.postIncomingLightningPayment(sub.mailboxId, Buffer.from(hash, "hex"), sub.amountSat * 1000n);
    await this.store.markNotified(hash);
  }

  /** Settles the hold invoice of a claimed receive (or completes the intra-Ark sender); retried by the monitor until it succeeds. */
  private async settleOne(hash: string): Promise<void> {
    const sub = await this.store.get(hash);
    if (!sub || sub.status !== "settled" || sub.holdSettled || !sub.preimage) return;
    if (sub.intraArkAttempt !== null) {
      await this.requireSender().completeIntraArk(hash, sub.intraArkAttempt, sub.preimage);
    } else {
      await this.requireNode().settleHoldInvoice(Buffer.from(sub.preimage, "hex"));
    }
    await this.store.markHoldSettled(hash);
    this.ctx.logger.debug(`lightning receive: ${hash} settled`);
  }

  private requireSender(): IntraArkSender {
    if (!this.sender) throw new Error("no Lightning send side to complete an intra-Ark payment");
    return this.sender;
  }
}

function statusOf(sub: ReceiveSubscription): LightningReceiveStatus {
  const ids = sub.status === "htlcs-ready" || sub.status === "settled" ? sub.htlcVtxoIds : [];
  return { invoice: sub.invoice, amountSat: sub.amountSat, state: sub.status, htlcVtxoIds: ids.map((id) => encodeOutPoint(parseOutPoint(id))) };
}

/** VTXO ids (`txid:vout`) in the order of their 36-byte encoding, as wallets sort them. */
function sortById(ids: readonly string[]): string[] {
  const key = (id: string) => Buffer.from(encodeOutPoint(parseOutPoint(id)));
  return [...ids].sort((a, b) => Buffer.compare(key(a), key(b)));
}

function hashOf(bytes: Uint8Array | undefined): string {
  if (!bytes || bytes.length !== 32) throw new BadUserInputError("invalid payment hash");
  return toHex(bytes);
}
