import { randomUUID } from "node:crypto";
import { ActionEngine, BadRequestError, InternalServerError } from "@tender/core";
import {
  estimateLightningSend, exitDepth, FeeError, lightningPaymentAmount, LightningSendError, lightningSendFee, selectVtxos, splitChange, toHex,
  type FeeEstimate,
} from "@tender/ark-protocol";
import type { Bolt12Offer } from "@tender/plugin-wallet";
import type { LightningRailSource } from "./lightning-rail.js";
import { fetchLnurlInvoice, LnurlPayError, type LnurlSettings } from "./lnurl-pay.js";
import { checkOfferInvoice, OfferPayError, offerAmountMsat } from "./offer-invoice.js";
import { PaidInvoiceRow } from "./paid-invoice-row.js";
import { LIGHTNING_SEND_ACTION } from "./send-action.js";
import { handedOver } from "./htlc-exit-handover.js";
import type { LightningSendPhase, LightningSendState } from "./send-state.js";

/** barkd's `LightningSendInfo`. */
export interface LightningSendInfo {
  payment_hash: string;
  state: LightningSendPhase | "unknown";
  invoice: string | null;
  preimage: string | null;
}

/** The BOLT11 currency of each wallet network. */
const INVOICE_NETWORK: Record<string, string> = { mainnet: "bitcoin", bitcoin: "bitcoin", testnet: "testnet", signet: "signet", mutinynet: "signet", regtest: "regtest" };

const message = (e: unknown) => (e instanceof Error ? e.message : String(e));

/** What paying needs of an invoice, BOLT11 or BOLT12 (already decoded and checked). */
export interface PayableInvoice {
  /** The invoice string handed to the server (`ln…` or `lni1…`). */
  readonly invoice: string;
  /** The invoice's network in BOLT11 naming (`bitcoin`, `testnet`, `signet`, `regtest`). */
  readonly network: string;
  readonly paymentHash: Uint8Array;
  readonly amountMsat: bigint | undefined;
}

/**
 * Starts Lightning sends and answers about them: checks the invoice (network, amount, not paid
 * and not in flight), selects inputs with the Lightning-send fee (soonest expiry first), derives
 * the HTLC key and hands everything to the persisted {@link LIGHTNING_SEND_ACTION}, which runs
 * until the payment is initiated. Also the send status, `pending_lightning_send_sat`, the fee
 * estimate, and the reaction to the server's `LightningSendFinished`.
 */
export class LightningSender {
  constructor(
    private readonly rail: LightningRailSource,
    private readonly engine: ActionEngine,
    private readonly lnurl: LnurlSettings = { overrides: new Map() },
    private readonly nowSecs: () => number = () => Math.floor(Date.now() / 1000),
  ) {}

  /**
   * Pays a BOLT12 offer: the server fetches an invoice for the user's amount (else the offer's),
   * which is checked against the offer (issuer signature, offer fields, exact amount, chain)
   * before anything is locked, then paid like an invoice.
   */
  async payOffer(offer: Bolt12Offer, userAmountSat: bigint | undefined): Promise<{ paymentHash: string }> {
    const w = await this.rail();
    const refuse = (e: unknown): never => {
      if (e instanceof OfferPayError) throw e.userError ? new BadRequestError(e.message) : new InternalServerError(`Failed to pay lightning offer: ${e.message}`);
      throw e;
    };
    let amountMsat: bigint;
    try {
      amountMsat = offerAmountMsat(offer, userAmountSat, w.network, this.nowSecs());
    } catch (e) {
      return refuse(e);
    }
    const bytes = await w.server.fetchBolt12Invoice({ offer: offer.bytes, ...(userAmountSat !== undefined ? { amountSat: userAmountSat } : {}) })
      .catch((e: unknown) => {
        throw new InternalServerError(`Failed to pay lightning offer: the Ark server could not fetch an invoice: ${message(e)}`);
      });
    let invoice;
    try {
      invoice = checkOfferInvoice(bytes, offer, amountMsat, w.network, this.nowSecs());
    } catch (e) {
      return refuse(e);
    }
    return this.payInvoice({ invoice: invoice.invoice, network: INVOICE_NETWORK[w.network] ?? w.network, paymentHash: invoice.paymentHash, amountMsat: invoice.amountMsat }, undefined);
  }

