/**
 * LNURL-pay over real TLS against the devnet's LNURL https server (its CA made at start): with the
 * CA trusted the Lightning address resolves to an invoice; without it, with an unrelated CA, or
 * for a name the certificate does not carry, the request fails with a clear error before any
 * invoice is asked for. The regtest host override only changes where the connection goes: the
 * certificate is still checked for the address's domain.
 */
import { expect } from "chai";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { getCACertificates } from "node:tls";
import { lightning } from "@tender/devnet";
import { toHex, sha256 } from "@tender/ark-protocol";
import { fetchLnurlInvoice, lightningAddressUrl, LnurlPayError, parseHostOverrides, type LnurlPayOptions } from "../src/lnurl-pay.js";
import { lnurlTrustList } from "../src/lnurl-http.js";

async function rejection(p: Promise<unknown>): Promise<Error> {
  try {
    await p;
  } catch (e) {
    return e as Error;
  }
  throw new Error("expected a rejection");
}

describe("LNURL-pay over https with the devnet CA", function () {
  this.timeout(30_000);
  const ln = new lightning.SimulatedLightningNetwork({ tipHeight: () => 200, routing: { delayMs: 1 } });
  const service = new lightning.LnurlPayServer(ln);
  let server: lightning.LnurlHttpsServer;
  let dir: string;
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), "tender-lnurl-https-test-"));
    server = await lightning.startLnurlHttpsServer({ router: service.router(), hosts: [service.domain], dir });
  });
  after(async () => {
    await server.stop();
    ln.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const opts = (o: { caFile?: string; hosts?: string[]; warnings?: string[] } = {}): LnurlPayOptions => ({
    walletNetwork: "regtest",
    overrides: parseHostOverrides(undefined, Object.fromEntries((o.hosts ?? [service.domain]).map((h) => [h, server.url]))),
    ...(o.caFile !== undefined ? { caFile: o.caFile } : {}),
    warn: (m) => o.warnings?.push(m),
  });
  const asked = () => service.user("alice")!.requests.length;

  it("the devnet serves a certificate for its LNURL domain, the CA's PEM in its directory", () => {
    expect(server.url).to.match(/^https:\/\/127\.0\.0\.1:\d+$/);
    expect(server.caFile).to.equal(join(dir, lightning.LNURL_CA_FILE_NAME));
    expect(server.hosts).to.deep.equal(["lnurl.devnet"]);
  });

  it("with the CA trusted, a Lightning address resolves over TLS (pay request and callback) to an invoice of exactly the amount", async () => {
    const before = server.requestCount;
    const warnings: string[] = [];
    const inv = await fetchLnurlInvoice(lightningAddressUrl(service.address("alice")), 21_000_000n, "over tls", opts({ caFile: server.caFile, warnings }));
    expect(inv.amountMsat).to.equal(21_000_000n);
    expect(server.requestCount - before).to.equal(2);
    const last = service.user("alice")!.requests.at(-1)!;
    expect(last).to.deep.include({ amountMsat: 21_000_000n, comment: "over tls" });
    expect(last.paymentHash).to.equal(toHex(inv.paymentHash));
    expect(warnings).to.deep.equal([]);
    // the LNURL (bech32 of the https URL) goes the same way
    const viaLnurl = await fetchLnurlInvoice(`https://${service.domain}/.well-known/lnurlp/alice`, 5_000n, undefined, opts({ caFile: server.caFile }));
    expect(viaLnurl.amountMsat).to.equal(5_000n);
  });

  it("without the CA the request fails with a clear TLS error and no invoice is asked for", async () => {
    const n = asked();
    const e = await rejection(fetchLnurlInvoice(lightningAddressUrl(service.address("alice")), 1_000_000n, undefined, opts()));
    expect(e).to.be.instanceOf(LnurlPayError);
    expect(e.message).to.match(/^LNURL request to lnurl\.devnet failed: the TLS certificate of lnurl\.devnet is not signed by a trusted CA \([A-Z_]+\); a private CA can be trusted with TENDER_LNURL_CA_FILE$/);
    expect(asked()).to.equal(n);
  });

  it("an unrelated CA does not make the certificate trusted", async () => {
    const other = await lightning.makeLnurlTlsMaterial([service.domain]);
    const otherFile = join(dir, "other-ca.pem");
    writeFileSync(otherFile, other.caPem);
    const e = await rejection(fetchLnurlInvoice(lightningAddressUrl(service.address("alice")), 1_000_000n, undefined, opts({ caFile: otherFile })));
    expect(e.message).to.include("is not signed by a trusted CA");
  });

  it("a host the certificate does not name is refused even with the CA (the name checked is the address's domain, not the overridden address)", async () => {
    const n = asked();
    const e = await rejection(fetchLnurlInvoice("https://pay.other.test/.well-known/lnurlp/alice", 1_000_000n, undefined, opts({ caFile: server.caFile, hosts: ["pay.other.test"] })));
    expect(e).to.be.instanceOf(LnurlPayError);
    expect(e.message).to.equal("LNURL request to pay.other.test failed: the TLS certificate is not valid for pay.other.test (ERR_TLS_CERT_ALTNAME_INVALID)");
    expect(asked()).to.equal(n);
  });

  it("a CA file that is missing or holds no certificate is a clear error", async () => {
    const missing = await rejection(fetchLnurlInvoice(lightningAddressUrl(service.address("alice")), 1_000_000n, undefined, opts({ caFile: join(dir, "nope.pem") })));
    expect(missing.message).to.equal(`LNURL request to lnurl.devnet failed: cannot read the LNURL CA file ${join(dir, "nope.pem")}: ENOENT`);
    const junk = join(dir, "junk.pem");
    writeFileSync(junk, "-----BEGIN CERTIFICATE-----\nbm90IGEgY2VydA==\n-----END CERTIFICATE-----\n");
    const bad = await rejection(fetchLnurlInvoice(lightningAddressUrl(service.address("alice")), 1_000_000n, undefined, opts({ caFile: junk })));
    expect(bad.message).to.equal(`LNURL request to lnurl.devnet failed: the LNURL CA file ${junk} holds no valid PEM certificate`);
  });

  it("the extra CA is added to the default CAs, which still apply", async () => {
    const list = await lnurlTrustList(server.caFile);
    const defaults = getCACertificates("default");
    expect(list.length).to.equal(defaults.length + 1);
    expect(list.slice(0, defaults.length)).to.deep.equal(defaults);
    expect(toHex(sha256(new TextEncoder().encode(list.at(-1)!.trim())))).to.equal(toHex(sha256(new TextEncoder().encode(server.caPem.trim()))));
  });
});
