/**
 * Lightning receive on the real daemon, the parts of its life beyond one payment: the movement
 * and the notifications a receive leaves (barkd's fields, created pending when the HTLCs are
 * held, updated to successful), a receive-for-address as the other wallet and the history see
 * it, three receives paid at once, cancel refused once the HTLCs are granted (the chain source
 * held down so the receive stays `htlcs-ready`) and once the preimage is revealed (the Ark server
 * held down), and the `expiry_secs` extension: an unpaid invoice listed until a minute past the
 * chosen expiry, then dropped with its hold invoice cancelled; out-of-range values refused with
 * 400, changing nothing; documented in the served OpenAPI document.
 */
import { expect } from "chai";
import { createHash } from "node:crypto";
import { faultPointLine } from "@tender/core";
import { arkServer } from "@tender/devnet";
import { checkAgainstBarkd } from "../src/barkd-schemas.js";
import { cleanup, startDaemon, tempDatadir, type Daemon } from "../src/daemon-process.js";
import { TcpSwitch } from "../src/tcp-switch.js";
import { ALICE_MNEMONIC, BOB_MNEMONIC, boardToDaemon, createBody, ok, until, type Balance, type DevnetWithArk, type Movement } from "./ark-harness.js";

interface ReceiveInfo { payment_hash: string; state: string; invoice: string; payment_preimage: string | null; amount_sat: number; htlc_vtxo_ids: string[]; settled_at: string | null }
interface FeeEstimate { fee_sat: number; net_amount_sat: number }
interface Notification { type: string; movement: Movement }

const CONFIG = {
  plugins: [
    "@tender/plugin-wallet", "@tender/plugin-notifications", "@tender/plugin-history", "@tender/plugin-chain", "@tender/plugin-fees",
    "@tender/plugin-ark", "@tender/plugin-lightning",
  ],
  // a chain source that is down fails fast
  pluginConfig: { notifications: { waitTimeoutMs: 300 }, ark: { deliveryRetryMs: 500 }, chain: { retryAttempts: 1, timeoutMs: 2_000 } },
};
const sha256Hex = (hex: string) => createHash("sha256").update(Buffer.from(hex, "hex")).digest("hex");
/** The devnet server's invoice expiry (captaind's default, 48 h). */
const SERVER_INVOICE_EXPIRY_SECS = 48 * 3600;

