/**
 * BOLT 12 offers of the simulated Lightning network's payee: a test creates an offer, the Ark
 * server's node asks for an invoice (`fetchinvoice`) and the payee answers with an invoice it
 * signed, whose payment the network then settles like a normal BOLT11 invoice of the payee.
 *
 * | Offer mode | The invoice it answers |
 * |---|---|
 * | `honest` | for exactly the amount asked (or the offer's amount), signed by the issuer |
 * | `inflated-amount` | for more than was asked (amount + 1 000 sat), signed by the issuer |
 * | `wrong-key` | for the amount asked, but signed by a key other than the offer's issuer id |
 */
import { randomBytes } from "node:crypto";
import { secp256k1 } from "@noble/curves/secp256k1.js";
import { sha256 } from "@noble/hashes/sha2.js";
import { toHex } from "@tender/ark-protocol";
import { decodeBolt11, type Bolt11Network } from "./bolt11-codec.js";
import { bolt12String, decodeBolt12Invoice, encodeOffer, encodeSignedInvoice, readOffer } from "./bolt12-codec.js";
import { LightningBackendError } from "./lightning-backend.js";

export type SimulatedOfferMode = "honest" | "inflated-amount" | "wrong-key";
export const OFFER_MODES: readonly SimulatedOfferMode[] = ["honest", "inflated-amount", "wrong-key"];

/** An offer as the payee keeps it. */
export interface SimulatedOffer {
  readonly offer: string;
  readonly mode: SimulatedOfferMode;
  readonly amountMsat: bigint | undefined;
  readonly description: string;
  /** Payment hashes (hex) of the invoices it answered, oldest first. */
  readonly invoices: string[];
}

/** An invoice the payee issued for an offer, handed to the network's invoice book. */
export interface IssuedOfferInvoice {
  readonly invoice: string;
  readonly paymentHash: string;
  readonly preimage: string;
  readonly amountMsat: bigint;
}

/** The payee's final CLTV delta in its offer invoices' pay info. */
const OFFER_CLTV_DELTA = 18;
const INFLATION_MSAT = 1_000_000n;

export class SimulatedOffers {
  private readonly offers = new Map<string, SimulatedOffer>();
  private readonly forgerKey = sha256(new TextEncoder().encode("tender-devnet-lightning-offer-forger"));

  constructor(
    private readonly network: Bolt11Network,
    private readonly issuerKey: Uint8Array,
    private readonly now: () => number,
    private readonly issued: (inv: IssuedOfferInvoice) => void,
  ) {}

  get issuerId(): Uint8Array {
    return secp256k1.getPublicKey(this.issuerKey, true);
  }

  /** A new offer of the payee (`amountMsat` absent: any amount). */
  createOffer(o: { amountMsat?: bigint; description?: string; mode?: SimulatedOfferMode } = {}): SimulatedOffer {
    const description = o.description ?? "devnet offer";
    const bytes = encodeOffer({
      network: this.network, description, issuerId: this.issuerId, metadata: randomBytes(8), ...(o.amountMsat !== undefined ? { amountMsat: o.amountMsat } : {}),
    });
    const offer: SimulatedOffer = {
      offer: bolt12String("lno", bytes), mode: o.mode ?? "honest", amountMsat: o.amountMsat, description, invoices: [],
    };
    this.offers.set(offer.offer, offer);
    return offer;
  }

  offer(offer: string): SimulatedOffer | undefined {
    return this.offers.get(offer.toLowerCase());
  }

  /** `fetchinvoice`: the payee's signed invoice for one of its offers. */
  fetchInvoice(offerBytes: Uint8Array, amountMsat: bigint | undefined): Uint8Array {
    let read;
    try {
      read = readOffer(offerBytes);
    } catch (e) {
      throw new LightningBackendError(`invalid offer: ${(e as Error).message}`);
    }
    const known = this.offers.get(bolt12String("lno", offerBytes));
    if (!known) throw new LightningBackendError("no node answers invoice requests for this offer");
    if (read.currency) throw new LightningBackendError("offers in a currency are not supported");
    const amount = amountMsat ?? read.amountMsat;
    if (amount === undefined || amount === 0n) throw new LightningBackendError("the offer has no amount and none was given");
    if (read.amountMsat !== undefined && amount < read.amountMsat) throw new LightningBackendError("amount below the offer's amount");
    const preimage = randomBytes(32);
    const paymentHash = sha256(preimage);
    const invoiceAmount = known.mode === "inflated-amount" ? amount + INFLATION_MSAT : amount;
    const bytes = encodeSignedInvoice(
      {
        offerRecords: read.records, network: this.network, requestedMsat: amountMsat, amountMsat: invoiceAmount, paymentHash,
        nodeId: this.issuerId, createdAt: this.now(), relativeExpirySecs: 3600, cltvExpiryDelta: OFFER_CLTV_DELTA,
      },
      known.mode === "wrong-key" ? this.forgerKey : this.issuerKey,
    );
    known.invoices.push(toHex(paymentHash));
    this.issued({ invoice: bolt12String("lni", bytes), paymentHash: toHex(paymentHash), preimage: toHex(preimage), amountMsat: invoiceAmount });
    return bytes;
  }
}

/** What the node's `pay` needs of an invoice, BOLT11 or BOLT12 (`lni1…`, signature checked). Throws `Error`. */
export function decodePayable(invoice: string): { network: Bolt11Network; amountMsat: bigint | undefined; paymentHash: Uint8Array; minFinalCltvExpiryDelta: number; payee: Uint8Array } {
  if (!/^lni1/i.test(invoice)) return decodeBolt11(invoice);
  const inv = decodeBolt12Invoice(invoice);
  if (inv.network === undefined) throw new Error("BOLT12 invoice for an unknown chain");
  return { network: inv.network, amountMsat: inv.amountMsat, paymentHash: inv.paymentHash, minFinalCltvExpiryDelta: inv.cltvExpiryDelta, payee: inv.nodeId };
}
