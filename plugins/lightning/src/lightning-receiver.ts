import { randomBytes } from "node:crypto";
import { ActionEngine, BadRequestError, InternalServerError } from "@tender/core";
import {
  AddressError, checkArkoorAddress, decodeArkAddress, decodeVtxo, fromHex, vtxoIdString, estimateLightningReceive, lightningReceiveFee, sha256, toHex, type FeeEstimate,
} from "@tender/ark-protocol";
import { protocolNetworkOf } from "@tender/plugin-ark";
import { LIGHTNING_RECEIVE_ACTION, MAX_EXPIRY_SECS, isExpiryAboveServer, minCltvDelta } from "./receive-action.js";
import { ReceiveCancelRow } from "./receive-cancel-row.js";
import type { LightningReceiveRailSource } from "./receive-rail.js";
import type { LightningReceiveState } from "./receive-state.js";

/** barkd's `LightningReceiveInfo`. */
export interface LightningReceiveInfo {
  payment_hash: string;
  state: string;
  invoice: string;
  payment_preimage: string | null;
  amount_sat: number;
  htlc_vtxo_ids: string[];
  settled_at: string | null;
  preimage_revealed_at: null;
  finished_at: string | null;
  htlc_vtxos: never[];
}

/** What a new receive asks for. */
export interface InvoiceRequest {
  amountSat: bigint;
  description?: string | undefined;
  token?: string | undefined;
  /** Receive-for-address: the Ark address the claimed VTXO goes to. */
  address?: string | undefined;
  /** The `expiry_secs` extension as the caller sent it (checked here): seconds until the invoice expires. */
  expirySecs?: unknown;
}

export const EXPIRY_SECS_REFUSED = "bad request: expiry_secs must be a whole number of seconds from 1 up to the Ark server's invoice expiry";

/** The caller's `expiry_secs`: absent/null → none; an integer 1 ≤ n ≤ 2³²−1 → n; anything else is a 400 before anything happens. */
export function parseExpirySecs(v: unknown): number | null {
  if (v === undefined || v === null) return null;
  const n = typeof v === "bigint" ? v : typeof v === "number" && Number.isSafeInteger(v) ? BigInt(v) : null;
  if (n === null || n < 1n || n > BigInt(MAX_EXPIRY_SECS)) {
    throw new BadRequestError(typeof v === "number" || typeof v === "bigint" ? `${EXPIRY_SECS_REFUSED} (got ${String(v)})` : `${EXPIRY_SECS_REFUSED} (got a ${typeof v})`);
  }
  return Number(n);
}

export const RECEIVE_NOT_FOUND = "no pending lightning receive found for this payment hash";
const message = (e: unknown) => (e instanceof Error ? e.message : String(e));
const actionId = (paymentHash: string) => `lightning-receive:${paymentHash}`;
const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

/**
 * Starts Lightning receives and answers about them: a fresh preimage and key, the persisted
 * {@link LIGHTNING_RECEIVE_ACTION} (saved with its preimage before the server is asked for the
 * invoice), the receive's status, the list in progress, cancel while awaiting payment,
 * `claimable_lightning_receive_sat`, the fee estimate and the reaction to `IncomingLightningPayment`.
 */
export class LightningReceiver {
  constructor(private readonly rail: LightningReceiveRailSource, private readonly engine: ActionEngine) {}

