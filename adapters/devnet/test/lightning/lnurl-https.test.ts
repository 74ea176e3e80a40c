import { expect } from "chai";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { request } from "node:https";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { getCACertificates } from "node:tls";
import { arkReadyFields, startDevnetWithArk } from "../../src/ark-server/devnet-with-ark.js";
import { LNURL_CA_FILE_NAME } from "../../src/lightning/lnurl-https.js";

/** GET over https to `base` with TLS checked for `name` (SNI and Host), trusting `ca` (else the default CAs). */
function get(base: string, path: string, name: string, ca?: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const r = request(`${base}${path}`, { servername: name, headers: { host: name }, ...(ca ? { ca: [...getCACertificates("default"), ca] } : {}) }, (res) => {
      let body = "";
      res.on("data", (c: Buffer) => (body += c.toString()));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
    });
    r.on("error", reject);
    r.end();
  });
}

describe("devnet: the LNURL service over https with a CA made at start", function () {
  this.timeout(60_000);

  it("serves the pay request over TLS for its domain, signed by the CA written to the datadir and named in the ready fields; other names and untrusting clients are refused", async () => {
    const datadir = mkdtempSync(join(tmpdir(), "tender-devnet-lnurl-https-"));
    const devnet = await startDevnetWithArk({ seed: "lnurl-https", datadir, ark: { profile: "test" } });
    try {
      expect(devnet.lnurlCaFile).to.equal(join(datadir, LNURL_CA_FILE_NAME));
      expect(readFileSync(devnet.lnurlCaFile, "utf8")).to.equal(devnet.lnurlHttps.caPem);
      expect(arkReadyFields(devnet).lightning).to.include({ lnurl_https_url: devnet.lnurlHttpsUrl, lnurl_ca_file: devnet.lnurlCaFile });
      expect(devnet.lnurlHttpsUrl).to.match(/^https:\/\/127\.0\.0\.1:\d+$/);
      const ca = devnet.lnurlHttps.caPem;
      const answer = await get(devnet.lnurlHttpsUrl, "/.well-known/lnurlp/alice", "lnurl.devnet", ca);
      expect(answer.status).to.equal(200);
      expect(JSON.parse(answer.body)).to.include({ tag: "payRequest", callback: "https://lnurl.devnet/lnurlp/alice/callback" });
      const cb = JSON.parse((await get(devnet.lnurlHttpsUrl, "/lnurlp/alice/callback?amount=3000000", "lnurl.devnet", ca)).body) as { pr: string };
      expect(cb.pr).to.match(/^lnbcrt30u1/);
      expect(devnet.lnurl.user("alice")!.requests.map((q) => q.amountMsat)).to.deep.equal([3_000_000n]);
      const untrusted = await get(devnet.lnurlHttpsUrl, "/.well-known/lnurlp/alice", "lnurl.devnet").then(() => null, (e: NodeJS.ErrnoException) => e.code);
      expect(untrusted).to.equal("UNABLE_TO_VERIFY_LEAF_SIGNATURE");
      const otherName = await get(devnet.lnurlHttpsUrl, "/.well-known/lnurlp/alice", "pay.example", ca).then(() => null, (e: NodeJS.ErrnoException) => e.code);
      expect(otherName).to.equal("ERR_TLS_CERT_ALTNAME_INVALID");
      // the plain-http face still answers under the control API
      expect((await fetch(`${devnet.lnurlBaseUrl}/users`)).status).to.equal(200);
    } finally {
      await devnet.stop();
    }
    const after = await get(devnet.lnurlHttpsUrl, "/users", "lnurl.devnet", devnet.lnurlHttps.caPem).then(() => null, (e: NodeJS.ErrnoException) => e.code);
    expect(after, "the https server is down after stop()").to.equal("ECONNREFUSED");
    rmSync(datadir, { recursive: true, force: true });
  });

  it("without a datadir the CA file lives in a temporary directory removed at stop", async () => {
    const devnet = await startDevnetWithArk({ seed: "lnurl-https-temp", ark: { profile: "test" } });
    const file = devnet.lnurlCaFile;
    try {
      expect(existsSync(file)).to.equal(true);
    } finally {
      await devnet.stop();
    }
    expect(existsSync(dirname(file))).to.equal(false);
  });
});
