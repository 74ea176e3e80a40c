/**
 * Lightning send to the destinations that are resolved into an invoice first, on the real daemon
 * over HTTP against the devnet: BOLT12 offers (the Ark server fetches an invoice the payee signed;
 * the wallet checks it against the offer before locking anything), Lightning addresses and
 * LNURL-pay (the wallet asks the devnet's LNURL service for an invoice of exactly the amount, with
 * the comment, over https: this regtest wallet maps the domain to the devnet's https address and
 * trusts the devnet's CA through `TENDER_LNURL_CA_FILE`, the certificate checked for the domain
 * name; a domain the certificate does not carry is refused). Forged offer
 * invoices and a wrong-amount LNURL invoice are refused with nothing locked or paid. Every answer
 * matches barkd's OpenAPI schema for its operation and status.
 */
import { expect } from "chai";
import { createHash } from "node:crypto";
import { barkdTemplate, checkAgainstBarkd } from "../src/barkd-schemas.js";
import { cleanup, startDaemon, type ApiResponse, type Daemon } from "../src/daemon-process.js";
import { ALICE_MNEMONIC, boardToDaemon, createBody, ok, startArkDevnet, until, type Balance, type DevnetWithArk, type Movement } from "./ark-harness.js";

/** A domain mapped to the devnet's LNURL https server that its certificate does not name. */
const WRONG_NAME = "wrong-name.devnet";

interface SendInfo { payment_hash: string; state: string; invoice: string | null; preimage: string | null }