describe("Lightning receive over HTTP: history, notifications, parallel receives, cancel refusals, caller-chosen expiry (expiry_secs)", function () {
  this.timeout(180_000);
  let devnet: DevnetWithArk;
  let esplora: TcpSwitch;
  const datadir = tempDatadir("tenderd-ln-recv-life-");
  let alice: Daemon;
  let bob: Daemon;

  before(async function () {
    this.timeout(120_000);
    devnet = await arkServer.startDevnetWithArk({
      seed: "lightning-receive-lifecycle-e2e",
      ark: {
        profile: "test",
        overrides: {
          fees: { ...arkServer.testFeeSchedule(), lightningReceive: { baseFeeSat: 100n, ppm: 2000n } },
          // held HTLCs nobody takes are given back after 15 s (captaind: 3 min), so a payee that left is noticed within the test
          lightningReceive: { ...arkServer.testServerConfig().lightningReceive, htlcForwardTimeoutMs: 15_000 },
        },
      },
    });
    if (devnet.node.tipHeight() < 101) devnet.node.mine(101 - devnet.node.tipHeight());
    // Alice reads the chain through a switch the tests can turn off
    esplora = await TcpSwitch.start(devnet.esploraUrl);
    alice = await startDaemon({ datadir, config: CONFIG });
    bob = await startDaemon({ config: CONFIG });
    const aliceBody = createBody(devnet, ALICE_MNEMONIC);
    await ok(alice, "POST", "/api/v1/wallet/create", { ...aliceBody, chain_source: { esplora: { url: esplora.urlFor(devnet.esploraUrl) } } });
    await ok(bob, "POST", "/api/v1/wallet/create", createBody(devnet, BOB_MNEMONIC));
    // Bob pays Alice from inside the Ark in one test
    await ok(bob, "POST", "/api/v1/wallet/import-vtxo", { vtxos: [await boardToDaemon(bob, devnet, BOB_MNEMONIC, 60_000n)] });
  });
  after(async () => {
    await alice?.stop();
    cleanup(datadir);
    if (bob) { await bob.stop(); cleanup(bob.datadir); }
    if (devnet && !devnet.ark.running) await devnet.ark.start();
    await esplora?.down();
    await devnet?.stop();
  });

  const balance = (d: Daemon) => ok<Balance>(d, "GET", "/api/v1/wallet/balance");
  const receive = (d: Daemon, id: string) => ok<ReceiveInfo>(d, "GET", `/api/v1/lightning/receives/${id}`);
  const listed = async (d: Daemon) => (await ok<ReceiveInfo[]>(d, "GET", "/api/v1/lightning/receives")).map((r) => r.payment_hash);
  const fee = (amount: number) => ok<FeeEstimate>(alice, "GET", `/api/v1/fees/lightning/receive?amount_sat=${amount}`);
  const invoice = async (d: Daemon, body: Record<string, unknown>, path = "/api/v1/lightning/receives/invoice") => (await ok<{ invoice: string }>(d, "POST", path, body)).invoice;
  const receiveMovements = async (d: Daemon, hash: string) =>
    (await ok<Movement[]>(d, "GET", "/api/v1/history")).filter((m) => m.subsystem.name === "bark.lightning_receive" && m.metadata?.payment_hash === hash);
  const settled = (d: Daemon, hash: string) => until(`${hash} settled`, async () => { const r = await receive(d, hash); return r.state === "settled" ? r : undefined; }, 60_000);
  async function payExternally(inv: string): Promise<void> {
    const r = await fetch(`${devnet.lnControlUrl}/hold-invoices/pay`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ invoice: inv }) });
    expect(r.status, await r.clone().text()).to.equal(200);
  }
  const payerView = async (hash: string) => (await fetch(`${devnet.lnControlUrl}/hold-invoices/${hash}`)).text();
  async function arkControl(what: "stop" | "start"): Promise<void> {
    const r = await fetch(`${devnet.arkControlUrl}/${what}`, { method: "POST" });
    expect(r.status, await r.clone().text()).to.equal(200);
  }
  const exitOf = (d: Daemon) => new Promise<NodeJS.Signals | null>((resolve) => {
    if (d.proc.exitCode !== null || d.proc.signalCode !== null) resolve(d.proc.signalCode);
    else d.proc.once("exit", (_code, signal) => resolve(signal));
  });
  /** Creates an invoice on a restarted Alice armed to die at `point`, pays it, and waits for the kill there. */
  async function payAndKillAt(point: string, amount: number): Promise<{ inv: string; hash: string }> {
    await alice.stop();
    alice = await startDaemon({ datadir, config: CONFIG, env: { TENDER_FAULT_INJECT: point } });
    const killed = exitOf(alice);
    const inv = await invoice(alice, { amount_sat: amount });
    const hash = (await receive(alice, inv)).payment_hash;
    await payExternally(inv);
    expect(await killed, `a SIGKILL at ${point}`).to.equal("SIGKILL");
    expect(alice.stderr()).to.contain(faultPointLine(point));
    return { inv, hash };
  }

  it("history and notifications: one movement, created pending when the HTLCs are held and updated to successful with the claimed VTXOs; the history filter by invoice finds it", async () => {
    const { fee_sat, net_amount_sat } = await fee(25_000);
    const since = (await ok<{ last_pushed_at: string | null }>(alice, "GET", "/api/v1/notifications/wait")).last_pushed_at;
    const inv = await invoice(alice, { amount_sat: 25_000, description: "history" });
    const { payment_hash: hash, payment_preimage: preimage } = await receive(alice, inv);
    expect(await receiveMovements(alice, hash), "no movement before the payment").to.deep.equal([]);
    await payExternally(inv);
    await settled(alice, hash);

    const [m, ...more] = await receiveMovements(alice, hash);
    expect(more, "one movement").to.deep.equal([]);
    expect(m).to.deep.include({
      status: "successful", subsystem: { name: "bark.lightning_receive", kind: "receive" }, intended_balance_sat: 25_000,
      effective_balance_sat: net_amount_sat, offchain_fee_sat: fee_sat, sent_to: [], input_vtxos: [], exited_vtxos: [],
      received_on: [{ destination: { type: "invoice", value: inv }, amount_sat: 25_000 }],
    });
    expect(m!.metadata).to.include({ payment_hash: hash, payment_preimage: preimage });
    const htlcs = m!.metadata!.htlc_vtxos as string[];
    expect(htlcs).to.have.length.at.least(1);
    for (const id of htlcs) expect((await ok<{ state: { type: string } }>(alice, "GET", `/api/v1/wallet/vtxos/${id}`)).state.type, `HTLC ${id}`).to.equal("spent");
    let claimed = 0;
    for (const id of m!.output_vtxos) {
      const v = await ok<{ amount_sat: number; state: { type: string } }>(alice, "GET", `/api/v1/wallet/vtxos/${id}`);
      expect(v.state.type).to.equal("spendable");
      claimed += v.amount_sat;
    }
    expect(claimed, "the claimed VTXOs carry the net amount").to.equal(net_amount_sat);
    expect(m!.time.completed_at).to.be.a("string");
    const byInvoice = await ok<Movement[]>(alice, "GET", `/api/v1/history?type=invoice&value=${encodeURIComponent(inv)}`);
    expect(byInvoice.map((x) => x.id)).to.deep.equal([m!.id]);

    const seen = await until("the movement's notifications", async () => {
      const r = await ok<{ notifications: Notification[] }>(alice, "GET", `/api/v1/notifications/wait${since ? `?since=${encodeURIComponent(since)}` : ""}`);
      const mine = r.notifications.filter((n) => n.movement.id === m!.id);
      return mine.some((n) => n.movement.status === "successful") ? mine : undefined;
    }, 20_000);
    expect(seen[0]!.type).to.equal("movement-created");
    expect(seen[0]!.movement).to.deep.include({ status: "pending", intended_balance_sat: 25_000, effective_balance_sat: net_amount_sat, offchain_fee_sat: fee_sat, output_vtxos: [] });
    expect(seen[0]!.movement.metadata).to.deep.include({ payment_hash: hash, htlc_vtxos: htlcs, payment_preimage: preimage });
    expect(seen.slice(1).map((n) => n.type)).to.include("movement-updated");
    expect(seen.filter((n) => n.type === "movement-created"), "created once").to.have.length(1);
    const last = seen[seen.length - 1]!;
    expect(last.movement).to.deep.include({ status: "successful", output_vtxos: m!.output_vtxos });
    for (const n of seen) expect(checkAgainstBarkd("GET", "/api/v1/notifications/wait", 200, { notifications: [n], last_pushed_at: null }), n.type).to.equal(true);
  });

  it("receive-for-address: Bob's wallet gets the VTXO (balance and an arkoor receive in his history); Alice's movement ends with effective 0 and sent_to Bob's address", async () => {
    const { address } = await ok<{ address: string }>(bob, "POST", "/api/v1/wallet/addresses/next");
    const { fee_sat, net_amount_sat } = await fee(14_000);
    const bobBefore = (await balance(bob)).spendable_sat;
    const aliceBefore = await balance(alice);
    const bobMovements = (await ok<Movement[]>(bob, "GET", "/api/v1/history")).length;
    const inv = await invoice(alice, { amount_sat: 14_000, address }, "/api/v1/lightning/receives/invoice/for-address");
    const hash = (await receive(alice, inv)).payment_hash;
    await payExternally(inv);
    await settled(alice, hash);
    const [m, ...more] = await receiveMovements(alice, hash);
    expect(more).to.deep.equal([]);
    expect(m).to.deep.include({
      status: "successful", intended_balance_sat: 14_000, effective_balance_sat: 0, offchain_fee_sat: fee_sat, output_vtxos: [],
      sent_to: [{ destination: { type: "ark", value: address }, amount_sat: net_amount_sat }],
      received_on: [{ destination: { type: "invoice", value: inv }, amount_sat: 14_000 }],
    });
    await until("Bob credited", async () => ((await balance(bob)).spendable_sat === bobBefore + net_amount_sat ? true : undefined), 30_000);
    const bobNew = (await ok<Movement[]>(bob, "GET", "/api/v1/history")).slice(bobMovements);
    expect(bobNew.map((x) => [x.subsystem.kind, x.status, x.effective_balance_sat])).to.deep.equal([["receive", "successful", net_amount_sat]]);
    const aliceAfter = await balance(alice);
    expect([aliceAfter.spendable_sat, aliceAfter.claimable_lightning_receive_sat]).to.deep.equal([aliceBefore.spendable_sat, 0]);
  });

  it("three receives paid at once by the external payer: listed oldest first, each settled once, the balance up by the sum minus the three fees", async () => {
    const amounts = [11_000, 12_000, 13_000];
    const nets = await Promise.all(amounts.map(async (a) => (await fee(a)).net_amount_sat));
    const before = (await balance(alice)).spendable_sat;
    const invs: string[] = [];
    for (const [i, a] of amounts.entries()) invs.push(await invoice(alice, { amount_sat: a, description: `parallel ${i}` }));
    const hashes = await Promise.all(invs.map(async (inv) => (await receive(alice, inv)).payment_hash));
    expect(new Set(hashes).size).to.equal(3);
    expect((await listed(alice)).filter((h) => hashes.includes(h)), "oldest first").to.deep.equal(hashes);
    await Promise.all(invs.map((inv) => payExternally(inv)));
    const done = await Promise.all(hashes.map((h) => settled(alice, h)));
    for (const [i, r] of done.entries()) {
      expect(r.amount_sat).to.equal(amounts[i]);
      expect((await receiveMovements(alice, hashes[i]!)).map((m) => [m.status, m.effective_balance_sat])).to.deep.equal([["successful", nets[i]]]);
      await until("the payer's success", async () => ((await payerView(hashes[i]!)).includes("succeeded") ? true : undefined));
      expect(await payerView(hashes[i]!)).to.contain(r.payment_preimage!);
    }
    const after = await balance(alice);
    expect(after.spendable_sat).to.equal(before + nets.reduce((a, b) => a + b, 0));
    expect(after.claimable_lightning_receive_sat).to.equal(0);
    expect(await listed(alice)).to.not.include.members(hashes);
  });

  it("a dust receive (300 sat) is paid and claimed: 300 − 101 sat credited", async () => {
    const { fee_sat, net_amount_sat } = await fee(300);
    expect([fee_sat, net_amount_sat]).to.deep.equal([101, 199]);
    const before = (await balance(alice)).spendable_sat;
    const inv = await invoice(alice, { amount_sat: 300 });
    const hash = (await receive(alice, inv)).payment_hash;
    await payExternally(inv);
    await settled(alice, hash);
    expect((await balance(alice)).spendable_sat).to.equal(before + 199);
    expect((await receiveMovements(alice, hash)).map((m) => [m.status, m.effective_balance_sat])).to.deep.equal([["successful", 199]]);
  });

  it("intra-Ark with a payee that left: Bob pays Alice's invoice while her daemon is down; the server gives the payment back after its forward timeout, Bob revokes (balance whole), Alice's receive ends", async function () {
    this.timeout(150_000);
    const inv = await invoice(alice, { amount_sat: 7_000 });
    const hash = (await receive(alice, inv)).payment_hash;
    await alice.stop();
    const bobBefore = (await balance(bob)).spendable_sat;
    const paid = await ok<{ payment_hash: string }>(bob, "POST", "/api/v1/lightning/pay", { destination: inv });
    expect(paid.payment_hash).to.equal(hash);
    const bobSend = async () => (await ok<Movement[]>(bob, "GET", "/api/v1/history")).filter((m) => m.subsystem.name === "bark.lightning_send" && m.metadata?.payment_hash === hash);
    // revoked: the send is no longer tracked (`unknown`) and its movement failed
    await until("Bob's send revoked", async () => (
      (await ok<{ state: string }>(bob, "GET", `/api/v1/lightning/sends/${hash}`)).state === "unknown" && (await bobSend()).some((m) => m.status === "failed") ? true : undefined
    ), 90_000);
    expect((await bobSend()).map((m) => m.status)).to.deep.equal(["failed"]);
    await until("Bob's balance whole", async () => ((await balance(bob)).spendable_sat === bobBefore ? true : undefined), 30_000);
    expect((await balance(bob)).pending_lightning_send_sat).to.equal(0);

    alice = await startDaemon({ datadir, config: CONFIG });
    await until("Alice's receive ended", async () => ((await listed(alice)).includes(hash) ? undefined : true), 30_000);
    const gone = await alice.api("GET", `/api/v1/lightning/receives/${hash}`);
    expect(gone.status).to.equal(500);
    expect(await receiveMovements(alice, hash), "nothing received").to.deep.equal([]);
  });

  it("cancel once the HTLCs are granted is barkd's 500 and changes nothing; the receive then settles once", async () => {
    const { net_amount_sat } = await fee(9_000);
    const before = (await balance(alice)).spendable_sat;
    // killed as the claim starts: HTLCs stored, preimage not revealed; the chain source stays down, so the claim cannot go on
    const { hash } = await payAndKillAt("ln-recv:claim", 9_000);
    await esplora.down();
    alice = await startDaemon({ datadir, config: CONFIG, startTimeoutMs: 60_000 });
    const held = await receive(alice, hash);
    expect(held.state).to.equal("htlcs-ready");
    expect(held.htlc_vtxo_ids).to.have.length.at.least(1);
    expect((await balance(alice)).claimable_lightning_receive_sat).to.equal(net_amount_sat);
    const r = await alice.api("DELETE", `/api/v1/lightning/receives/${hash}`);
    expect([r.status, r.json]).to.deep.equal([500, {
      message: "Failed to cancel lightning receive: cannot cancel: HTLCs already granted; the receive will complete or be abandoned near expiry",
    }]);
    expect(checkAgainstBarkd("DELETE", `/api/v1/lightning/receives/${hash}`, r.status, r.json)).to.equal(true);
    expect(await receive(alice, hash), "unchanged").to.deep.equal(held);
    expect(await listed(alice)).to.include(hash);
    expect((await receiveMovements(alice, hash)).map((m) => m.status)).to.deep.equal(["pending"]);
    expect(await payerView(hash)).to.not.match(/refunded|cancelled/);

    await esplora.up();
    const done = await settled(alice, hash);
    expect(sha256Hex(done.payment_preimage!)).to.equal(hash);
    expect((await receiveMovements(alice, hash)).map((m) => m.status)).to.deep.equal(["successful"]);
    await until("credited once", async () => ((await balance(alice)).spendable_sat === before + net_amount_sat ? true : undefined), 30_000);
    expect((await balance(alice)).claimable_lightning_receive_sat).to.equal(0);
  });

  it("cancel once the preimage is revealed is refused (the Ark server held down after the claim); the receive then settles once", async () => {
    const { net_amount_sat } = await fee(8_000);
    const before = (await balance(alice)).spendable_sat;
    // killed right after the server took the preimage and cosigned the claim, before the claimed VTXO was stored
    const { hash } = await payAndKillAt("ln-recv:after-claim", 8_000);
    await arkControl("stop");
    // the start waits for the wallet, which tries the stopped server first: slow on a loaded machine
    alice = await startDaemon({ datadir, config: CONFIG, startTimeoutMs: 60_000 });
    expect((await receive(alice, hash)).state).to.equal("preimage-revealed");
    const r = await alice.api("DELETE", `/api/v1/lightning/receives/${hash}`);
    expect([r.status, r.json]).to.deep.equal([500, { message: "Failed to cancel lightning receive: cannot cancel: preimage has already been revealed" }]);
    expect((await receive(alice, hash)).state).to.equal("preimage-revealed");
    await arkControl("start");
    await settled(alice, hash);
    expect((await receiveMovements(alice, hash)).map((m) => m.status)).to.deep.equal(["successful"]);
    await until("credited once", async () => ((await balance(alice)).spendable_sat === before + net_amount_sat ? true : undefined), 60_000);
  });

  it("expiry_secs (tender extension): an unpaid invoice stays listed up to a minute past the chosen expiry, then is dropped and its hold invoice cancelled", async function () {
    this.timeout(150_000);
    const created = Date.now();
    const inv = await invoice(alice, { amount_sat: 4_000, expiry_secs: 5 });
    const hash = (await receive(alice, inv)).payment_hash;
    expect(await listed(alice)).to.include(hash);
    // the expiry passed 30 s ago: still listed (barkd's minute of grace), the hold invoice still open
    await new Promise((r) => setTimeout(r, Math.max(0, created + 35_000 - Date.now())));
    expect(await listed(alice)).to.include(hash);
    expect((await receive(alice, hash)).state).to.equal("awaiting-payment");
    expect(await payerView(hash)).to.not.match(/cancelled/);
    await until("dropped from the listing", async () => ((await listed(alice)).includes(hash) ? undefined : true), 60_000);
    const goneAfterS = (Date.now() - created) / 1000;
    expect(goneAfterS, "dropped about a minute after the expiry").to.be.within(60, 5 + 60 + 15);
    const gone = await alice.api("GET", `/api/v1/lightning/receives/${hash}`);
    expect([gone.status, gone.json]).to.deep.equal([500, { message: "Failed to get lightning receive status: no pending lightning receive found for this payment hash" }]);
    expect(await payerView(hash)).to.match(/cancelled/);
  });

  it("expiry_secs out of range is a 400 that changes nothing; within range it is taken by both invoice routes", async () => {
    const state = async () => ({ listed: await listed(alice), balance: await balance(alice), history: (await ok<Movement[]>(alice, "GET", "/api/v1/history")).length });
    const before = await state();
    const { address } = await ok<{ address: string }>(bob, "POST", "/api/v1/wallet/addresses/next");
    const cases: [string, Record<string, unknown>, string][] = [
      ["/api/v1/lightning/receives/invoice", { amount_sat: 3_000, expiry_secs: 0 }, "bad request: expiry_secs must be a whole number of seconds from 1 up to the Ark server's invoice expiry (got 0)"],
      ["/api/v1/lightning/receives/invoice", { amount_sat: 3_000, expiry_secs: "60" }, "bad request: expiry_secs must be a whole number of seconds from 1 up to the Ark server's invoice expiry (got a string)"],
      ["/api/v1/lightning/receives/invoice", { amount_sat: 3_000, expiry_secs: SERVER_INVOICE_EXPIRY_SECS + 1 },
        `bad request: expiry_secs is above the Ark server's invoice expiry: ${SERVER_INVOICE_EXPIRY_SECS + 1} > ${SERVER_INVOICE_EXPIRY_SECS} seconds`],
      ["/api/v1/lightning/receives/invoice/for-address", { amount_sat: 3_000, address, expiry_secs: -5 }, "bad request: expiry_secs must be a whole number of seconds from 1 up to the Ark server's invoice expiry (got -5)"],
      ["/api/v1/lightning/receives/invoice/for-address", { amount_sat: 3_000, address, expiry_secs: SERVER_INVOICE_EXPIRY_SECS + 1 },
        `bad request: expiry_secs is above the Ark server's invoice expiry: ${SERVER_INVOICE_EXPIRY_SECS + 1} > ${SERVER_INVOICE_EXPIRY_SECS} seconds`],
    ];
    for (const [path, body, message] of cases) {
      const r = await alice.api("POST", path, { body });
      expect([r.status, r.json], `${path} ${JSON.stringify(body)}`).to.deep.equal([400, { message }]);
    }
    expect(await state(), "nothing changed").to.deep.equal(before);

    for (const [path, body] of [
      ["/api/v1/lightning/receives/invoice", { amount_sat: 3_000, expiry_secs: SERVER_INVOICE_EXPIRY_SECS }],
      ["/api/v1/lightning/receives/invoice/for-address", { amount_sat: 3_000, address, expiry_secs: 600 }],
      ["/api/v1/lightning/receives/invoice", { amount_sat: 3_000, expiry_secs: null }],
    ] as const) {
      const inv = await invoice(alice, body, path);
      expect(await receive(alice, inv)).to.deep.include({ state: "awaiting-payment", amount_sat: 3_000 });
      const del = await alice.api("DELETE", `/api/v1/lightning/receives/${inv}`);
      expect(del.status).to.equal(200);
    }
  });

  it("the served OpenAPI document shows expiry_secs as an optional extension of both invoice requests; barkd's fields stay as they are", async () => {
    const doc = (await alice.api("GET", "/api-docs/openapi.json", { token: null })).json as { paths: Record<string, Record<string, any>> };
    for (const path of ["/api/v1/lightning/receives/invoice", "/api/v1/lightning/receives/invoice/for-address"]) {
      const schema = doc.paths[path]!.post.requestBody.content["application/json"].schema;
      expect(schema.properties.expiry_secs, path).to.deep.include({ minimum: 1 });
      expect(schema.properties.expiry_secs.description, path).to.match(/^tender extension \(not in barkd\)/);
      expect(schema.required, path).to.not.include("expiry_secs");
      expect(schema.properties.amount_sat, path).to.deep.include({ type: "integer" });
    }
  });
});