  /**
   * Creates an invoice; resolves with it once the receive awaits payment. Failures are barkd's 500
   * `Failed to create invoice: …` (`Failed to create invoice for address: …` for receive-for-address);
   * an `expiry_secs` out of range is a 400 that leaves nothing behind but a receive nobody saw.
   */
  async createInvoice(req: InvoiceRequest): Promise<string> {
    const prefix = req.address !== undefined ? "Failed to create invoice for address" : "Failed to create invoice";
    const fail = (why: string) => new InternalServerError(`${prefix}: ${why}`);
    const expirySecs = parseExpirySecs(req.expirySecs);
    const w = await this.rail();
    const info = await w.server.connect().then((c) => c.arkInfo, (e: unknown) => {
      throw fail(message(e));
    });
    let claimAddress: string | null = null;
    if (req.address !== undefined) claimAddress = await this.checkAddress(req.address, w.network, info.serverPubkey, (pk) => w.keys.isOwnPubkey(pk));
    if (req.amountSat <= 0n) throw fail("Cannot create invoice for 0 sats");
    const fee = lightningReceiveFee(info.fees.lightningReceive, req.amountSat);
    if (fee >= req.amountSat) throw fail(`Fee (${fee} sat) exceeds amount (${req.amountSat} sat)`);
    const delta = minCltvDelta(info, w.settings);
    if (delta > info.maxUserInvoiceCltvDelta) {
      throw fail(`the receive needs a final CLTV delta of ${delta} blocks, above the server's maximum of ${info.maxUserInvoiceCltvDelta}`);
    }
    const preimage = new Uint8Array(randomBytes(32));
    const paymentHash = toHex(sha256(preimage));
    const state: LightningReceiveState = {
      preimage: toHex(preimage), paymentHash, amountSat: req.amountSat.toString(), description: req.description ?? null, token: req.token ?? null,
      keyIndex: null, minCltvDelta: delta, claimAddress, createdAtMs: Date.now(), phase: "awaiting-payment", invoice: null, expirySecs,
      invoiceExpiresAtMs: null, requestedHtlcExpiry: null, htlcs: null, movementId: null, claimAttempts: 0, claimed: null, settledAtMs: null,
    };
    // the preimage is saved with the action before its first step asks the server for the invoice
    const started = await this.engine.start(LIGHTNING_RECEIVE_ACTION, state, actionId(paymentHash));
    if (started.step === "failed" && isExpiryAboveServer(started.error)) throw new BadRequestError(`bad request: ${started.error!}`);
    if (started.step === "failed") throw fail(started.error ?? "unknown error");
    if (started.state.invoice === null) throw fail(started.state.lastError ?? "the Ark server did not answer");
    return started.state.invoice;
  }

  /** The receive-for-address destination, checked as barkd does; `null` when the address is this wallet's own. */
  private async checkAddress(address: string, network: string, serverPubkey: Uint8Array, isOwn: (pk: Uint8Array) => Promise<boolean>): Promise<string | null> {
    let decoded;
    try {
      decoded = decodeArkAddress(address);
    } catch (e) {
      throw new BadRequestError(`bad request: address is not a valid Ark address: ${message(e)}`);
    }
    let deliveries;
    try {
      deliveries = checkArkoorAddress(decoded, { network: protocolNetworkOf(network), serverPubkey });
    } catch (e) {
      if (e instanceof AddressError && e.reason === "no-delivery") throw new BadRequestError("Ark address has no supported mailbox delivery mechanism");
      if (e instanceof AddressError) throw new BadRequestError(`bad request: address is not valid for this wallet: ${e.message}`);
      throw e;
    }
    if (!deliveries.some((d) => d.type === "server-mailbox")) throw new BadRequestError("Ark address has no supported mailbox delivery mechanism");
    return decoded.policy.type === "pubkey" && (await isOwn(decoded.policy.userPubkey)) ? null : address;
  }

  /** `GET /lightning/receives/{hash}`: in progress or settled; anything else is barkd's 500. */
  async status(paymentHash: string): Promise<LightningReceiveInfo> {
    const a = await this.engine.status<LightningReceiveState>(actionId(paymentHash));
    if (!a || a.step === "failed" || a.state.invoice === null) throw new InternalServerError(`Failed to get lightning receive status: ${RECEIVE_NOT_FOUND}`);
    return infoOf(a.state);
  }

  /** `GET /lightning/receives`: receives in progress, oldest first. */
  async list(): Promise<LightningReceiveInfo[]> {
    const open = (await this.engine.unfinished<LightningReceiveState>(LIGHTNING_RECEIVE_ACTION)).filter((a) => a.state.invoice !== null);
    return open.sort((a, b) => a.state.createdAtMs - b.state.createdAtMs).map((a) => infoOf(a.state));
  }