describe("Lightning send to BOLT12 offers, Lightning addresses and LNURL (over https with the devnet CA) on the devnet", function () {
  this.timeout(120_000);
  let devnet: DevnetWithArk;
  let alice: Daemon;

  before(async () => {
    devnet = await startArkDevnet("lightning-send-offers-e2e");
    alice = await startDaemon({
      config: {
        plugins: [
          "@tender/plugin-wallet", "@tender/plugin-notifications", "@tender/plugin-history", "@tender/plugin-chain", "@tender/plugin-fees",
          "@tender/plugin-ark", "@tender/plugin-lightning",
        ],
        pluginConfig: {
          notifications: { waitTimeoutMs: 300 }, ark: { deliveryRetryMs: 500 },
          // the second name reaches the same server, whose certificate does not carry it
          lightning: { lnurlHostOverrides: { [devnet.lnurl.domain]: devnet.lnurlHttpsUrl, [WRONG_NAME]: devnet.lnurlHttpsUrl } },
        },
      },
      env: { TENDER_LNURL_CA_FILE: devnet.lnurlCaFile },
    });
    await ok(alice, "POST", "/api/v1/wallet/create", createBody(devnet, ALICE_MNEMONIC));
    const hex = await boardToDaemon(alice, devnet, ALICE_MNEMONIC, 300_000n);
    await ok(alice, "POST", "/api/v1/wallet/import-vtxo", { vtxos: [hex] });
  });
  after(async () => {
    if (alice) { await alice.stop(); cleanup(alice.datadir); }
    await devnet?.stop();
  });

  const checked = new Set<string>();
  async function call(method: string, path: string, body?: unknown): Promise<ApiResponse> {
    const r = await alice.api(method, path, body === undefined ? {} : { body });
    expect(checkAgainstBarkd(method, path, r.status, r.json), `barkd's schema for ${method} ${path} ${r.status}: ${r.text}`).to.equal(true);
    checked.add(`${method} ${barkdTemplate(path.split("?")[0]!)} ${r.status}`);
    return r;
  }
  async function okChecked<T>(method: string, path: string, body?: unknown): Promise<T> {
    const r = await call(method, path, body);
    expect(r.status, `${method} ${path}: ${r.text}`).to.equal(200);
    return r.json as T;
  }
  const balance = () => okChecked<Balance>("GET", "/api/v1/wallet/balance");
  const sendMovements = async () => (await okChecked<Movement[]>("GET", "/api/v1/history")).filter((m) => m.subsystem.name === "bark.lightning_send");

  /** Pays through `path`, waits for `paid`, checks the preimage and that the balance dropped by the amount plus the estimated fee. */
  async function payAndSettle(path: "/api/v1/lightning/pay" | "/api/v1/wallet/send", body: Record<string, unknown>, amountSat: number): Promise<string> {
    const before = (await balance()).spendable_sat;
    const fee = await okChecked<{ fee_sat: number }>("GET", `/api/v1/fees/lightning/pay?amount_sat=${amountSat}`);
    const r = await okChecked<{ message: string; payment_hash: string }>("POST", path, body);
    expect(r.message).to.equal(path === "/api/v1/lightning/pay" ? "Payment initiated successfully" : "Payment sent successfully");
    const hash = r.payment_hash;
    const done = await until("paid", async () => {
      const s = await okChecked<SendInfo>("GET", `/api/v1/lightning/sends/${hash}`);
      return s.state === "paid" ? s : undefined;
    });
    expect(createHash("sha256").update(Buffer.from(done.preimage!, "hex")).digest("hex")).to.equal(hash);
    const inv = devnet.lightning.invoice(hash)!;
    expect(inv.state).to.equal("paid");
    expect(inv.receivedMsat).to.equal(BigInt(amountSat) * 1000n);
    const b = await balance();
    expect(b.spendable_sat).to.equal(before - amountSat - fee.fee_sat);
    expect(b.pending_lightning_send_sat).to.equal(0);
    return hash;
  }

  /** Runs `refused`, which must answer `status` with a message containing `text`, and checks nothing was locked, paid or recorded. */
  async function refusedWithNothingSpent(status: number, text: string, refused: () => Promise<ApiResponse>): Promise<void> {
    const before = await balance();
    const movements = (await sendMovements()).length;
    const pays = devnet.lightning.allPays().length;
    const r = await refused();
    expect(r.status, r.text).to.equal(status);
    expect((r.json as { message: string }).message).to.contain(text);
    expect(await balance()).to.deep.equal(before);
    expect((await sendMovements()).length).to.equal(movements);
    expect(devnet.lightning.allPays().length).to.equal(pays);
  }

  it("pays a fixed-amount BOLT12 offer through /lightning/pay: the server fetched an invoice the issuer signed for the offer's amount", async () => {
    const offer = devnet.lightning.offers.createOffer({ amountMsat: 12_000_000n, description: "book" });
    const hash = await payAndSettle("/api/v1/lightning/pay", { destination: offer.offer }, 12_000);
    expect(offer.invoices).to.deep.equal([hash]);
    const m = (await sendMovements()).find((x) => x.metadata?.payment_hash === hash);
    expect(m?.status).to.equal("successful");
  });

  it("pays an any-amount offer through /wallet/send with amount_sat, twice (a new invoice each time); without an amount it is a 400", async () => {
    const offer = devnet.lightning.offers.createOffer({ description: "tips" });
    const first = await payAndSettle("/api/v1/wallet/send", { destination: offer.offer, amount_sat: 7_000 }, 7_000);
    const second = await payAndSettle("/api/v1/lightning/pay", { destination: `lightning:${offer.offer}`, amount_sat: 3_000 }, 3_000);
    expect(first).to.not.equal(second);
    expect(offer.invoices).to.deep.equal([first, second]);
    await refusedWithNothingSpent(400, "the offer has no amount", () => call("POST", "/api/v1/lightning/pay", { destination: offer.offer }));
  });

  it("refuses an offer invoice signed by another key, and one asking more than requested: nothing locked or paid", async () => {
    const forged = devnet.lightning.offers.createOffer({ amountMsat: 5_000_000n, mode: "wrong-key" });
    await refusedWithNothingSpent(500, "signature does not verify", () => call("POST", "/api/v1/lightning/pay", { destination: forged.offer }));
    expect(forged.invoices).to.have.length(1);
    const inflated = devnet.lightning.offers.createOffer({ description: "inflated", mode: "inflated-amount" });
    await refusedWithNothingSpent(500, "5000000 msat was requested", () => call("POST", "/api/v1/wallet/send", { destination: inflated.offer, amount_sat: 5_000 }));
    expect(devnet.lightning.invoice(inflated.invoices[0]!)!.state).to.equal("unpaid");
  });

  it("pays a Lightning address with a comment through /lightning/pay, and without one through /wallet/send, over https (pay request and callback each time)", async () => {
    const address = devnet.lnurl.address("alice");
    const served = devnet.lnurlHttps.requestCount;
    const withComment = await payAndSettle("/api/v1/lightning/pay", { destination: address, amount_sat: 4_000, comment: "thanks for lunch" }, 4_000);
    const plain = await payAndSettle("/api/v1/wallet/send", { destination: address, amount_sat: 2_500 }, 2_500);
    const asked = devnet.lnurl.user("alice")!.requests;
    expect(asked.find((q) => q.paymentHash === withComment)).to.deep.equal({ amountMsat: 4_000_000n, comment: "thanks for lunch", paymentHash: withComment });
    expect(asked.find((q) => q.paymentHash === plain)).to.deep.equal({ amountMsat: 2_500_000n, comment: undefined, paymentHash: plain });
    const m = (await sendMovements()).find((x) => x.metadata?.payment_hash === withComment);
    expect(m?.status).to.equal("successful");
    expect(devnet.lnurlHttps.requestCount - served).to.equal(4);
  });

  it("pays an LNURL through /wallet/send and through /lightning/pay (with a comment), over https", async () => {
    const lnurl = devnet.lnurl.lnurl("alice");
    const served = devnet.lnurlHttps.requestCount;
    const viaSend = await payAndSettle("/api/v1/wallet/send", { destination: lnurl, amount_sat: 1_500 }, 1_500);
    const viaPay = await payAndSettle("/api/v1/lightning/pay", { destination: `lightning:${lnurl.toLowerCase()}`, amount_sat: 1_200, comment: "gm" }, 1_200);
    const asked = devnet.lnurl.user("alice")!.requests;
    expect(asked.find((q) => q.paymentHash === viaSend)?.amountMsat).to.equal(1_500_000n);
    expect(asked.find((q) => q.paymentHash === viaPay)?.comment).to.equal("gm");
    expect(devnet.lnurlHttps.requestCount - served).to.equal(4);
  });

  it("refuses a Lightning address whose domain the devnet's certificate does not name, though mapped to the same https server: nothing asked, nothing spent", async () => {
    const asked = devnet.lnurl.user("alice")!.requests.length;
    await refusedWithNothingSpent(500, `the TLS certificate is not valid for ${WRONG_NAME} (ERR_TLS_CERT_ALTNAME_INVALID)`, () => call("POST", "/api/v1/lightning/pay", { destination: `alice@${WRONG_NAME}`, amount_sat: 1_000 }));
    expect(devnet.lnurl.user("alice")!.requests.length).to.equal(asked);
  });

  it("refuses an LNURL invoice for another amount, a withdraw request, an amount outside the service's range and an over-long comment: nothing spent", async () => {
    await refusedWithNothingSpent(500, "1000000 msat was asked", () => call("POST", "/api/v1/lightning/pay", { destination: devnet.lnurl.address("bad-amount"), amount_sat: 1_000 }));
    const bad = devnet.lnurl.user("bad-amount")!.requests;
    expect(devnet.lightning.invoice(bad[bad.length - 1]!.paymentHash)!.state).to.equal("unpaid");
    devnet.lnurl.addUser("faucet", { mode: "withdraw" });
    await refusedWithNothingSpent(500, "not a pay request", () => call("POST", "/api/v1/wallet/send", { destination: devnet.lnurl.lnurl("faucet"), amount_sat: 1_000 }));
    devnet.lnurl.addUser("small", { maxSendableMsat: 2_000_000n, commentAllowed: 5 });
    await refusedWithNothingSpent(500, "outside what the recipient accepts", () => call("POST", "/api/v1/lightning/pay", { destination: devnet.lnurl.address("small"), amount_sat: 3_000 }));
    await refusedWithNothingSpent(500, "comment is longer", () => call("POST", "/api/v1/lightning/pay", { destination: devnet.lnurl.address("small"), amount_sat: 1_000, comment: "too long" }));
    expect(devnet.lnurl.user("small")!.requests).to.deep.equal([]);
  });

  it("refuses a Lightning address whose domain is not mapped: production rules, https only, and no such host", async () => {
    await refusedWithNothingSpent(500, "LNURL request to nobody.invalid failed", () => call("POST", "/api/v1/lightning/pay", { destination: "bob@nobody.invalid", amount_sat: 1_000 }));
  });

  it("offers and LNURL users made through the devnet control API (/devnet/ln-offers) are paid like the others", async () => {
    const post = async (path: string, body: unknown) => {
      const r = await fetch(`${devnet.lnOffersControlUrl}${path}`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
      expect(r.status, path).to.equal(200);
      return (await r.json()) as Record<string, unknown>;
    };
    const made = await post("/offers", { amount_msat: 6_000_000, description: "over http" });
    expect(made).to.include({ mode: "honest", amount_msat: "6000000", description: "over http" });
    const hash = await payAndSettle("/api/v1/lightning/pay", { destination: made.offer }, 6_000);
    const seen = await (await fetch(`${devnet.lnOffersControlUrl}/offers/${String(made.offer)}`)).json() as { invoices: string[] };
    expect(seen.invoices).to.deep.equal([hash]);
    const bad = await fetch(`${devnet.lnOffersControlUrl}/offers`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ mode: "nope" }) });
    expect(bad.status).to.equal(400);
    const user = await post("/lnurl-users", { name: "carol", comment_allowed: 20 });
    expect(user).to.deep.equal({ name: "carol", mode: "normal", address: `carol@${devnet.lnurl.domain}`, lnurl: devnet.lnurl.lnurl("carol") });
    await payAndSettle("/api/v1/wallet/send", { destination: user.address, amount_sat: 900, comment: "via control" }, 900);
    const users = await (await fetch(`${devnet.lnurlBaseUrl}/users`)).json() as { name: string; requests: { comment: string | null }[] }[];
    expect(users.find((u) => u.name === "carol")?.requests.map((q) => q.comment)).to.deep.equal(["via control"]);
  });

  it("answered every operation with a body matching barkd's schema", () => {
    expect([...checked].sort()).to.include.members([
      "GET /api/v1/fees/lightning/pay 200", "GET /api/v1/history 200", "GET /api/v1/lightning/sends/{identifier} 200", "GET /api/v1/wallet/balance 200",
      "POST /api/v1/lightning/pay 200", "POST /api/v1/lightning/pay 400", "POST /api/v1/lightning/pay 500", "POST /api/v1/wallet/send 200", "POST /api/v1/wallet/send 500",
    ]);
  });
});
