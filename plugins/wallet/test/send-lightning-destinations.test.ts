/**
 * The LNURL reader (LUD-01), and `POST /wallet/send`'s classification of Lightning destinations:
 * a destination is a BOLT 11 invoice, a BOLT 12 offer or an LNURL only if it decodes as one; a
 * corrupt or truncated one is "not a valid destination" (400), as in barkd, and never reaches the
 * "not available" answer of a kind no rail pays.
 */
import { expect } from "chai";
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { bech32 } from "@scure/base";
import { classifyDestination, decodeLnurl, SEND_ERRORS, unclaimedKindError } from "../src/index.js";
import { codeOf } from "./decode-outcome.js";

const DIR = join(dirname(fileURLToPath(import.meta.url)), "../../../../test/vectors/bolts");
const BOLT11 = JSON.parse(readFileSync(join(DIR, "bolt11-vectors.json"), "utf8")) as { valid: { title: string; invoice: string }[] };
const OFFERS = JSON.parse(readFileSync(join(DIR, "bolt12-offers-test.json"), "utf8")) as { description: string; valid: boolean; bolt12: string }[];

/** The LUD-01 example. */
const LUD01_EXAMPLE = "LNURL1DP68GURN8GHJ7UM9WFMXJCM99E3K7MF0V9CXJ0M385EKVCENXC6R2C35XVUKXEFCV5MKVV34X5EKZD3EV56NYD3HXQURZEPEXEJXXEPNXSCRVWFNV9NXZCN9XQ6XYEFHVGCXXCMYXYMNSERXFQ5FNS";
const lnurlOf = (url: string) => bech32.encode("lnurl", bech32.toWords(new TextEncoder().encode(url)), false);


describe("LNURL reader (LUD-01)", () => {
  it("decodes the LUD-01 example, in either case", () => {
    const d = decodeLnurl(LUD01_EXAMPLE);
    expect(d).to.deep.equal({
      lnurl: LUD01_EXAMPLE.toLowerCase(),
      url: "https://service.com/api?q=3fc3645b439ce8e7f2553a69e5267081d96dcd340693afabe04be7b0ccd178df",
      tag: undefined,
    });
    expect(decodeLnurl(LUD01_EXAMPLE.toLowerCase()).url).to.equal(d.url);
  });

  it("takes https, and http only on an onion service", () => {
    expect(decodeLnurl(lnurlOf("https://example.com/lnurlp/alice?tag=payRequest")).tag).to.equal("payRequest");
    expect(codeOf(() => decodeLnurl(lnurlOf("http://2gzyxa5ihm7nsggfxnu52rck2vv4rvmdlkiu3zzui5du4xyclen53wid.onion/lnurlp/bob")))).to.equal("decoded");
    expect(codeOf(() => decodeLnurl(lnurlOf("http://example.com/lnurlp/alice")))).to.equal("url");
    expect(codeOf(() => decodeLnurl(lnurlOf("ftp://example.com/x")))).to.equal("url");
    expect(codeOf(() => decodeLnurl(lnurlOf("not a url")))).to.equal("url");
  });

  it("refuses a wrong prefix, a bad checksum, a truncated string, mixed case, and data that is not UTF-8", () => {
    expect(codeOf(() => decodeLnurl(bech32.encode("lnurx", bech32.toWords(new TextEncoder().encode("https://a.b/")), false)))).to.equal("prefix");
    const lower = LUD01_EXAMPLE.toLowerCase();
    expect(codeOf(() => decodeLnurl(lower.slice(0, 30) + (lower[30] === "q" ? "p" : "q") + lower.slice(31)))).to.equal("bech32");
    expect(codeOf(() => decodeLnurl(lower.slice(0, -5)))).to.equal("bech32");
    expect(codeOf(() => decodeLnurl(`L${lower.slice(1)}`))).to.equal("bech32");
    expect(codeOf(() => decodeLnurl(bech32.encode("lnurl", bech32.toWords(new Uint8Array([0xff, 0xfe])), false)))).to.equal("payload");
  });
});