  /** `DELETE /lightning/receives/{hash}`: only while awaiting payment; the server is asked to cancel (best effort) and the receive ends. */
  async cancel(paymentHash: string): Promise<void> {
    const id = actionId(paymentHash);
    const a = await this.engine.status<LightningReceiveState>(id);
    if (!a || a.step === "done" || a.step === "failed") throw new InternalServerError(`Failed to cancel lightning receive: ${RECEIVE_NOT_FOUND}`);
    this.refuseCancel(a.state);
    const w = await this.rail();
    const em = w.db.em();
    if (!(await em.findOne(ReceiveCancelRow, { paymentHash }))) {
      em.create(ReceiveCancelRow, { paymentHash, requestedAtMs: BigInt(Date.now()) });
      await em.flush();
    }
    let after = await this.engine.drive(id);
    // a drive already under way may have been past the cancel check: drive once more
    if (after.step !== "failed" && after.step !== "done" && (after.state as LightningReceiveState).phase === "awaiting-payment") after = await this.engine.drive(id);
    if (after.step === "failed") return;
    await em.nativeDelete(ReceiveCancelRow, { paymentHash });
    this.refuseCancel(after.state as LightningReceiveState);
    throw new InternalServerError(`Failed to cancel lightning receive: ${after.error ?? (after.state as LightningReceiveState).lastError ?? "receive operation already in progress for this payment"}`);
  }

  private refuseCancel(s: LightningReceiveState): void {
    if (s.phase === "htlcs-ready") throw new InternalServerError("Failed to cancel lightning receive: cannot cancel: HTLCs already granted; the receive will complete or be abandoned near expiry");
    if (s.phase !== "awaiting-payment") throw new InternalServerError("Failed to cancel lightning receive: cannot cancel: preimage has already been revealed");
  }

  /**
   * Sats in granted HTLC-recv VTXOs not yet claimed (`claimable_lightning_receive_sat`): as barkd,
   * the HTLCs of every receive in `htlcs-ready` or `preimage-revealed`, a receive-for-address's
   * too; not once its claimed VTXO is being delivered to the other wallet.
   */
  async claimableSat(): Promise<bigint> {
    let sum = 0n;
    for (const a of await this.engine.unfinished<LightningReceiveState>(LIGHTNING_RECEIVE_ACTION)) {
      if (a.state.movementId === null || (a.state.phase !== "htlcs-ready" && a.state.phase !== "preimage-revealed")) continue;
      const w = await this.rail();
      for (const v of await w.vtxos.lockedBy(a.id)) sum += v.amountSat;
    }
    return sum;
  }

  /** `GET /fees/lightning/receive`: gross = the invoice amount, net = the VTXO credited. */
  async estimate(amountSat: bigint): Promise<FeeEstimate> {
    const w = await this.rail();
    const info = (await w.server.connect()).arkInfo;
    return estimateLightningReceive(info.fees, amountSat, info.maxVtxoAmount);
  }

  /** The server holds a payer's HTLCs for one of our receives: progress it now instead of at the next poll. */
  async onIncoming(paymentHash: string): Promise<void> {
    const a = await this.engine.status(actionId(paymentHash));
    if (a && a.step !== "done" && a.step !== "failed") await this.engine.drive(a.id);
  }
}

function infoOf(s: LightningReceiveState): LightningReceiveInfo {
  const granted = s.phase === "htlcs-ready" || s.phase === "preimage-revealed";
  const settledAt = s.phase === "settled" ? iso(s.settledAtMs) : null;
  return {
    payment_hash: s.paymentHash, state: s.phase, invoice: s.invoice!, payment_preimage: s.preimage, amount_sat: Number(s.amountSat),
    htlc_vtxo_ids: granted ? htlcIds(s) : [], settled_at: settledAt, preimage_revealed_at: null, finished_at: settledAt, htlc_vtxos: [],
  };
}

function htlcIds(s: LightningReceiveState): string[] {
  return (s.htlcs ?? []).map((h) => vtxoIdString(decodeVtxo(fromHex(h))));
}
