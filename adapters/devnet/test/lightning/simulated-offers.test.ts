/**
 * The payee's BOLT12 offers in the simulated network: an honest offer answers an invoice the
 * issuer signed for the amount asked (or the offer's), which the server's node then pays and
 * settles; the inflated and wrong-key modes answer invoices a wallet must refuse; invoice requests
 * the payee cannot answer are refused.
 */
import { expect } from "chai";
import { sha256 } from "@noble/hashes/sha2.js";
import { toHex } from "@tender/ark-protocol";
import { bolt12Bytes, bolt12String, decodeBolt12Invoice, encodeOffer } from "../../src/lightning/bolt12-codec.js";
import { LightningBackendError } from "../../src/lightning/lightning-backend.js";
import { SimulatedLightningNetwork } from "../../src/lightning/simulated-network.js";

describe("devnet: BOLT12 offers of the simulated payee", () => {
  const ln = new SimulatedLightningNetwork({ tipHeight: () => 200, routing: { delayMs: 1 } });
  after(() => ln.close());
  const budget = { maxFeeMsat: 10_000_000n, maxDelay: 200, retryForSecs: 5 };

  it("answers an honest offer with an issuer-signed invoice for its amount, which the node pays and settles", async () => {
    const offer = ln.offers.createOffer({ amountMsat: 21_000n, description: "sticker" });
    const bytes = await ln.fetchInvoice(bolt12Bytes(offer.offer, "lno"));
    const inv = decodeBolt12Invoice(bolt12String("lni", bytes));
    expect(inv.amountMsat).to.equal(21_000n);
    expect(toHex(inv.nodeId)).to.equal(toHex(ln.payeeNodeId));
    expect(inv.network).to.equal("regtest");
    expect(offer.invoices).to.deep.equal([toHex(inv.paymentHash)]);
    await ln.pay({ invoice: inv.invoice, ...budget });
    await new Promise((r) => setTimeout(r, 30));
    const [pay] = await ln.listPays(inv.paymentHash);
    expect(pay!.status).to.equal("complete");
    expect(toHex(sha256(pay!.preimage!))).to.equal(toHex(inv.paymentHash));
    expect(ln.invoice(toHex(inv.paymentHash))!.state).to.equal("paid");
  });

  it("answers an any-amount offer for the amount asked; inflated mode asks 1 000 sat more; wrong-key mode's signature does not verify", async () => {
    const any = ln.offers.createOffer();
    expect(decodeBolt12Invoice(bolt12String("lni", await ln.fetchInvoice(bolt12Bytes(any.offer, "lno"), 5_000_000n))).amountMsat).to.equal(5_000_000n);
    const inflated = ln.offers.createOffer({ mode: "inflated-amount" });
    expect(decodeBolt12Invoice(bolt12String("lni", await ln.fetchInvoice(bolt12Bytes(inflated.offer, "lno"), 5_000_000n))).amountMsat).to.equal(6_000_000n);
    const forged = ln.offers.createOffer({ amountMsat: 1_000n, mode: "wrong-key" });
    const bytes = await ln.fetchInvoice(bolt12Bytes(forged.offer, "lno"));
    expect(() => decodeBolt12Invoice(bolt12String("lni", bytes))).to.throw("bad invoice signature");
  });

  it("refuses requests it cannot answer: an offer of another node, no amount at all, an amount below the offer's", async () => {
    const foreign = encodeOffer({ network: "regtest", description: "x", issuerId: Uint8Array.from(Buffer.from(toHex(ln.payeeNodeId).replace(/^03/, "02"), "hex")) });
    const refused = async (p: Promise<unknown>) => p.then(() => expect.fail("expected a refusal"), (e: Error) => { expect(e).to.be.instanceOf(LightningBackendError); return e.message; });
    expect(await refused(ln.fetchInvoice(foreign))).to.contain("no node answers");
    expect(await refused(ln.fetchInvoice(bolt12Bytes(ln.offers.createOffer().offer, "lno")))).to.contain("no amount");
    expect(await refused(ln.fetchInvoice(bolt12Bytes(ln.offers.createOffer({ amountMsat: 10_000n }).offer, "lno"), 9_000n))).to.contain("below the offer's amount");
  });
});
