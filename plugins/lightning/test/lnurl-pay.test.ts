/**
 * LNURL-pay resolution over a fake HTTP client: the regtest host override maps both the pay
 * request and the callback (amount and comment passed on), other networks ignore the override
 * and require https, and every refusal (withdraw request, wrong invoice amount, out-of-range
 * amount, comment not accepted, service error) happens before an invoice is handed back.
 */
import { expect } from "chai";
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { fetchLnurlInvoice, lightningAddressUrl, LnurlPayError, parseHostOverrides, type LnurlPayOptions } from "../src/lnurl-pay.js";

const DIR = join(dirname(fileURLToPath(import.meta.url)), "../../../../test/vectors/bolts");
/** A vector invoice of 250 000 000 msat, description "1 cup coffee". */
const VECTORS = (JSON.parse(readFileSync(join(DIR, "bolt11-vectors.json"), "utf8")) as { valid: { invoice: string }[] }).valid;
const INVOICE = VECTORS[1]!.invoice;
const AMOUNT = 250_000_000n;
/** A vector invoice of 2 000 000 000 msat whose description hash is the SHA-256 of this text. */
const HASHED_INVOICE = VECTORS[3]!.invoice;
const HASHED_TEXT = "One piece of chocolate cake, one icecream cone, one pickle, one slice of swiss cheese, one slice of salami, one lollypop, one piece of cherry pie, one sausage, one cupcake, and one slice of watermelon";

/** The error `p` rejects with (fails when it resolves). */
async function rejection(p: Promise<unknown>): Promise<Error> {
  try {
    await p;
  } catch (e) {
    return e as Error;
  }
  throw new Error("expected a rejection");
}

function fakeService(answers: { payRequest?: Record<string, unknown>; callback?: Record<string, unknown> }) {
  const seen: string[] = [];
  const f = (async (url: string | URL | Request) => {
    const u = String(url);
    seen.push(u);
    const body = u.includes("/callback") ? answers.callback : answers.payRequest;
    return new Response(JSON.stringify(body ?? {}), { status: 200, headers: { "content-type": "application/json" } });
  }) as typeof fetch;
  return { f, seen };
}
const PAY_REQUEST = { tag: "payRequest", callback: "https://pay.example/lnurlp/bob/callback?x=1", minSendable: 1000, maxSendable: 1_000_000_000, metadata: "[]", commentAllowed: 10 };
const overrides = parseHostOverrides(undefined, { "pay.example": "http://127.0.0.1:9/base" });

function opts(f: typeof fetch, walletNetwork = "regtest", warnings: string[] = []): LnurlPayOptions {
  return { walletNetwork, overrides, warn: (m) => warnings.push(m), fetch: f };
}

describe("LNURL-pay resolution", () => {
  it("a Lightning address is its LUD-16 well-known URL (https; http for an onion service)", () => {
    expect(lightningAddressUrl("Bob@Pay.Example")).to.equal("https://pay.example/.well-known/lnurlp/bob");
    expect(lightningAddressUrl("a@x.onion")).to.equal("http://x.onion/.well-known/lnurlp/a");
    expect(() => lightningAddressUrl("b%b@pay.example")).to.throw(LnurlPayError);
  });

  it("on regtest the override maps the pay request and the callback; the amount and comment reach the callback; a description not hashed into the invoice is only a warning", async () => {
    const { f, seen } = fakeService({ payRequest: PAY_REQUEST, callback: { pr: INVOICE, routes: [] } });
    const warnings: string[] = [];
    const inv = await fetchLnurlInvoice(lightningAddressUrl("bob@pay.example"), AMOUNT, "hi there", opts(f, "regtest", warnings));
    expect(inv.invoice).to.equal(INVOICE);
    expect(seen[0]).to.equal("http://127.0.0.1:9/base/.well-known/lnurlp/bob");
    expect(seen[1]).to.equal(`http://127.0.0.1:9/base/lnurlp/bob/callback?x=1&amount=${AMOUNT}&comment=hi+there`);
    expect(warnings).to.have.length(1);
    expect(warnings[0]).to.contain("description hash");
  });

  it("no warning when the invoice's description hash commits to the pay request's metadata", async () => {
    const { f } = fakeService({ payRequest: { ...PAY_REQUEST, metadata: HASHED_TEXT, maxSendable: 2_000_000_000 }, callback: { pr: HASHED_INVOICE } });
    const warnings: string[] = [];
    const inv = await fetchLnurlInvoice("https://pay.example/p", 2_000_000_000n, undefined, opts(f, "regtest", warnings));
    expect(inv.invoice).to.equal(HASHED_INVOICE);
    expect(warnings).to.deep.equal([]);
  });

  it("other networks ignore the override: https is required and the real host is asked", async () => {
    const { f, seen } = fakeService({ payRequest: PAY_REQUEST, callback: { pr: INVOICE } });
    await fetchLnurlInvoice("https://pay.example/.well-known/lnurlp/bob", AMOUNT, undefined, opts(f, "mainnet"));
    expect(seen).to.deep.equal(["https://pay.example/.well-known/lnurlp/bob", `https://pay.example/lnurlp/bob/callback?x=1&amount=${AMOUNT}`]);
    const plain = fakeService({ payRequest: { ...PAY_REQUEST, callback: "http://pay.example/cb" }, callback: { pr: INVOICE } });
    const e = await rejection(fetchLnurlInvoice("https://pay.example/p", AMOUNT, undefined, opts(plain.f, "signet")));
    expect(e).to.be.instanceOf(LnurlPayError);
    expect(e.message).to.contain("must use https");
    expect(plain.seen).to.deep.equal(["https://pay.example/p"]);
  });

  const refusals: [string, { payRequest?: Record<string, unknown>; callback?: Record<string, unknown> }, bigint, string | undefined, string][] = [
    ["a withdraw request", { payRequest: { tag: "withdrawRequest" } }, AMOUNT, undefined, "not a pay request"],
    ["an invoice for another amount", { payRequest: PAY_REQUEST, callback: { pr: INVOICE } }, AMOUNT - 1000n, undefined, "msat was asked"],
    ["an amount above maxSendable", { payRequest: { ...PAY_REQUEST, maxSendable: 1000 } }, AMOUNT, undefined, "outside what the recipient accepts"],
    ["a comment to a service without comments", { payRequest: { ...PAY_REQUEST, commentAllowed: undefined } }, AMOUNT, "x", "does not accept comments"],
    ["a comment longer than allowed", { payRequest: PAY_REQUEST }, AMOUNT, "12345678901", "longer than the 10 characters"],
    ["a service error", { payRequest: { status: "ERROR", reason: "user blocked" } }, AMOUNT, undefined, "user blocked"],
    ["a callback without an invoice", { payRequest: PAY_REQUEST, callback: { routes: [] } }, AMOUNT, undefined, "answered no invoice"],
  ];
  for (const [what, answers, amount, comment, text] of refusals) {
    it(`refuses ${what}`, async () => {
      const { f } = fakeService(answers);
      const e = await rejection(fetchLnurlInvoice("https://pay.example/p", amount, comment, opts(f)));
      expect(e).to.be.instanceOf(LnurlPayError);
      expect(e.message).to.contain(text);
    });
  }
});
