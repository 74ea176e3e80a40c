import { expect } from "chai";
import { startDaemon, tempDatadir, type ApiResponse, type Daemon } from "../src/daemon-process.js";
import { arkDaemonConfig, ok, spendable, until, type DevnetWithArk, type Movement } from "./ark-harness.js";
import { startArkPaymentPair, stopArkPaymentPair } from "./ark-payment-pair.js";

interface Key { id: string; secret: string; spent_last_24h_sat: { ark: number; lightning: number; onchain: number } }
interface AuditPage { entries: { key_id: string | null; method: string; path: string; status: number }[] }

describe("API key spending caps on Ark payments over HTTP (per payment, per 24 hours, across a restart, concurrent payments)", function () {
  this.timeout(300_000);
  let devnet: DevnetWithArk;
  let bob: Daemon;
  let carol: Daemon;
  const datadir = tempDatadir("tenderd-caps-");
  let address: string;
  let bobExpected = 0;
  /** A send key capped at 20 000 sat per payment and 30 000 sat per 24 hours on Ark. */
  let payouts: Key;

  const pay = (key: string | undefined, amount: number): Promise<ApiResponse> =>
    carol.api("POST", "/api/v1/wallet/send", { token: key, body: { destination: address, amount_sat: amount } });
  const sends = async () => (await ok<Movement[]>(carol, "GET", "/api/v1/history")).filter((m) => m.subsystem.kind === "send");
  const newKey = async (body: Record<string, unknown>) => {
    const r = await carol.api("POST", "/api/v1/keys", { body });
    expect(r.status, r.text).to.equal(200);
    return r.json as Key;
  };
  const keyInfo = async (id: string) => ((await carol.api("GET", "/api/v1/keys")).json as Key[]).find((k) => k.id === id)!;
  const message = (r: ApiResponse) => (r.json as { message: string }).message;
  /** A refused payment changed nothing: same balance, no new send movement. */
  const unchanged = async (balance: number, movements: number) => {
    expect(await spendable(carol)).to.equal(balance);
    expect((await sends()).length).to.equal(movements);
  };

  before(async () => {
    ({ devnet, bob, carol, address } = await startArkPaymentPair("api-key-caps-e2e", datadir));
  });
  after(() => stopArkPaymentPair({ devnet, bob, carol }, datadir));

  it("refuses a payment over the per-payment cap with 403 before anything moves, and pays one under it", async () => {
    payouts = await newKey({ name: "payouts", scopes: ["send"], caps: { ark: { per_payment_sat: 20_000, per_day_sat: 30_000 } } });
    const [balance, movements] = [await spendable(carol), (await sends()).length];
    const over = await pay(payouts.secret, 25_000);
    expect([over.status, message(over)]).to.deep.equal([403, "the payment of 25000 sat is over this API key's ark cap of 20000 sat per payment; nothing was sent"]);
    await unchanged(balance, movements);
    const under = await pay(payouts.secret, 15_000);
    expect(under.status, under.text).to.equal(200);
    bobExpected += 15_000;
    expect((await keyInfo(payouts.id)).spent_last_24h_sat).to.deep.equal({ ark: 15_000, lightning: 0, onchain: 0 });
  });

  it("counts what a key paid over 24 hours against its daily cap, across a restart", async () => {
    expect((await pay(payouts.secret, 10_000)).status).to.equal(200);
    bobExpected += 10_000;
    await carol.stop();
    carol = await startDaemon({ datadir, config: arkDaemonConfig() });
    const [balance, movements] = [await spendable(carol), (await sends()).length];
    const over = await pay(payouts.secret, 10_000);
    expect([over.status, message(over)]).to.deep.equal([
      403, "the payment of 10000 sat would take this API key over its ark cap of 30000 sat per 24 hours (25000 sat spent); nothing was sent",
    ]);
    await unchanged(balance, movements);
    expect((await pay(payouts.secret, 5_000)).status).to.equal(200);
    bobExpected += 5_000;
    expect((await keyInfo(payouts.id)).spent_last_24h_sat.ark).to.equal(30_000);
    expect((await pay(payouts.secret, 1)).status, "the cap is used up").to.equal(403);
    const audit = (await carol.api("GET", `/api/v1/keys/audit?key_id=${payouts.id}`)).json as AuditPage;
    expect(audit.entries.map((e) => [e.method, e.path, e.status])).to.deep.equal([403, 200, 403, 200, 200, 403].map((s) => ["POST", "/api/v1/wallet/send", s]));
  });

  it("lets only as many concurrent payments through as the daily cap holds", async () => {
    const key = await newKey({ scopes: ["send"], caps: { ark: { per_day_sat: 20_000 } } });
    const answers = await Promise.all([pay(key.secret, 8_000), pay(key.secret, 8_000), pay(key.secret, 8_000)]);
    const refused = answers.filter((a) => a.status === 403);
    expect(refused.map(message), answers.map((a) => `${a.status} ${a.text}`).join("\n")).to.deep.equal([
      "the payment of 8000 sat would take this API key over its ark cap of 20000 sat per 24 hours (16000 sat spent); nothing was sent",
    ]);
    expect(answers.filter((a) => a.status === 200).length, answers.map((a) => a.text).join("\n")).to.equal(2);
    bobExpected += 16_000;
    expect((await keyInfo(key.id)).spent_last_24h_sat.ark).to.equal(16_000);
  });

  it("caps each rail apart, and never the owner token", async () => {
    const onchainOnly = await newKey({ scopes: ["send"], caps: { onchain: { per_payment_sat: 1 } } });
    expect((await pay(onchainOnly.secret, 5_000)).status, "an Ark payment is not capped by the on-chain cap").to.equal(200);
    bobExpected += 5_000;
    const owner = await pay(undefined, 25_000);
    expect(owner.status, owner.text).to.equal(200);
    bobExpected += 25_000;
    await until(`Bob's ${bobExpected} sats`, async () => ((await spendable(bob)) === bobExpected ? true : undefined), 30_000);
  });
});
