import { expect } from "chai";
import { BadRequestError } from "@tender/core";
import { PaymentMethodParsers } from "../src/index.js";

describe("payment-method parsers of the history filter", () => {
  const p = new PaymentMethodParsers();

  it("canonicalizes bech32 bitcoin addresses to lower case and keeps base58 as is", () => {
    expect(p.canonical("bitcoin", "BCRT1P8WPT9V4FRPF3TKN0SRD97PKSGSXC5HS52LAFXWRU9KGEEPHVS7RQJEPRHG"))
      .to.deep.equal({ type: "bitcoin", value: "bcrt1p8wpt9v4frpf3tkn0srd97pksgsxc5hs52lafxwru9kgeephvs7rqjeprhg" });
    expect(p.canonical("bitcoin", "1BgGZ9tcN4rm9KBzDn7KprQz87SZ26SAMH").value).to.equal("1BgGZ9tcN4rm9KBzDn7KprQz87SZ26SAMH");
  });

  it("refuses an unknown type and values that do not parse, with barkd's prefix", () => {
    expect(() => p.canonical("iban", "x")).to.throw(BadRequestError, "bad request: invalid payment method: unknown payment method type: iban");
    expect(() => p.canonical("bitcoin", "not-an-address")).to.throw(BadRequestError, /^bad request: invalid payment method: /);
    expect(() => p.canonical("output-script", "abc")).to.throw(BadRequestError, /invalid script hex/);
    expect(() => p.canonical("lightning-address", "nobody")).to.throw(BadRequestError, /invalid lightning address/);
    expect(() => p.canonical("lnurl", "lnbc1xyz")).to.throw(BadRequestError, /invalid lnurl/);
  });

  it("parses a value as given: surrounding whitespace makes it invalid (as in barkd)", () => {
    for (const [type, value] of [["lightning-address", " satoshi@example.com"], ["lightning-address", "satoshi@example.com\n"],
      ["lnurl", " lnurl1dp68gurn8ghj7um9wfmxjcm99e3k7mf0v9cxj0m385ekvcenxc6r2c35xvukxefcv5mkvv34x5ekzd3ev56nyd3hxqurzepexejxxepnxscrvwfnv9nxzcn9xq6xyefhvgcxxcmyxymnserxfq5fns"],
      ["bitcoin", " bcrt1p8wpt9v4frpf3tkn0srd97pksgsxc5hs52lafxwru9kgeephvs7rqjeprhg"], ["output-script", " 6a04"]] as const) {
      expect(() => p.canonical(type, value), `${type} ${JSON.stringify(value)}`).to.throw(BadRequestError, /^bad request: invalid payment method: /);
    }
    expect(p.canonical("custom", " any thing ").value).to.equal(" any thing ");
  });

  it("accepts lightning addresses, script hex and custom text", () => {
    expect(p.canonical("lightning-address", "Satoshi@Example.com").value).to.equal("satoshi@example.com");
    expect(p.canonical("output-script", "6A0401020304").value).to.equal("6a0401020304");
    expect(p.canonical("custom", " any thing ").value).to.equal(" any thing ");
  });

  it("says clearly when no enabled plugin parses a type, and uses a registered parser", () => {
    const q = new PaymentMethodParsers();
    expect(() => q.canonical("ark", "tark1x")).to.throw(BadRequestError, /ark payment methods are not supported by the enabled plugins/);
    q.register("ark", (v) => v.toLowerCase());
    expect(q.canonical("ark", "TARK1X").value).to.equal("tark1x");
  });
});