  /**
   * Pays through LNURL-pay (a Lightning address's or an LNURL's pay URL): the service's invoice
   * for exactly the amount, with the comment, is checked before anything is locked.
   */
  async payLnurl(payUrl: string, amountSat: bigint, comment: string | undefined): Promise<{ paymentHash: string }> {
    const w = await this.rail();
    if (amountSat === 0n) throw new BadRequestError("the amount must be greater than zero");
    let invoice;
    try {
      invoice = await fetchLnurlInvoice(payUrl, amountSat * 1000n, comment, {
        walletNetwork: w.network, overrides: this.lnurl.overrides, ...(this.lnurl.caFile !== undefined ? { caFile: this.lnurl.caFile } : {}), warn: (m) => w.logger.warn(m),
      });
    } catch (e) {
      if (e instanceof LnurlPayError) throw new InternalServerError(`Failed to pay lightning address/LNURL: ${e.message}`);
      throw e;
    }
    return this.payInvoice(invoice, undefined);
  }

  /** Pays a decoded BOLT11 (or checked BOLT12) invoice; resolves with the payment hash once the payment was initiated. */
  async payInvoice(invoice: PayableInvoice, userAmountSat: bigint | undefined): Promise<{ paymentHash: string }> {
    const w = await this.rail();
    const walletNetwork = w.network;
    if (INVOICE_NETWORK[walletNetwork] !== invoice.network) {
      throw new InternalServerError(`Failed to pay lightning invoice: the invoice is for network ${invoice.network}, the wallet is on ${walletNetwork}`);
    }
    let amount: bigint;
    try {
      amount = lightningPaymentAmount(invoice.amountMsat, userAmountSat);
    } catch (e) {
      if (e instanceof LightningSendError) throw new BadRequestError(e.message);
      throw e;
    }
    const paymentHash = toHex(invoice.paymentHash);
    const info = await w.server.connect().then((s) => s.arkInfo, (e: unknown) => {
      throw new InternalServerError(`Failed to pay lightning invoice: ${message(e)}`);
    });
    const tip = await w.tipHeight();
    // one selection at a time (shared by every rail): the in-flight check and the start are atomic
    const started = await w.locks.select(async (spendable) => {
      if (await this.paid(paymentHash)) throw new InternalServerError("Invoice has already been paid");
      if (await this.inFlight(paymentHash)) throw new InternalServerError("payment already in progress for this invoice");
      let chosen;
      try {
        chosen = selectVtxos(
          spendable.map((v) => ({ id: v.id, amount: v.amountSat, expiryHeight: v.vtxo.expiryHeight, exitDepth: exitDepth(v.vtxo) })),
          amount,
          {
            ...(info.maxVtxoExitDepth ? { maxExitDepth: info.maxVtxoExitDepth } : {}),
            fee: (sel) => lightningSendFee(info.fees.lightningSend, amount, sel.map((v) => ({ amount: v.amount, blocksToExpiry: Math.max(0, v.expiryHeight - tip) }))),
          },
        );
      } catch (e) {
        if (e instanceof FeeError) throw new InternalServerError(`Failed to pay lightning invoice: ${e.message}`);
        throw e;
      }
      const h = await w.keys.nextVtxoKey();
      const state: LightningSendState = {
        invoice: invoice.invoice, paymentHash, amountSat: amount.toString(), feeSat: chosen.fee.toString(),
        inputIds: chosen.selected.map((c) => c.id), htlcKeyIndex: h.index,
        changeAmounts: splitChange(chosen.total - amount - chosen.fee, amount, w.settings.change_vtxo_split_factor).map(String),
        htlcExpiry: tip + info.htlcSendExpiryDelta, phase: "start", movementId: null,
        htlcs: null, change: null, revocationKeyIndex: null, revoked: null, preimage: null,
      };
      // the lock step runs inside start(), before the selection lock is released
      return this.engine.start(LIGHTNING_SEND_ACTION, state, `lightning-send:${paymentHash}:${randomUUID()}`);
    });
    if (started.step === "failed") throw new InternalServerError(`Failed to pay lightning invoice: ${started.error ?? "unknown error"}`);
    // the server refused to pay with the HTLCs: they are revoked in the background
    if (started.state.initiateRefused !== undefined) throw new InternalServerError(`Failed to pay lightning invoice: ${started.state.initiateRefused}`);
    // the server reports the invoice paid by another payer: these HTLCs are asked back in the background
    if (started.state.paidByAnother !== undefined) throw new InternalServerError(`Failed to pay lightning invoice: ${started.state.paidByAnother}`);
    if (started.state.phase === "start" || started.state.phase === "htlc-received") {
      throw new InternalServerError(
        `Failed to pay lightning invoice: the Ark server did not answer (${started.state.lastError ?? "unknown error"}); ` +
          "the payment stays pending and is completed or revoked in the background",
      );
    }
    return { paymentHash };
  }

