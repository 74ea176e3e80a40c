/**
 * Paying a BOLT 12 offer: the amount to ask (the user's, else the offer's), and the checks of the
 * invoice the Ark server fetched for it before a single sat is locked — its signature by its node
 * id, the offer's records copied unchanged, the node id being the offer's issuer (or the final
 * blinded node of one of the offer's paths when it has no issuer id), exactly the amount asked,
 * the wallet's chain, not expired.
 */
import { toHex } from "@tender/ark-protocol";
import { decodeBolt12Invoice, isLightningDecodeError, type Bolt12Invoice, type Bolt12Offer } from "@tender/plugin-wallet";

/** A refusal of an offer or of the invoice fetched for it (the message is for the user). */
export class OfferPayError extends Error {
  constructor(message: string, readonly userError = false) {
    super(message);
  }
}

/** BOLT 0 chain hash (genesis block hash, internal byte order) of each wallet network's chain. */
const GENESIS: Record<string, string> = {
  mainnet: "000000000019d6689c085ae165831e934ff763ae46a2a6c172b3f1b60a8ce26f",
  bitcoin: "000000000019d6689c085ae165831e934ff763ae46a2a6c172b3f1b60a8ce26f",
  testnet: "000000000933ea01ad0ee984209779baaec3ced90fa3f408719526f8d77f4943",
  signet: "00000008819873e925422c1ff0f99f7cc9bbb232af63a077a480a3633bee1ef6",
  // every signet (mutinynet is one) shares the genesis block
  mutinynet: "00000008819873e925422c1ff0f99f7cc9bbb232af63a077a480a3633bee1ef6",
  regtest: "0f9188f13cb7b2c71f2a335e3a4fc328bf5beb436012afca590b1a11466e2206",
};
const BITCOIN_CHAIN = Buffer.from(GENESIS.mainnet!, "hex").reverse().toString("hex");

/** The chain hash (hex) of a wallet network; `undefined` for an unknown network. */
export function walletChainHash(network: string): string | undefined {
  const g = GENESIS[network];
  return g === undefined ? undefined : Buffer.from(g, "hex").reverse().toString("hex");
}

/** The msat amount to request for `offer`: the user's amount, else the offer's. */
export function offerAmountMsat(offer: Bolt12Offer, userAmountSat: bigint | undefined, walletNetwork: string, nowSecs: number): bigint {
  const chain = walletChainHash(walletNetwork);
  const chains = (offer.chains ?? [Buffer.from(BITCOIN_CHAIN, "hex")]).map((c) => toHex(c));
  if (chain === undefined || !chains.includes(chain)) throw new OfferPayError(`the offer is not for the wallet's network ${walletNetwork}`);
  if (offer.absoluteExpiry !== undefined && BigInt(nowSecs) >= offer.absoluteExpiry) throw new OfferPayError("the offer has expired");
  if (userAmountSat !== undefined) {
    if (userAmountSat === 0n) throw new OfferPayError("the amount must be greater than zero", true);
    const asked = userAmountSat * 1000n;
    if (offer.currency === undefined && offer.amount !== undefined && asked < offer.amount) {
      throw new OfferPayError(`the amount is below the offer's amount of ${offer.amount} msat`, true);
    }
    return asked;
  }
  if (offer.currency !== undefined) throw new OfferPayError(`the offer's amount is in ${offer.currency}: give amount_sat`, true);
  if (offer.amount === undefined) throw new OfferPayError("the offer has no amount: give amount_sat", true);
  return offer.amount;
}

/** Decodes the fetched invoice and checks it against the offer and the amount asked. */
export function checkOfferInvoice(bytes: Uint8Array, offer: Bolt12Offer, amountMsat: bigint, walletNetwork: string, nowSecs: number): Bolt12Invoice {
  let inv: Bolt12Invoice;
  try {
    inv = decodeBolt12Invoice(bytes);
  } catch (e) {
    if (isLightningDecodeError(e)) throw new OfferPayError(`the server returned an invalid invoice for the offer: ${e.message}`);
    throw e;
  }
  const offerRecords = offer.records.filter((r) => r.type >= 1n && r.type <= 79n);
  const copied = inv.records.filter((r) => r.type >= 1n && r.type <= 79n);
  const same = offerRecords.length === copied.length &&
    offerRecords.every((r, i) => r.type === copied[i]!.type && toHex(r.value) === toHex(copied[i]!.value));
  if (!same) throw new OfferPayError("the invoice was not issued for this offer (its offer fields differ)");
  const nodeId = toHex(inv.nodeId);
  if (offer.issuerId !== undefined) {
    if (nodeId !== toHex(offer.issuerId)) throw new OfferPayError("the invoice is not signed by the offer's issuer");
  } else if (!(offer.paths ?? []).some((p) => p.hops.length > 0 && toHex(p.hops[p.hops.length - 1]!.blindedNodeId) === nodeId)) {
    throw new OfferPayError("the invoice is not signed by a node of the offer's paths");
  }
  if (inv.amountMsat !== amountMsat) throw new OfferPayError(`the invoice asks ${inv.amountMsat} msat, ${amountMsat} msat was requested`);
  if (inv.requestedAmountMsat !== undefined && inv.requestedAmountMsat !== amountMsat) {
    throw new OfferPayError(`the invoice answers a request for ${inv.requestedAmountMsat} msat, ${amountMsat} msat was requested`);
  }
  const chain = inv.chain === undefined ? BITCOIN_CHAIN : toHex(inv.chain);
  if (chain !== walletChainHash(walletNetwork)) throw new OfferPayError(`the invoice is not for the wallet's network ${walletNetwork}`);
  if (BigInt(nowSecs) >= inv.createdAt + inv.relativeExpiry) throw new OfferPayError("the invoice has expired");
  return inv;
}
