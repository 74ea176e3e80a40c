import { expect } from "chai";
import { WalletKeys, encodeOutPoint, parseOutPoint, toHex } from "@tender/plugin-ark/protocol";
import { cleanup, startDaemon, type Daemon } from "../src/daemon-process.js";
import {
  ALICE_MNEMONIC, BOB_MNEMONIC, arkDaemonConfig, boardToDaemon, createBody, ok, spendable, startArkDevnet, until,
  type DevnetWithArk, type Movement, type VtxoInfo,
} from "./ark-harness.js";

/**
 * Client-side scenarios of flows §8.1/§8.3 that no other end-to-end test asserts (see the
 * mapping table in test/README.md): the next round lies ahead, and the VTXO ids of an arkoor
 * payment are backed up in both wallets' recovery mailboxes.
 */
describe("flows §8 client scenarios: next round, recovery mailbox on arkoor", function () {
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
});
