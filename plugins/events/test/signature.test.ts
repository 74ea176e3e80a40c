import { expect } from "chai";
import { createHmac } from "node:crypto";
import { newWebhookSecret, signatureHeader, verifySignature } from "../src/webhooks/signature.js";

describe("webhook signatures", () => {
  const secret = newWebhookSecret();
  const body = JSON.stringify({ cursor: "3", type: "movement-created" });

  it("makes whsec_ secrets of 32 random bytes", () => {
    expect(secret).to.match(/^whsec_[0-9a-f]{64}$/);
    expect(newWebhookSecret()).to.not.equal(secret);
  });

  it("signs HMAC-SHA256 over `timestamp.body` with the secret, as t=…,v1=…", () => {
    const expected = createHmac("sha256", Buffer.from(secret, "utf8")).update(`1700000000.${body}`).digest("hex");
    expect(signatureHeader(secret, 1_700_000_000, body)).to.equal(`t=1700000000,v1=${expected}`);
  });

  it("verifies its own signature and refuses another body, secret or a stale timestamp", () => {
    const h = signatureHeader(secret, 1_700_000_000, body);
    expect(verifySignature(secret, h, body, 1_700_000_010)).to.equal(true);
    expect(verifySignature(secret, h, body + " ", 1_700_000_010)).to.equal(false);
    expect(verifySignature(newWebhookSecret(), h, body, 1_700_000_010)).to.equal(false);
    expect(verifySignature(secret, h, body, 1_700_000_000 + 301)).to.equal(false);
    expect(verifySignature(secret, "t=1700000000", body, 1_700_000_000)).to.equal(false);
  });
});
