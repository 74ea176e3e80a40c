import { expect } from "chai";
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { BadRequestError } from "@tender/core";
import { PaymentMethodParsers } from "@tender/plugin-history";
import { registerLightningPaymentMethods } from "../src/payment-method-parsers.js";
import { invoiceFor, secret } from "./receive-fakes.js";

const VECTORS = join(dirname(fileURLToPath(import.meta.url)), "../../../../test/vectors/bolts");
const OFFERS = JSON.parse(readFileSync(join(VECTORS, "bolt12-offers-test.json"), "utf8")) as { description: string; valid: boolean; bolt12: string }[];

describe("Lightning payment methods of the history filter (invoice, offer)", () => {
  const parsers = new PaymentMethodParsers();
  registerLightningPaymentMethods(parsers);

  it("reads a BOLT11 invoice as its lowercase form, so a filter written in capitals finds the recorded movement", () => {
    const inv = invoiceFor(secret(), 21_000n);
    expect(parsers.canonical("invoice", inv)).to.deep.equal({ type: "invoice", value: inv });
    expect(parsers.canonical("invoice", inv.toUpperCase())).to.deep.equal({ type: "invoice", value: inv });
    expect(parsers.canonicalOrSelf("invoice", inv.toUpperCase())).to.equal(inv);
  });

  it("reads a BOLT12 offer as its lowercase form", () => {
    const offer = OFFERS.find((o) => o.valid && o.description === "with description (but no amount)")!.bolt12;
    expect(parsers.canonical("offer", offer).value).to.equal(offer.toLowerCase());
  });

  it("refuses what is no invoice or offer with barkd's 400 'invalid payment method: …'", () => {
    for (const [type, value] of [["invoice", "lnbcrt1nothing"], ["invoice", "lno1pgpq"], ["offer", "lnbcrt1nothing"], ["offer", ""]] as const) {
      expect(() => parsers.canonical(type, value), `${type} ${value}`).to.throw(BadRequestError, new RegExp(`^bad request: invalid payment method: invalid ${type}: `));
    }
  });
});