  /** `GET /lightning/sends/{hash}`: local state only; an unseen hash is `unknown`. */
  async status(paymentHash: string): Promise<LightningSendInfo> {
    const paid = await this.paid(paymentHash);
    if (paid) return { payment_hash: paymentHash, state: "paid", invoice: null, preimage: paid.preimage };
    const open = await this.inFlight(paymentHash);
    if (open) return { payment_hash: paymentHash, state: open.state.phase, invoice: open.state.invoice, preimage: null };
    return { payment_hash: paymentHash, state: "unknown", invoice: null, preimage: null };
  }

  /** Sats locked in HTLCs of sends not yet settled or revoked. */
  async pendingSat(): Promise<bigint> {
    let sum = 0n;
    for (const a of await this.engine.unfinished<LightningSendState>(LIGHTNING_SEND_ACTION)) {
      if (a.state.htlcs === null) continue;
      // handed to the exits: once exited they count as pending_exit_sat, not here
      if (handedOver(a.state)) for (const v of await (await this.rail()).vtxos.lockedBy(a.id)) sum += v.amountSat;
      else sum += BigInt(a.state.amountSat) + BigInt(a.state.feeSat);
    }
    return sum;
  }

  /** The server says a payment ended: progress its send now instead of at the next check. */
  async onFinished(paymentHash: string): Promise<void> {
    const open = await this.inFlight(paymentHash);
    if (open) await this.engine.drive(open.id);
  }

  /** `GET /fees/lightning/pay`: the fee over the VTXOs a send would spend (a worst-case input when they fall short). */
  async estimate(amountSat: bigint): Promise<FeeEstimate> {
    const w = await this.rail();
    const info = (await w.server.connect()).arkInfo;
    const tip = await w.tipHeight();
    const spendable = await w.vtxos.list(["spendable"]);
    return estimateLightningSend(
      info.fees, amountSat, spendable.map((v) => ({ id: v.id, amount: v.amountSat, expiryHeight: v.vtxo.expiryHeight, exitDepth: exitDepth(v.vtxo) })),
      tip, info.maxVtxoExitDepth || undefined,
    );
  }

  private async paid(paymentHash: string): Promise<PaidInvoiceRow | null> {
    return (await this.rail()).db.em().findOne(PaidInvoiceRow, { paymentHash });
  }

  private async inFlight(paymentHash: string) {
    return (await this.engine.unfinished<LightningSendState>(LIGHTNING_SEND_ACTION)).find((a) => a.state.paymentHash === paymentHash);
  }
}
