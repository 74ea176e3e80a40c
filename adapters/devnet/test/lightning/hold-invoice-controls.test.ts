import { expect } from "chai";
import { randomBytes } from "node:crypto";
import { sha256 } from "@noble/hashes/sha2.js";
import { toHex } from "@tender/ark-protocol";
import { startDevnetWithArk } from "../../src/ark-server/devnet-with-ark.js";

describe("devnet: paying the Ark server's hold invoices as an external payer over /devnet/ln", function () {
  this.timeout(30_000);

  it("pays a receive's invoice holding the HTLC at a chosen CLTV expiry (accepted), then shows the settle with the preimage, or the refund after a cancel; bad input 400, foreign invoices 409, unknown hashes 404", async () => {
    const devnet = await startDevnetWithArk({ seed: "ln-hold-controls", ark: { profile: "test" } });
    try {
      const call = async (method: string, path: string, body?: unknown) => {
        const r = await fetch(`${devnet.lnControlUrl}${path}`, { method, ...(body !== undefined ? { headers: { "content-type": "application/json" }, body: JSON.stringify(body) } : {}) });
        return { status: r.status, body: r.headers.get("content-type")?.includes("json") ? await r.json() : await r.text() };
      };
      const receive = devnet.ark.server.lightningReceive;
      const preimage = new Uint8Array(randomBytes(32));
      const hash = toHex(sha256(preimage));
      const invoice = await receive.startReceive({ paymentHash: sha256(preimage), amountSat: 10_000n, minCltvDelta: 50 }, 5);
      const expiry = devnet.node.tipHeight() + 200;
      const paid = await call("POST", "/hold-invoices/pay", { invoice, cltv_expiry: expiry });
      expect(paid).to.deep.equal({ status: 200, body: { payment_hash: hash, amount_msat: "10000000", cltv_expiry: expiry, status: "pending", preimage: null } });
      const held = (await call("GET", `/hold-invoices/${hash}`)).body as Record<string, unknown>;
      expect(held).to.include({ state: "accepted", invoice, amount_msat: "10000000" });
      expect(held.held_htlc_expiries).to.deep.equal([expiry]);
      // the server's node settles (what a claim does): the payer sees success with the preimage
      await devnet.lightning.settleHoldInvoice(preimage);
      const settled = (await call("GET", `/hold-invoices/${hash}`)).body as { state: string; external_payments: unknown[] };
      expect(settled.state).to.equal("paid");
      expect(settled.external_payments).to.deep.equal([{ payment_hash: hash, amount_msat: "10000000", cltv_expiry: expiry, status: "succeeded", preimage: toHex(preimage) }]);
      expect((await call("POST", "/hold-invoices/pay", { invoice })).status).to.equal(409);

      const other = new Uint8Array(randomBytes(32));
      const otherHash = toHex(sha256(other));
      const invoice2 = await receive.startReceive({ paymentHash: sha256(other), amountSat: 3_000n, minCltvDelta: 50 }, 5);
      const p2 = await call("POST", "/hold-invoices/pay", { invoice: invoice2 });
      expect((p2.body as { cltv_expiry: number }).cltv_expiry).to.be.greaterThan(devnet.node.tipHeight());
      await receive.check(sha256(other), true);
      await receive.cancel(sha256(other));
      const refunded = (await call("GET", `/hold-invoices/${otherHash}`)).body as { state: string; external_payments: { status: string }[] };
      expect(refunded.state).to.equal("cancelled");
      expect(refunded.external_payments.map((p) => p.status)).to.deep.equal(["refunded"]);

      expect((await call("POST", "/hold-invoices/pay", {})).status).to.equal(400);
      expect((await call("POST", "/hold-invoices/pay", { invoice: devnet.lightning.createInvoice({ amountSat: 1n }).invoice })).status).to.equal(409);
      expect((await call("GET", `/hold-invoices/${"00".repeat(32)}`)).status).to.equal(404);
      expect((await call("GET", "/hold-invoices/zz")).status).to.equal(400);
    } finally {
      await devnet.stop();
    }
  });
});