describe("send destination classification of Lightning kinds (decoded, not matched by shape)", () => {
  const NOT_A_DESTINATION = `400 ${SEND_ERRORS.notADestination}`;
  const UNAVAILABLE = `500 ${SEND_ERRORS.lightningUnavailable}`;
  /** What `POST /wallet/send` answers with no Lightning rail loaded. */
  const answer = (d: string, amount: number | null = 1_000, comment: string | null = null) => {
    try {
      throw unclaimedKindError(classifyDestination(d, amount, comment, "regtest").kind);
    } catch (e) {
      return `${(e as { status: number }).status} ${(e as Error).message}`;
    }
  };
  const invoice = BOLT11.valid[1]!.invoice; // "Please send $3 for a cup of coffee …"
  const offer = OFFERS.find((o) => o.valid && o.description === "with description (but no amount)")!.bolt12;

  it("recognizes a valid BOLT 11 invoice, with or without lightning: and in upper case, keeping its decoded fields", () => {
    const d = classifyDestination(`LIGHTNING:${invoice.toUpperCase()}`, null, null, "regtest");
    expect([d.kind, d.value, d.amountSat]).to.deep.equal(["bolt11", invoice, undefined]);
    expect(d.decoded && "paymentHash" in d.decoded && d.decoded.amountMsat).to.equal(250_000_000n);
    expect(answer(invoice, null)).to.equal(UNAVAILABLE);
    expect(answer(`lightning:${invoice}`)).to.equal(UNAVAILABLE);
    expect(answer(invoice, null, "hi")).to.equal(`400 ${SEND_ERRORS.bolt11Comment}`);
  });

  it("answers 400 not a valid destination for a corrupt or truncated BOLT 11 invoice, comment or not", () => {
    const corrupt = invoice.slice(0, 40) + (invoice[40] === "q" ? "p" : "q") + invoice.slice(41);
    for (const bad of [corrupt, invoice.slice(0, -1), invoice.slice(0, 60), `${invoice.slice(0, 20)}${invoice.slice(21)}`, "lnbc1pvjluez", "lnbcrt1u1pjexample"]) {
      expect(answer(bad), bad).to.equal(NOT_A_DESTINATION);
      expect(answer(bad, null, "hi"), bad).to.equal(NOT_A_DESTINATION);
    }
    // decodes as bech32 but breaks a reader rule (p/h/s/n fields of the wrong length)
    const fieldsToIgnore = BOLT11.valid.find((v) => v.title === "Same, but including fields which must be ignored.")!.invoice;
    expect(answer(fieldsToIgnore)).to.equal(NOT_A_DESTINATION);
  });

  it("recognizes a valid BOLT 12 offer, + joins included, and refuses a malformed one with 400", () => {
    expect(answer(offer)).to.equal(UNAVAILABLE);
    expect(answer(offer, null, "hi")).to.equal(`400 ${SEND_ERRORS.bolt12Comment}`);
    const joined = `${offer.slice(0, 20)}+\n  ${offer.slice(20)}`;
    const d = classifyDestination(joined, null, null, "regtest");
    expect([d.kind, d.value]).to.deep.equal(["bolt12", offer]);
    for (const bad of [offer.slice(0, -3), "lno1pgpq", "lno1", `${offer}+`, OFFERS.find((o) => o.description === "Missing offer_issuer_id and no offer_path")!.bolt12]) {
      expect(answer(bad), bad).to.equal(NOT_A_DESTINATION);
      expect(answer(bad, null, "hi"), bad).to.equal(NOT_A_DESTINATION);
    }
  });

  it("recognizes a valid LNURL (amount required), and refuses a corrupt or non-https one with 400", () => {
    expect(answer(LUD01_EXAMPLE)).to.equal(UNAVAILABLE);
    expect(answer(`lightning:${LUD01_EXAMPLE}`, 1_000, "a comment is fine")).to.equal(UNAVAILABLE);
    expect(answer(LUD01_EXAMPLE, null)).to.equal(`400 ${SEND_ERRORS.lnurlAmount}`);
    const lower = LUD01_EXAMPLE.toLowerCase();
    for (const bad of [lower.slice(0, -1), lower.slice(0, 50) + (lower[50] === "q" ? "p" : "q") + lower.slice(51), lnurlOf("http://example.com/pay")]) {
      expect(answer(bad), bad).to.equal(NOT_A_DESTINATION);
      expect(answer(bad, null), bad).to.equal(NOT_A_DESTINATION);
    }
  });

  it("refuses 100,000-character Lightning-looking strings without quadratic work", () => {
    // quadratic decoding of 100,000 characters is ~10^10 steps (minutes); linear is milliseconds.
    // The bound is a guard against that blow-up on a loaded machine, not a speed measurement.
    for (const d of [`lnbc1${"q".repeat(100_000)}`, `lno1${"q".repeat(100_000)}`, `lnurl1${"q".repeat(100_000)}`]) {
      const started = performance.now();
      expect(answer(d)).to.equal(NOT_A_DESTINATION);
      expect(performance.now() - started, d.slice(0, 6)).to.be.below(10_000);
    }
  });
});
