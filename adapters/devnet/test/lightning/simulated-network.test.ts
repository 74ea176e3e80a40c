import { expect } from "chai";
import { sha256 } from "@noble/hashes/sha2.js";
import { fromHex, toHex } from "@tender/ark-protocol";
import { decodeBolt11, encodeBolt11 } from "../../src/lightning/bolt11-codec.js";
import { SimulatedLightningNetwork } from "../../src/lightning/simulated-network.js";
import type { LightningPay } from "../../src/lightning/lightning-backend.js";
import { startDevnetWithArk } from "../../src/ark-server/devnet-with-ark.js";

const settle = (ln: SimulatedLightningNetwork, hash: string): Promise<LightningPay> =>
  new Promise((resolve) => {
    const off = ln.onPayUpdate((p) => {
      if (toHex(p.paymentHash) === hash && p.status !== "pending") {
        off();
        resolve(p);
      }
    });
  });

describe("devnet: simulated Lightning network", function () {
  this.timeout(30_000);
  let height = 500;
  const ln = new SimulatedLightningNetwork({ tipHeight: () => height, routing: { delayMs: 1 } });
  after(() => ln.close());
  const budget = { maxFeeMsat: 10_000_000n, maxDelay: 200, retryForSecs: 5 };

  it("mints signed regtest invoices: hash, amount, description, expiry and CLTV delta read back, the payee key recovers from the signature", () => {
    const inv = ln.createInvoice({ amountSat: 12_345n, description: "tea", expirySecs: 600, minFinalCltvExpiryDelta: 24 });
    expect(inv.invoice).to.match(/^lnbcrt123450n1/);
    const d = decodeBolt11(inv.invoice);
    expect(d).to.include({ network: "regtest", amountMsat: 12_345_000n, description: "tea", expirySecs: 600, minFinalCltvExpiryDelta: 24 });
    expect(toHex(d.paymentHash)).to.equal(inv.paymentHash);
    expect(toHex(sha256(fromHex(inv.preimage)))).to.equal(inv.paymentHash);
    expect(toHex(d.payee)).to.equal(toHex(ln.payeeNodeId));
    expect(decodeBolt11(ln.createInvoice({ amountMsat: 1_001n }).invoice).amountMsat).to.equal(1_001n);
    expect(decodeBolt11(ln.createInvoice({}).invoice).amountMsat).to.equal(undefined);
    // a changed character breaks the checksum; a re-signed invoice under another key names that key
    expect(() => decodeBolt11(inv.invoice.slice(0, -1) + (inv.invoice.endsWith("q") ? "p" : "q"))).to.throw(/bech32/);
    const other = encodeBolt11({ ...d, description: "tea" }, sha256(new TextEncoder().encode("someone else")));
    expect(toHex(decodeBolt11(other).payee)).to.not.equal(toHex(ln.payeeNodeId));
  });

  it("pays a normal invoice (preimage, amount sent with the routing fee), fails an unroutable one and a second payment of a paid one", async () => {
    ln.setRouting({ baseFeeMsat: 1_000n, feePpm: 2_000n });
    const inv = ln.createInvoice({ amountSat: 10_000n });
    const done = settle(ln, inv.paymentHash);
    await ln.pay({ invoice: inv.invoice, ...budget });
    const p = await done;
    expect(p.status).to.equal("complete");
    expect(toHex(p.preimage!)).to.equal(inv.preimage);
    expect(p.amountSentMsat).to.equal(10_000_000n + 1_000n + 20_000n);
    expect(ln.invoice(inv.paymentHash)).to.include({ state: "paid", receivedMsat: 10_000_000n });
    const again = settle(ln, inv.paymentHash);
    await ln.pay({ invoice: inv.invoice, ...budget });
    expect((await again).failure).to.match(/refused the payment \(invoice paid\)/);
    const bad = ln.createInvoice({ amountSat: 1_000n, kind: "unroutable" });
    const failed = settle(ln, bad.paymentHash);
    await ln.pay({ invoice: bad.invoice, ...budget });
    expect((await failed).failure).to.equal("no route: the payee has no channel");
    expect((await ln.listPays(fromHex(inv.paymentHash))).map((q) => q.status)).to.deep.equal(["complete", "failed"]);
    ln.setRouting({ baseFeeMsat: 0n, feePpm: 0n });
  });

  it("holds a hold invoice's payment until settled or canceled; a fee or delay beyond the budget fails; the height is the chain's", async () => {
    const held = ln.createInvoice({ amountSat: 2_000n, kind: "hold" });
    await ln.pay({ invoice: held.invoice, ...budget });
    await new Promise((r) => setTimeout(r, 20));
    expect(ln.invoice(held.paymentHash)!.state).to.equal("held");
    expect((await ln.listPays(fromHex(held.paymentHash)))[0]!.status).to.equal("pending");
    const done = settle(ln, held.paymentHash);
    ln.settleHold(held.paymentHash);
    expect((await done).status).to.equal("complete");
    const refused = ln.createInvoice({ amountSat: 2_000n, kind: "hold" });
    await ln.pay({ invoice: refused.invoice, ...budget });
    await new Promise((r) => setTimeout(r, 20));
    const canceled = settle(ln, refused.paymentHash);
    ln.cancelHold(refused.paymentHash);
    expect((await canceled).failure).to.equal("payee canceled the payment");
    expect(() => ln.settleHold(refused.paymentHash)).to.throw(/has no held payment/);

    ln.setRouting({ baseFeeMsat: 5_000n });
    const costly = ln.createInvoice({ amountSat: 2_000n });
    const f1 = settle(ln, costly.paymentHash);
    await ln.pay({ invoice: costly.invoice, ...budget, maxFeeMsat: 4_999n });
    expect((await f1).failure).to.match(/fee budget/);
    ln.setRouting({ baseFeeMsat: 0n });
    const slow = ln.createInvoice({ amountSat: 2_000n, minFinalCltvExpiryDelta: 100 });
    const f2 = settle(ln, slow.paymentHash);
    await ln.pay({ invoice: slow.invoice, ...budget, maxDelay: 139 });
    expect((await f2).failure).to.match(/delay budget: 140 blocks needed, 139 allowed/);
    height = 777;
    expect(await ln.tipHeight()).to.equal(777);
    await ln.pay({ invoice: ln.createInvoice({}).invoice, ...budget }).then(() => expect.fail("amountless needs an amount"), (e: Error) => expect(e.message).to.match(/amount required/));
  });

  it("is controlled over HTTP at /devnet/ln and listed in the devnet's ready fields", async () => {
    const { arkReadyFields } = await import("../../src/ark-server/devnet-with-ark.js");
    const devnet = await startDevnetWithArk({ seed: "ln-controls", ark: { profile: "test" } });
    try {
      const ready = arkReadyFields(devnet);
      expect(ready.lightning).to.deep.equal({
        control: `${devnet.controlUrl}/ln`, network: "regtest", payee_node_id: toHex(devnet.lightning.payeeNodeId),
        offers_control: `${devnet.controlUrl}/ln-offers`, lnurl_domain: "lnurl.devnet", lnurl_base_url: `${devnet.controlUrl}/lnurl`,
        lnurl_https_url: devnet.lnurlHttpsUrl, lnurl_ca_file: devnet.lnurlCaFile,
      });
      const call = async (method: string, path: string, body?: unknown) => {
        const r = await fetch(`${devnet.lnControlUrl}${path}`, { method, ...(body !== undefined ? { headers: { "content-type": "application/json" }, body: JSON.stringify(body) } : {}) });
        return { status: r.status, body: r.headers.get("content-type")?.includes("json") ? await r.json() : await r.text() };
      };
      const status = await call("GET", "/status");
      expect(status.body).to.include({ network: "regtest", tip_height: devnet.node.tipHeight() });
      const created = await call("POST", "/invoices", { amount_sat: 1500, description: "x", kind: "hold" });
      expect(created.status).to.equal(200);
      expect(decodeBolt11((created.body as { invoice: string }).invoice).amountMsat).to.equal(1_500_000n);
      const hash = (created.body as { payment_hash: string }).payment_hash;
      expect((await call("GET", `/invoices/${hash}`)).body).to.include({ state: "unpaid", kind: "hold" });
      expect(await call("POST", `/invoices/${hash}/settle`)).to.deep.equal({ status: 409, body: `hold invoice ${hash} has no held payment (state: unpaid)` });
      expect((await call("GET", `/invoices/${"00".repeat(32)}`)).status).to.equal(404);
      expect((await call("POST", "/invoices", { kind: "weird" })).status).to.equal(400);
      expect((await call("POST", "/invoices", { amount_sat: -1 })).status).to.equal(400);
      expect((await call("POST", "/routing", { fee_ppm: 10, delay_ms: 5 })).body).to.deep.equal({ base_fee_msat: "0", fee_ppm: "10", delay_ms: 5, route_cltv_delta: 40 });
      expect((await call("GET", "/payments")).body).to.deep.equal([]);
    } finally {
      await devnet.stop();
    }
  });
});
