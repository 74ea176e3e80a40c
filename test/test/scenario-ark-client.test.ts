import { expect } from "chai";
import { bech32m } from "@scure/base";
import { WalletKeys, encodeOutPoint, parseOutPoint, toHex } from "@tender/ark-protocol";
import { cleanup, startDaemon, type Daemon } from "../src/daemon-process.js";
import {
  ALICE_MNEMONIC, BOB_MNEMONIC, arkDaemonConfig, boardToDaemon, createBody, ok, spendable, startArkDevnet, until,
  type DevnetWithArk, type Movement, type VtxoInfo,
} from "./ark-harness.js";

/**
 * Client-side scenarios of bark's integration tests that no other end-to-end test asserts (see
 * the mapping table in test/README.md): the next round lies ahead; the VTXO ids of an arkoor payment
 * are backed up in both wallets' recovery mailboxes; an Arkade address is refused; a payment of
 * several inputs arrives as several VTXOs in one movement; two racing sends never double-spend.
 */
describe("bark's client scenarios: next round, recovery mailbox, Arkade address, multi-piece receive, concurrent sends", function () {
  this.timeout(120_000);
  let devnet: DevnetWithArk;
  let alice: Daemon;
  let bob: Daemon;

  before(async () => {
    devnet = await startArkDevnet("scenario-ark-client");
    [alice, bob] = await Promise.all([startDaemon({ config: arkDaemonConfig() }), startDaemon({ config: arkDaemonConfig() })]);
    await ok(alice, "POST", "/api/v1/wallet/create", createBody(devnet, ALICE_MNEMONIC));
    await ok(bob, "POST", "/api/v1/wallet/create", createBody(devnet, BOB_MNEMONIC));
  });
  after(async () => {
    for (const d of [alice, bob]) if (d) { await d.stop(); cleanup(d.datadir); }
    await devnet?.stop();
  });

  /** The outpoints (hex of their 36-byte encoding) backed up in the recovery mailbox of `mnemonic`. */
  const recoveryBackups = async (mnemonic: string): Promise<string[]> => {
    const mailboxId = toHex(WalletKeys.fromMnemonic(mnemonic).recoveryMailboxKey().publicKey);
    const rows = await devnet.ark.server.ctx.store.readMailbox(mailboxId, 0n, 1_000);
    return rows.filter((r) => r.kind === "recovery").map((r) => toHex(r.payload));
  };
  const encodedId = (id: string) => toHex(encodeOutPoint(parseOutPoint(id)));

  it("reports a next round that starts in the future (barkd/core::wallet_next_round_barkd)", async () => {
    await until("connected", async () => ((await ok<{ connected: boolean }>(alice, "GET", "/api/v1/wallet/connected")).connected ? true : undefined));
    const asked = Date.now();
    const { start_time } = await ok<{ start_time: string }>(alice, "GET", "/api/v1/wallet/next-round");
    const start = Date.parse(start_time);
    expect(Number.isNaN(start), start_time).to.equal(false);
    expect(start, start_time).to.be.greaterThan(asked);
  });

  it("backs up the received VTXO in the receiver's and the change in the sender's recovery mailbox (bark/mailbox::recovery_mailbox_receives_vtxo_ids)", async () => {
    const hex = await boardToDaemon(alice, devnet, ALICE_MNEMONIC, 50_000n);
    await ok(alice, "POST", "/api/v1/wallet/import-vtxo", { vtxos: [hex] });
    const { address } = await ok<{ address: string }>(bob, "POST", "/api/v1/wallet/addresses/next");
    await ok(alice, "POST", "/api/v1/wallet/send", { destination: address, amount_sat: 15_000 });
    const [send] = await ok<Movement[]>(alice, "GET", "/api/v1/history");
    expect(send!.subsystem).to.deep.equal({ name: "bark.arkoor", kind: "send" });
    expect(send!.output_vtxos.length, "the payment left change").to.be.greaterThan(0);
    const aliceBackups = await until("Alice's change ids backed up", async () => {
      const b = await recoveryBackups(ALICE_MNEMONIC);
      return send!.output_vtxos.every((id) => b.includes(encodedId(id))) ? b : undefined;
    });
    expect(aliceBackups).to.include.members(send!.output_vtxos.map(encodedId));

    await until("Bob's payment", async () => ((await spendable(bob)) === 15_000 ? true : undefined));
    const [received] = await ok<VtxoInfo[]>(bob, "GET", "/api/v1/wallet/vtxos");
    const bobBackups = await until("Bob's received id backed up", async () => {
      const b = await recoveryBackups(BOB_MNEMONIC);
      return b.includes(encodedId(received!.id)) ? b : undefined;
    });
    expect(bobBackups).to.include(encodedId(received!.id));
    // Bob's mailbox holds only what Bob received, never Alice's change.
    for (const id of send!.output_vtxos) expect(bobBackups).to.not.include(encodedId(id));
  });

  it("refuses a version-0 (Arkade) address as another server's and changes nothing (bark/arkoor::send_to_arkade_address_is_rejected)", async () => {
    const { address } = await ok<{ address: string }>(bob, "POST", "/api/v1/wallet/addresses/next");
    const ours = bech32m.decode(address as `${string}1${string}`, 1023);
    expect(ours.words[0], "our addresses are version 1").to.equal(1);
    const arkade = bech32m.encode(ours.prefix, [0, ...ours.words.slice(1)], 1023);
    const before = { balance: await ok(alice, "GET", "/api/v1/wallet/balance"), vtxos: await ok(alice, "GET", "/api/v1/wallet/vtxos?all=true"), history: await ok(alice, "GET", "/api/v1/history") };
    const r = await alice.api("POST", "/api/v1/wallet/send", { body: { destination: arkade, amount_sat: 1_000 } });
    expect([r.status, r.json]).to.deep.equal([400, { message: "Ark address is for different server" }]);
    expect(await ok(alice, "GET", "/api/v1/wallet/balance")).to.deep.equal(before.balance);
    expect(await ok(alice, "GET", "/api/v1/wallet/vtxos?all=true")).to.deep.equal(before.vtxos);
    expect(await ok(alice, "GET", "/api/v1/history")).to.deep.equal(before.history);
  });

  it("delivers a payment built from several inputs as several VTXOs in one receive movement (bark/mailbox::accept_mailbox)", async () => {
    const pieces = await ok<VtxoInfo[]>(alice, "GET", "/api/v1/wallet/vtxos");
    const largest = Math.max(...pieces.map((v) => v.amount_sat));
    const amount = largest + 2_500;
    expect(await spendable(alice)).to.be.greaterThan(amount);
    const { address } = await ok<{ address: string }>(bob, "POST", "/api/v1/wallet/addresses/next");
    const bobBefore = await spendable(bob);
    const receivesBefore = (await ok<Movement[]>(bob, "GET", "/api/v1/history")).length;
    await ok(alice, "POST", "/api/v1/wallet/send", { destination: address, amount_sat: amount });
    await until("Bob's pieces", async () => ((await spendable(bob)) === bobBefore + amount ? true : undefined));
    const history = await ok<Movement[]>(bob, "GET", "/api/v1/history");
    expect(history.length, "one movement for the whole payment").to.equal(receivesBefore + 1);
    const receive = history[0]!;
    expect(receive.received_on).to.deep.equal([{ destination: { type: "ark", value: address }, amount_sat: amount }]);
    expect(receive.output_vtxos.length).to.be.greaterThan(1);
    const bobVtxos = await ok<VtxoInfo[]>(bob, "GET", "/api/v1/wallet/vtxos");
    const got = bobVtxos.filter((v) => receive.output_vtxos.includes(v.id));
    expect(got.map((v) => v.state.type)).to.deep.equal(receive.output_vtxos.map(() => "spendable"));
    expect(got.reduce((a, v) => a + v.amount_sat, 0)).to.equal(amount);
  });

  it("runs two sends started together that the balance covers only once: one pays, the other is refused, no VTXO spent twice (bark_sdk/vtxo_lock::concurrent_locks_serialize)", async () => {
    const balance = await spendable(alice);
    const amount = Math.floor(balance * 0.6);
    const { address } = await ok<{ address: string }>(bob, "POST", "/api/v1/wallet/addresses/next");
    const bobBefore = await spendable(bob);
    const sendsBefore = (await ok<Movement[]>(alice, "GET", "/api/v1/history")).filter((m) => m.subsystem.kind === "send").length;
    const answers = await Promise.all([0, 1].map(() => alice.api("POST", "/api/v1/wallet/send", { body: { destination: address, amount_sat: amount } })));
    expect(answers.map((r) => r.status).sort()).to.deep.equal([200, 500]);
    expect((answers.find((r) => r.status === 500)!.json as { message: string }).message).to.match(/Insufficient money available/);
    expect(await spendable(alice)).to.equal(balance - amount);
    await until("Bob paid once", async () => ((await spendable(bob)) === bobBefore + amount ? true : undefined));
    await new Promise((r) => setTimeout(r, 1_000));
    expect(await spendable(bob)).to.equal(bobBefore + amount);
    const history = await ok<Movement[]>(alice, "GET", "/api/v1/history");
    const sends = history.filter((m) => m.subsystem.kind === "send");
    expect(sends.length).to.equal(sendsBefore + 1);
    const inputs = history.flatMap((m) => m.input_vtxos);
    expect(new Set(inputs).size, "no VTXO is the input of two movements").to.equal(inputs.length);
  });
});
