/**
 * `POST /api/v1/wallet/send` with Lightning destinations on the real daemon: a destination that
 * does not decode as a BOLT 11 invoice, BOLT 12 offer or LNURL is not a destination at all (400
 * with barkd's text); a valid invoice, offer or LNURL reaches the lightning rail, which refuses an
 * invoice or offer of another network and an LNURL whose service cannot be reached (500).
 */
import { expect } from "chai";
import { bech32 } from "@scure/base";
import { cleanup, startDaemon, type Daemon } from "../src/daemon-process.js";
import { regtestWallet } from "../src/shared-devnet.js";
import { readVectorJson } from "../src/vectors.js";

const NOT_A_DESTINATION = "Argument is not a valid destination. Supported are: ark addresses, bolt11 invoices, bolt12 offers and lightning addresses";
/** The LUD-01 example LNURL. */
const LNURL = "LNURL1DP68GURN8GHJ7UM9WFMXJCM99E3K7MF0V9CXJ0M385EKVCENXC6R2C35XVUKXEFCV5MKVV34X5EKZD3EV56NYD3HXQURZEPEXEJXXEPNXSCRVWFNV9NXZCN9XQ6XYEFHVGCXXCMYXYMNSERXFQ5FNS";

describe("POST /wallet/send with Lightning destinations (decoded, as barkd does)", function () {
  this.timeout(60_000);
  let d: Daemon;
  const invoice = readVectorJson<{ valid: { invoice: string }[] }>("bolts/bolt11-vectors.json").valid[1]!.invoice;
  const offer = readVectorJson<{ description: string; bolt12: string }[]>("bolts/bolt12-offers-test.json")
    .find((o) => o.description === "with description (but no amount)")!.bolt12;

  before(async () => {
    d = await startDaemon();
    const created = await d.api("POST", "/api/v1/wallet/create", { body: await regtestWallet() });
    expect(created.status, created.text).to.equal(200);
  });
  after(async () => {
    await d.stop();
    cleanup(d.datadir);
  });

  const send = (destination: string, extra: Record<string, unknown> = {}) =>
    d.api("POST", "/api/v1/wallet/send", { body: { destination, amount_sat: 1_000, ...extra } });

  it("answers 400 not a valid destination for a truncated invoice, a corrupt LNURL and a malformed offer", async () => {
    const lower = LNURL.toLowerCase();
    const corruptLnurl = lower.slice(0, 40) + (lower[40] === "q" ? "p" : "q") + lower.slice(41);
    for (const destination of [invoice.slice(0, -8), corruptLnurl, offer.slice(0, -4)]) {
      const r = await send(destination, { comment: "checked after decoding" });
      expect(r.status, destination).to.equal(400);
      expect(r.json, destination).to.deep.equal({ message: NOT_A_DESTINATION });
    }
  });

  it("answers 500 for a mainnet invoice and a bitcoin-only offer on regtest, 500 for an LNURL whose service does not resolve, and barkd's comment rule for invoices", async () => {
    const mainnetInvoice = await send(invoice);
    expect(mainnetInvoice.status).to.equal(500);
    expect((mainnetInvoice.json as { message: string }).message).to.equal("Failed to pay lightning invoice: the invoice is for network bitcoin, the wallet is on regtest");
    const bitcoinOffer = await send(offer);
    expect([bitcoinOffer.status, bitcoinOffer.json]).to.deep.equal([500, { message: "Failed to pay lightning offer: the offer is not for the wallet's network regtest" }]);
    // a `.invalid` host never resolves: the LNURL is recognized and resolution fails before anything is locked
    const unreachable = bech32.encode("lnurl", bech32.toWords(new TextEncoder().encode("https://pay.invalid/lnurlp/x")), false);
    const r = await send(unreachable);
    expect(r.status).to.equal(500);
    expect((r.json as { message: string }).message).to.match(/^Failed to pay lightning address\/LNURL: LNURL request to pay\.invalid failed/);
    const commented = await send(invoice, { comment: "hi" });
    expect([commented.status, commented.json]).to.deep.equal([400, { message: "comment is not supported for BOLT-11 invoices" }]);
  });
});
