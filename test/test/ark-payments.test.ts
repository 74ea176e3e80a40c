import { expect } from "chai";
import { appendFileSync } from "node:fs";
import { join } from "node:path";
import { decodeArkAddress, encodeArkAddress } from "@tender/ark-protocol";
import { cleanup, startDaemon, type Daemon } from "../src/daemon-process.js";
import {
  ALICE_MNEMONIC, BOB_MNEMONIC, CAROL_MNEMONIC, arkDaemonConfig, arkoorSendRows, boardToDaemon, createBody, ok, openNotifications, spendable,
  startArkDevnet, until, type Balance, type DevnetWithArk, type Movement, type VtxoInfo,
} from "./ark-harness.js";

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}/;

describe("Ark payments between two daemons on the devnet (wallet routes, arkoor send, mailbox receive)", function () {
  this.timeout(120_000);
  let devnet: DevnetWithArk;
  let alice: Daemon;
  let bob: Daemon;
  const others: Daemon[] = [];

  before(async () => {
    devnet = await startArkDevnet("ark-payments-e2e");
    alice = await startDaemon({ config: arkDaemonConfig() });
    bob = await startDaemon({ config: arkDaemonConfig() });
    await ok(alice, "POST", "/api/v1/wallet/create", createBody(devnet, ALICE_MNEMONIC));
    await ok(bob, "POST", "/api/v1/wallet/create", createBody(devnet, BOB_MNEMONIC));
  });
  after(async () => {
    for (const d of [alice, bob, ...others]) if (d) { await d.stop(); cleanup(d.datadir); }
    await devnet?.stop();
  });

  it("reports the connection, the server's Ark info and the next round once the heartbeat connected", async () => {
    await until("connected", async () => ((await ok<{ connected: boolean }>(alice, "GET", "/api/v1/wallet/connected")).connected ? true : undefined));
    const info = await ok<Record<string, unknown>>(alice, "GET", "/api/v1/wallet/ark-info");
    expect(info.network).to.equal("regtest");
    expect(info.server_pubkey).to.equal(Buffer.from(devnet.ark.server.ctx.keys.serverPubkey).toString("hex"));
    expect(info.mailbox_pubkey).to.equal(Buffer.from(devnet.ark.server.ctx.keys.mailboxPubkey).toString("hex"));
    expect(info.vtxo_expiry_delta).to.equal(info.vtxo_lifetime);
    const next = await ok<{ start_time: string }>(alice, "GET", "/api/v1/wallet/next-round");
    expect(next.start_time).to.match(ISO);
  });

  it("hands out a new Ark address per call and peeks only the ones handed out", async () => {
    const a = await ok<{ address: string }>(alice, "POST", "/api/v1/wallet/addresses/next");
    const b = await ok<{ address: string }>(alice, "POST", "/api/v1/wallet/addresses/next");
    expect(a.address).to.match(/^tark1/);
    expect(b.address).to.not.equal(a.address);
    expect(await ok(alice, "GET", "/api/v1/wallet/addresses/index/0")).to.deep.equal(a);
    expect(await ok(alice, "GET", "/api/v1/wallet/addresses/index/1")).to.deep.equal(b);
    expect((await alice.api("GET", "/api/v1/wallet/addresses/index/77")).status).to.equal(500);
    const notU32 = await alice.api("GET", "/api/v1/wallet/addresses/index/-1");
    expect(notU32.status).to.equal(400);
  });

  it("imports a boarded VTXO (twice without harm), pays Bob with split change, Bob receives through the mailbox, Bob pays part back", async () => {
    const bobWs = await openNotifications(bob);
    try {
      await payAndPayBack(bobWs);
    } finally {
      bobWs.ws.close();
    }
  });

  async function payAndPayBack(bobWs: Awaited<ReturnType<typeof openNotifications>>): Promise<void> {
    const hex = await boardToDaemon(alice, devnet, ALICE_MNEMONIC, 100_000n);
    const [imported] = await ok<VtxoInfo[]>(alice, "POST", "/api/v1/wallet/import-vtxo", { vtxos: [hex] });
    expect(imported!.state).to.deep.equal({ type: "spendable" });
    expect(imported!.amount_sat).to.equal(100_000);
    expect(imported!.policy_type).to.equal("pubkey");
    expect(imported!.exit_depth).to.equal(1);
    expect(await ok(alice, "POST", "/api/v1/wallet/import-vtxo", { vtxos: [hex] })).to.deep.equal([imported]);
    expect(await spendable(alice)).to.equal(100_000);

    const { address: bobAddress } = await ok<{ address: string }>(bob, "POST", "/api/v1/wallet/addresses/next");
    const since = (await ok<{ last_pushed_at: string | null }>(alice, "GET", "/api/v1/notifications/wait")).last_pushed_at;
    const { movement_id: sentMovement, ...sent } = await ok<{ message: string; movement_id: number }>(alice, "POST", "/api/v1/wallet/send", { destination: bobAddress, amount_sat: 30_000 });
    expect(sent).to.deep.equal({ message: "Payment sent successfully" });
    expect(sentMovement, "tender names the payment's movement").to.be.a("number");

    // Alice: the input is spent, the change (70 000 > 30 000) split in two pieces
    const aliceVtxos = await ok<VtxoInfo[]>(alice, "GET", "/api/v1/wallet/vtxos");
    expect(aliceVtxos.map((v) => v.amount_sat)).to.deep.equal([35_000, 35_000]);
    expect(aliceVtxos.every((v) => v.state.type === "spendable" && v.exit_depth === 3)).to.equal(true);
    expect(await ok<Balance>(alice, "GET", "/api/v1/wallet/balance")).to.deep.equal({
      spendable_sat: 70_000, pending_lightning_send_sat: 0, claimable_lightning_receive_sat: 0, pending_in_round_sat: 0, pending_board_sat: 0, pending_exit_sat: 0,
    });
    const spentBoard = await ok<VtxoInfo>(alice, "GET", `/api/v1/wallet/vtxos/${imported!.id}`);
    expect(spentBoard.state).to.deep.equal({ type: "spent" });
    expect((await ok<VtxoInfo[]>(alice, "GET", "/api/v1/wallet/vtxos?all=true")).map((v) => v.id).sort()).to.deep.equal([imported!.id, ...aliceVtxos.map((v) => v.id)].sort());
    const [send] = await ok<Movement[]>(alice, "GET", "/api/v1/history");
    expect(send).to.deep.include({
      status: "successful", subsystem: { name: "bark.arkoor", kind: "send" }, intended_balance_sat: -30_000, effective_balance_sat: -30_000,
      offchain_fee_sat: 0, sent_to: [{ destination: { type: "ark", value: bobAddress }, amount_sat: 30_000 }], received_on: [],
      input_vtxos: [imported!.id], exited_vtxos: [],
    });
    expect([...send!.output_vtxos].sort()).to.deep.equal(aliceVtxos.map((v) => v.id).sort());
    expect(send!.time.completed_at).to.match(ISO);
    const polled = await ok<{ notifications: { type: string; movement: Movement }[] }>(alice, "GET", `/api/v1/notifications/wait${since ? `?since=${since}` : ""}`);
    expect(polled.notifications.map((n) => [n.type, n.movement.id])).to.deep.equal([["movement-created", send!.id], ["movement-updated", send!.id]]);

    // Bob: the background subscription delivers the payment
    const received = await until("Bob's VTXO", async () => {
      const v = await ok<VtxoInfo[]>(bob, "GET", "/api/v1/wallet/vtxos");
      return v.length > 0 ? v : undefined;
    });
    expect(received.map((v) => [v.amount_sat, v.state.type])).to.deep.equal([[30_000, "spendable"]]);
    const [receive] = await ok<Movement[]>(bob, "GET", "/api/v1/history");
    expect(receive).to.deep.include({
      status: "successful", subsystem: { name: "bark.arkoor", kind: "receive" }, intended_balance_sat: 30_000, effective_balance_sat: 30_000,
      offchain_fee_sat: 0, sent_to: [], received_on: [{ destination: { type: "ark", value: bobAddress }, amount_sat: 30_000 }],
      input_vtxos: [], output_vtxos: [received[0]!.id], exited_vtxos: [],
    });
    await until("Bob's notification", async () => (bobWs.frames.length > 0 ? true : undefined));
    expect(bobWs.frames.map((f) => [f.type, f.movement.id])).to.deep.equal([["movement-created", receive!.id]]);
    // the history filter finds the payment by Bob's address on both sides
    expect((await ok<Movement[]>(bob, "GET", `/api/v1/history?type=ark&value=${bobAddress}`)).map((m) => m.id)).to.deep.equal([receive!.id]);
    expect((await ok<Movement[]>(alice, "GET", `/api/v1/history?type=ark&value=${bobAddress}`)).map((m) => m.id)).to.deep.equal([send!.id]);

    // Bob pays 10 000 back: his change (20 000 > 10 000) is split too
    const { address: aliceAddress } = await ok<{ address: string }>(alice, "POST", "/api/v1/wallet/addresses/next");
    await ok(bob, "POST", "/api/v1/wallet/send", { destination: aliceAddress, amount_sat: 10_000 });
    expect((await ok<VtxoInfo[]>(bob, "GET", "/api/v1/wallet/vtxos")).map((v) => v.amount_sat)).to.deep.equal([10_000, 10_000]);
    await until("Alice's receive", async () => ((await spendable(alice)) === 80_000 ? true : undefined));
    const [back] = await ok<Movement[]>(alice, "GET", "/api/v1/history");
    expect(back!.subsystem).to.deep.equal({ name: "bark.arkoor", kind: "receive" });
    expect(back!.received_on).to.deep.equal([{ destination: { type: "ark", value: aliceAddress }, amount_sat: 10_000 }]);
  }

  it("an ended payment that was delivered keeps neither its signed VTXOs nor their signatures in its action row (ended actions stay in the database)", async () => {
    // Alice and Bob paid each other in the test before
    for (const d of [alice, bob]) {
      const rows = await arkoorSendRows(d.datadir);
      expect(rows.length, "arkoor sends recorded").to.be.greaterThan(0);
      for (const r of rows) {
        const state = JSON.parse(r.state) as { delivered: boolean; signed: unknown; signatures: unknown; movementId: unknown; inputIds: string[] };
        expect([r.step, state.delivered, state.signed, state.signatures], `action ${r.id}`).to.deep.equal(["done", true, null, null]);
        // what an interrupted request's answer is rebuilt from stays
        expect(state.movementId).to.be.a("number");
        expect(state.inputIds).to.not.be.empty;
        expect(r.state.length, "a few hundred bytes, not the ≈ 30 KB of four signed VTXOs").to.be.below(2_000);
      }
    }
  });

  it("exports a VTXO and imports it into a fresh wallet of the same seed, twice without harm", async () => {
    const [v] = await ok<VtxoInfo[]>(alice, "GET", "/api/v1/wallet/vtxos");
    const { encoded } = await ok<{ encoded: string }>(alice, "GET", `/api/v1/wallet/vtxos/${v!.id}/encoded`);
    const restored = await startDaemon({ config: arkDaemonConfig() });
    others.push(restored);
    await ok(restored, "POST", "/api/v1/wallet/create", createBody(devnet, ALICE_MNEMONIC));
    const first = await ok<VtxoInfo[]>(restored, "POST", "/api/v1/wallet/import-vtxo", { vtxos: [encoded] });
    expect(first.map((x) => [x.id, x.amount_sat, x.state.type])).to.deep.equal([[v!.id, v!.amount_sat, "spendable"]]);
    expect(await ok(restored, "POST", "/api/v1/wallet/import-vtxo", { vtxos: [encoded] })).to.deep.equal(first);
    // Creating a wallet from a seed recovers its VTXOs from the recovery mailbox, so the restored
    // wallet holds all of Alice's spendable VTXOs, the imported one among them, counted once.
    expect(await spendable(restored)).to.equal(await spendable(alice));
    // a wallet of another seed does not own it
    const carol = await startDaemon({ config: arkDaemonConfig() });
    others.push(carol);
    await ok(carol, "POST", "/api/v1/wallet/create", createBody(devnet, CAROL_MNEMONIC));
    const foreign = await carol.api("POST", "/api/v1/wallet/import-vtxo", { body: { vtxos: [encoded] } });
    expect(foreign.status).to.equal(500);
    expect((foreign.json as { message: string }).message).to.match(/^Failed to import VTXO: VTXO [0-9a-f]{64}:\d+ is not owned by this wallet \(no signable clause found\)$/);
    expect(await carol.api("POST", "/api/v1/wallet/import-vtxo", { body: { vtxos: [] } })).to.deep.include({ status: 400 });
    expect((await carol.api("POST", "/api/v1/wallet/import-vtxo", { body: { vtxos: ["zz"] } })).status).to.equal(400);
    expect(await ok<VtxoInfo[]>(carol, "GET", "/api/v1/wallet/vtxos?all=true")).to.deep.equal([]);
  });

  it("refuses bad destinations, amounts and VTXO ids with barkd's codes and changes nothing", async () => {
    const before = {
      balance: await ok(alice, "GET", "/api/v1/wallet/balance"),
      vtxos: await ok(alice, "GET", "/api/v1/wallet/vtxos?all=true"),
      history: await ok(alice, "GET", "/api/v1/history"),
    };
    const { address } = await ok<{ address: string }>(bob, "POST", "/api/v1/wallet/addresses/next");
    const send = (body: object) => alice.api("POST", "/api/v1/wallet/send", { body });
    const cases: [object, number, string | RegExp][] = [
      [{ destination: otherServerAddress(address), amount_sat: 1_000 }, 400, "Ark address is for different server"],
      [{ destination: address, amount_sat: 10_000_000 }, 500, /Insufficient money available/],
      [{ destination: address }, 500, "amount missing"],
      [{ destination: address, amount_sat: 0 }, 400, /amount must be greater than zero/],
      [{ destination: "tark1notanaddress" }, 400, "Argument is not a valid destination. Supported are: ark addresses, bolt11 invoices, bolt12 offers and lightning addresses"],
      [{ destination: "bcrt1qw508d6qejxtdg4y5r3zarvary0c5xw7kygt080", amount_sat: 1_000 }, 500, "offboards are temporarily disabled"],
      [{ destination: "bcrt1qw508d6qejxtdg4y5r3zarvary0c5xw7kygt080" }, 500, "amount missing"],
      [{ destination: "satoshi@example.com" }, 400, "bad request: amount is required for Lightning addresses"],
    ];
    for (const [body, status, message] of cases) {
      const r = await send(body);
      expect(r.status, JSON.stringify(body)).to.equal(status);
      const m = (r.json as { message: string }).message;
      if (typeof message === "string") expect(m, JSON.stringify(body)).to.equal(message);
      else expect(m, JSON.stringify(body)).to.match(message);
    }
    const unknown = "0000000000000000000000000000000000000000000000000000000000000001:0";
    const nf = await alice.api("GET", `/api/v1/wallet/vtxos/${unknown}`);
    expect(nf.status).to.equal(404);
    expect((nf.json as { resources: string[] }).resources).to.deep.equal([unknown]);
    expect((await alice.api("GET", `/api/v1/wallet/vtxos/${unknown}/encoded`)).status).to.equal(404);
    const bad = await alice.api("GET", "/api/v1/wallet/vtxos/nope");
    expect(bad.status).to.equal(400);
    expect((bad.json as { message: string }).message).to.match(/^bad request: Invalid VTXO id/);
    expect((await alice.api("GET", "/api/v1/wallet/vtxos?all=maybe")).status).to.equal(400);
    expect(await ok(alice, "GET", "/api/v1/wallet/balance")).to.deep.equal(before.balance);
    expect(await ok(alice, "GET", "/api/v1/wallet/vtxos?all=true")).to.deep.equal(before.vtxos);
    expect(await ok(alice, "GET", "/api/v1/history")).to.deep.equal(before.history);
  });

  it("with daemon_manual_sync only the heartbeat runs: a payment arrives on POST sync/mailbox, which returns the checkpoint", async () => {
    let dave = await startDaemon({ config: arkDaemonConfig() });
    others.push(dave);
    await ok(dave, "POST", "/api/v1/wallet/create", createBody(devnet));
    await dave.stop();
    appendFileSync(join(dave.datadir, "config.toml"), "daemon_manual_sync = true\n");
    dave = await startDaemon({ datadir: dave.datadir, config: arkDaemonConfig() });
    others.push(dave);
    await until("connected", async () => ((await ok<{ connected: boolean }>(dave, "GET", "/api/v1/wallet/connected")).connected ? true : undefined));
    const { address } = await ok<{ address: string }>(dave, "POST", "/api/v1/wallet/addresses/next");
    await ok(alice, "POST", "/api/v1/wallet/send", { destination: address, amount_sat: 2_000 });
    await new Promise((r) => setTimeout(r, 1_500));
    expect(await ok<VtxoInfo[]>(dave, "GET", "/api/v1/wallet/vtxos")).to.deep.equal([]);

    // concurrent consumers of one mailbox record the payment once
    const [first, ...rest] = await Promise.all([0, 1, 2].map(() => dave.api("POST", "/api/v1/wallet/sync/mailbox")));
    expect(first!.status).to.equal(200);
    for (const r of rest) expect(r.text).to.equal(first!.text);
    expect(first!.text).to.match(/^\{"checkpoint":\d+\}$/);
    const checkpoint = BigInt(/\d+/.exec(first!.text)![0]);
    expect(checkpoint > 0n).to.equal(true);
    expect((await ok<VtxoInfo[]>(dave, "GET", "/api/v1/wallet/vtxos")).map((v) => v.amount_sat)).to.deep.equal([2_000]);
    const again = await dave.api("POST", "/api/v1/wallet/sync/mailbox");
    expect(again.text).to.equal(first!.text);
    const sync = await dave.api("POST", "/api/v1/wallet/sync");
    expect([sync.status, sync.text]).to.deep.equal([200, ""]);
    expect((await ok<Movement[]>(dave, "GET", "/api/v1/history")).map((m) => [m.subsystem.kind, m.effective_balance_sat])).to.deep.equal([["receive", 2_000]]);
  });

  it("creates a wallet only when its Ark server answers, unless forced (then offline: connected false, ark-info 404)", async () => {
    const eve = await startDaemon({ config: arkDaemonConfig() });
    others.push(eve);
    const body = { ...createBody(devnet), ark_server: "http://127.0.0.1:9" };
    const refused = await eve.api("POST", "/api/v1/wallet/create", { body });
    expect(refused.status).to.equal(500);
    expect((refused.json as { message: string }).message).to.match(/^Error while creating wallet: failed to connect to Ark server http:\/\/127\.0\.0\.1:9/);
    expect(await ok(eve, "GET", "/api/v1/wallet")).to.deep.equal({ fingerprint: null });
    await ok(eve, "POST", "/api/v1/wallet/create", { ...body, force: true });
    expect(await ok(eve, "GET", "/api/v1/wallet/connected")).to.deep.equal({ connected: false });
    const info = await eve.api("GET", "/api/v1/wallet/ark-info");
    expect([info.status, info.json]).to.deep.equal([404, { resources: ["ark server"], message: "Wallet not connected to an Ark server" }]);
    expect((await eve.api("GET", "/api/v1/wallet/next-round")).status).to.equal(500);
  });

  it("sends a dust amount (isolated output, bark's dust arkoor scenario) and Bob receives it", async () => {
    const { address } = await ok<{ address: string }>(bob, "POST", "/api/v1/wallet/addresses/next");
    const [aliceBefore, bobBefore] = [await spendable(alice), await spendable(bob)];
    await ok(alice, "POST", "/api/v1/wallet/send", { destination: address, amount_sat: 100 });
    expect(await spendable(alice)).to.equal(aliceBefore - 100);
    await until("Bob's dust VTXO", async () => ((await spendable(bob)) === bobBefore + 100 ? true : undefined));
    expect((await ok<VtxoInfo[]>(bob, "GET", "/api/v1/wallet/vtxos")).some((v) => v.amount_sat === 100)).to.equal(true);
  });

  it("pays an amount larger than any one VTXO with a multi-input package", async () => {
    const { address } = await ok<{ address: string }>(bob, "POST", "/api/v1/wallet/addresses/next");
    const vtxos = await ok<VtxoInfo[]>(alice, "GET", "/api/v1/wallet/vtxos");
    const largest = Math.max(...vtxos.map((v) => v.amount_sat));
    const amount = largest + 1_000;
    const [aliceBefore, bobBefore] = [await spendable(alice), await spendable(bob)];
    expect(aliceBefore).to.be.greaterThan(amount);
    await ok(alice, "POST", "/api/v1/wallet/send", { destination: address, amount_sat: amount });
    const [send] = await ok<Movement[]>(alice, "GET", "/api/v1/history");
    expect(send!.input_vtxos.length).to.be.greaterThan(1);
    expect(send!.effective_balance_sat).to.equal(-amount);
    expect(await spendable(alice)).to.equal(aliceBefore - amount);
    await until("Bob's payment", async () => ((await spendable(bob)) === bobBefore + amount ? true : undefined));
  });

  it("delivers a payment made while Bob's daemon was stopped once it starts again (mailbox from the stored checkpoint)", async () => {
    const { address } = await ok<{ address: string }>(bob, "POST", "/api/v1/wallet/addresses/next");
    const before = await spendable(bob);
    const receives = (await ok<Movement[]>(bob, "GET", "/api/v1/history")).length;
    await bob.stop();
    await ok(alice, "POST", "/api/v1/wallet/send", { destination: address, amount_sat: 1_234 });
    bob = await startDaemon({ datadir: bob.datadir, config: arkDaemonConfig() });
    await until("Bob's payment after his restart", async () => ((await spendable(bob)) === before + 1_234 ? true : undefined));
    const history = await ok<Movement[]>(bob, "GET", "/api/v1/history");
    expect(history.length).to.equal(receives + 1);
    expect(history[0]!.received_on).to.deep.equal([{ destination: { type: "ark", value: address }, amount_sat: 1_234 }]);
  });
});

/** The same Ark address with another server's Ark id. */
function otherServerAddress(address: string): string {
  const a = decodeArkAddress(address);
  return encodeArkAddress({ ...a, arkId: Uint8Array.from(a.arkId, (b) => b ^ 0xff) });
}

