import { expect } from "chai";
import { randomBytes } from "node:crypto";
import { sha256, toHex } from "@tender/ark-protocol";
import { NOT_A_CANCEL_IDENTIFIER, NOT_A_RECEIVE_IDENTIFIER, receiveIdentifierHash } from "../src/receive-routes.js";
import { invoiceFor } from "./receive-fakes.js";

describe("Lightning receive identifiers (payment hash, then BOLT11)", () => {
  const hash = sha256(new Uint8Array(randomBytes(32)));

  it("reads 64 hex as the payment hash, in lowercase", () => {
    expect(receiveIdentifierHash(toHex(hash).toUpperCase(), true)).to.equal(toHex(hash));
  });

  it("reads a BOLT11 invoice (with or without the lightning: prefix) as its payment hash", () => {
    const invoice = invoiceFor(hash, 1_000n);
    expect(receiveIdentifierHash(invoice, true)).to.equal(toHex(hash));
    expect(receiveIdentifierHash(`lightning:${invoice}`, false)).to.equal(toHex(hash));
  });

  it("refuses anything else with barkd's texts: the status route names preimages, the cancel route does not", () => {
    expect(() => receiveIdentifierHash("nope", true)).to.throw(NOT_A_RECEIVE_IDENTIFIER);
    expect(() => receiveIdentifierHash("abcd", false)).to.throw(NOT_A_CANCEL_IDENTIFIER);
    expect(NOT_A_RECEIVE_IDENTIFIER).to.equal("identifier is not a valid payment hash, invoice or preimage");
    expect(NOT_A_CANCEL_IDENTIFIER).to.equal("identifier is not a valid payment hash or invoice");
  });
});
