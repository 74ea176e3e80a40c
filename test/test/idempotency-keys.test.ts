import { expect } from "chai";
import { faultPointLine } from "@tender/core";
import { startDaemon, tempDatadir, type ApiResponse, type Daemon } from "../src/daemon-process.js";
import { arkDaemonConfig, ok, spendable, until, type DevnetWithArk, type Movement } from "./ark-harness.js";
import { startArkPaymentPair, stopArkPaymentPair } from "./ark-payment-pair.js";

/** Resolves when the daemon's process has ended by itself (a fault point killed it). */
async function exited(d: Daemon, ms = 30_000): Promise<void> {
  await until("the daemon to be killed at its fault point", async () => (d.proc.exitCode !== null || d.proc.signalCode !== null ? true : undefined), ms);
}

interface SendAnswer { message: string; movement_id: number; payment_hash?: string }

describe("Idempotency-Key on payments over HTTP (replay, misuse, concurrency, restart, SIGKILL)", function () {
  this.timeout(300_000);
  let devnet: DevnetWithArk;
  let bob: Daemon;
  let carol: Daemon;
  const datadir = tempDatadir("tenderd-idem-");
  let address: string;
  /** What Bob has received so far: every test adds what it sent, once. */
  let bobExpected = 0;

  const send = (key: string, amount: number, d: Daemon = carol): Promise<ApiResponse> =>
    d.api("POST", "/api/v1/wallet/send", { body: { destination: address, amount_sat: amount }, headers: { "Idempotency-Key": key } });
  const sends = async () => (await ok<Movement[]>(carol, "GET", "/api/v1/history")).filter((m) => m.subsystem.kind === "send");
  const restartCarol = async (env: NodeJS.ProcessEnv = {}) => {
    await carol.stop();
    carol = await startDaemon({ datadir, config: arkDaemonConfig(), env });
  };
  /** Bob ends with exactly what was sent: waits for it, then checks no second payment follows. */
  const bobPaidOnce = async () => {
    await until(`Bob's ${bobExpected} sats`, async () => ((await spendable(bob)) === bobExpected ? true : undefined), 30_000);
    await new Promise((r) => setTimeout(r, 1_500));
    expect(await spendable(bob), "no second payment arrives").to.equal(bobExpected);
  };

  before(async () => {
    ({ devnet, bob, carol, address } = await startArkPaymentPair("idempotency-e2e", datadir));
  });
  after(() => stopArkPaymentPair({ devnet, bob, carol }, datadir));

  it("a keyed send pays once: the retry replays its answer and movement id, another body under the key is a 422, and the answer survives a restart", async () => {
    const first = await send("order-1001", 10_000);
    expect(first.status, first.text).to.equal(200);
    const body = first.json as SendAnswer;
    expect(body.message).to.equal("Payment sent successfully");
    expect(body.movement_id).to.be.a("number");
    expect(first.headers.get("tender-movement-id")).to.equal(String(body.movement_id));
    expect(first.headers.get("idempotent-replayed")).to.equal(null);
    bobExpected += 10_000;

    const retry = await send("order-1001", 10_000);
    expect([retry.status, retry.json, retry.headers.get("idempotent-replayed")]).to.deep.equal([200, body, "true"]);

    const misuse = await send("order-1001", 11_000);
    expect(misuse.status).to.equal(422);
    expect((misuse.json as { message: string }).message).to.match(/already used for another request \(POST \/api\/v1\/wallet\/send/);

    await restartCarol();
    const afterRestart = await send("order-1001", 10_000);
    expect([afterRestart.status, afterRestart.json, afterRestart.headers.get("idempotent-replayed")]).to.deep.equal([200, body, "true"]);

    await bobPaidOnce();
    const mine = await sends();
    expect(mine.map((m) => [m.id, m.status, m.effective_balance_sat])).to.deep.equal([[body.movement_id, "successful", -10_000]]);
  });

  it("concurrent requests under one key make one payment: each answers the payment or 409, and a later retry the payment", async () => {
    const before = (await sends()).length;
    const answers = await Promise.all([send("order-1002", 5_000), send("order-1002", 5_000), send("order-1002", 5_000)]);
    bobExpected += 5_000;
    const statuses = answers.map((a) => a.status);
    expect(statuses.every((s) => s === 200 || s === 409), statuses.join()).to.equal(true);
    const paid = answers.filter((a) => a.status === 200).map((a) => (a.json as SendAnswer).movement_id);
    expect(paid.length).to.be.greaterThan(0);
    expect(new Set(paid).size, "every 200 names the same movement").to.equal(1);
    for (const c of answers.filter((a) => a.status === 409)) expect((c.json as { message: string }).message).to.match(/still running/);
    const later = await send("order-1002", 5_000);
    expect([later.status, (later.json as SendAnswer).movement_id]).to.deep.equal([200, paid[0]]);
    await bobPaidOnce();
    expect((await sends()).length).to.equal(before + 1);
  });

  it("SIGKILL between the payment and its answer: after the restart the retry gets that payment's outcome and movement, never a second payment", async () => {
    const before = await sends();
    await restartCarol({ TENDER_FAULT_INJECT: "idempotency:before-store" });
    const sending = send("order-1003", 7_000);
    expect(await sending.then(() => "answered", () => "connection lost")).to.equal("connection lost");
    await exited(carol);
    expect(carol.stderr()).to.contain(faultPointLine("idempotency:before-store"));
    bobExpected += 7_000;

    carol = await startDaemon({ datadir, config: arkDaemonConfig() });
    const seen: number[] = [];
    const answer = await until("the interrupted payment's outcome", async () => {
      const r = await send("order-1003", 7_000);
      seen.push(r.status);
      if (r.status === 409) expect((r.json as { message: string }).message).to.match(/still being resolved/);
      return r.status === 409 ? undefined : r;
    }, 60_000);
    expect(answer.status, answer.text).to.equal(200);
    expect(answer.headers.get("idempotent-replayed")).to.equal("true");
    const body = answer.json as SendAnswer;
    expect(body.message).to.equal("Payment sent successfully");
    const created = (await sends()).filter((m) => !before.some((b) => b.id === m.id));
    expect(created.map((m) => [m.id, m.effective_balance_sat]), "one movement for the one payment").to.deep.equal([[body.movement_id, -7_000]]);
    expect(answer.headers.get("tender-movement-id")).to.equal(String(body.movement_id));
    expect(seen.every((s) => s === 409 || s === 200), seen.join()).to.equal(true);
    await bobPaidOnce();
    const again = await send("order-1003", 7_000);
    expect([again.status, again.json]).to.deep.equal([200, body]);
  });

  it("SIGKILL inside the payment (after the server cosigned): the retry never pays again and ends with the resumed payment's outcome", async () => {
    const before = await sends();
    await restartCarol({ TENDER_FAULT_INJECT: "ark-send:after-cosign" });
    expect(await send("order-1004", 4_000).then(() => "answered", () => "connection lost")).to.equal("connection lost");
    await exited(carol);
    expect(carol.stderr()).to.contain(faultPointLine("ark-send:after-cosign"));
    bobExpected += 4_000;

    carol = await startDaemon({ datadir, config: arkDaemonConfig() });
    const answer = await until("the resumed payment's outcome", async () => {
      const r = await send("order-1004", 4_000);
      return r.status === 409 ? undefined : r;
    }, 60_000);
    expect(answer.status, answer.text).to.equal(200);
    const body = answer.json as SendAnswer;
    const created = (await sends()).filter((m) => !before.some((b) => b.id === m.id));
    expect(created.map((m) => [m.id, m.status, m.effective_balance_sat])).to.deep.equal([[body.movement_id, "successful", -4_000]]);
    await bobPaidOnce();
  });

  it("SIGKILL after the key was stored, before the handler ran: nothing is paid and the retry says the outcome is unknown instead of paying", async () => {
    const before = await sends();
    await restartCarol({ TENDER_FAULT_INJECT: "idempotency:after-begin" });
    expect(await send("order-1005", 3_000).then(() => "answered", () => "connection lost")).to.equal("connection lost");
    await exited(carol);
    expect(carol.stderr()).to.contain(faultPointLine("idempotency:after-begin"));

    carol = await startDaemon({ datadir, config: arkDaemonConfig() });
    const r = await send("order-1005", 3_000);
    expect(r.status).to.equal(500);
    expect(r.headers.get("idempotent-replayed")).to.equal("true");
    expect((r.json as { message: string }).message).to.match(/what it did is unknown/);
    const again = await send("order-1005", 3_000);
    expect([again.status, again.json]).to.deep.equal([500, r.json]);
    await bobPaidOnce();
    expect((await sends()).map((m) => m.id)).to.deep.equal(before.map((m) => m.id));
    // a new key pays
    const fresh = await send("order-1006", 3_000);
    expect(fresh.status, fresh.text).to.equal(200);
    bobExpected += 3_000;
    await bobPaidOnce();
  });

  it("a send without a key behaves as barkd's, plus the movement id", async () => {
    const r = await carol.api("POST", "/api/v1/wallet/send", { body: { destination: address, amount_sat: 1_000 } });
    expect(r.status, r.text).to.equal(200);
    const body = r.json as SendAnswer;
    expect(Object.keys(body).sort()).to.deep.equal(["message", "movement_id"]);
    expect(r.headers.get("idempotent-replayed")).to.equal(null);
    bobExpected += 1_000;
    const again = await carol.api("POST", "/api/v1/wallet/send", { body: { destination: address, amount_sat: 1_000 } });
    expect((again.json as SendAnswer).movement_id, "without a key a second request is a second payment").to.be.greaterThan(body.movement_id);
    bobExpected += 1_000;
    await bobPaidOnce();
  });
});
