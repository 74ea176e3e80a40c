import { expect } from "chai";
import { cleanup, startDaemon, type Daemon } from "../src/daemon-process.js";
import { BOARD_DAEMON_CONFIG, REQUIRED_CONFIRMATIONS, fundedWallet, ok, startBoardDevnet, until, type DevnetWithArk, type PendingBoardInfo } from "./boards-harness.js";
import { ALICE_MNEMONIC, BOB_MNEMONIC, openNotifications, spendable, type Balance, type Movement, type VtxoInfo } from "./ark-harness.js";

interface WaitResponse { notifications: { type: string; movement?: Movement }[]; last_pushed_at: string | null }

/**
 * The whole first slice of the Ark rail in one story (issue 6): Alice funds her on-chain wallet,
 * boards, waits for the server's confirmations, pays Bob's Ark address; Bob receives through the
 * mailbox and pays part back with change — checked on both sides through balances, VTXO lists,
 * movements and notifications (websocket and long-poll), with a metadata patch and the history filter.
 */
describe("Alice and Bob on one devnet: fund, board, pay, receive, pay back (issue 6)", function () {
  this.timeout(180_000);
  let devnet: DevnetWithArk;
  let alice: Daemon;
  let bob: Daemon;

  before(async () => {
    devnet = await startBoardDevnet("alice-bob");
    [alice, bob] = await Promise.all([startDaemon({ config: BOARD_DAEMON_CONFIG }), startDaemon({ config: BOARD_DAEMON_CONFIG })]);
    await fundedWallet(alice, devnet, [400_000n], ALICE_MNEMONIC);
    const created = await bob.api("POST", "/api/v1/wallet/create", {
      body: { network: "regtest", ark_server: devnet.arkUrl, chain_source: { esplora: { url: devnet.esploraUrl } }, mnemonic: BOB_MNEMONIC },
    });
    expect(created.status, created.text).to.equal(200);
  });
  after(async () => {
    for (const d of [alice, bob]) if (d) { await d.stop(); cleanup(d.datadir); }
    await devnet?.stop();
  });

  it("runs the whole payment story with consistent state on both sides", async () => {
    const aliceWs = await openNotifications(alice);
    const bobWs = await openNotifications(bob);

    // Alice boards 300 000 sat: pending until the server's confirmations, then a spendable VTXO.
    const board = await ok<PendingBoardInfo>(alice, "POST", "/api/v1/boards/board-amount", { amount_sat: 300_000 });
    expect((await ok<Balance>(alice, "GET", "/api/v1/wallet/balance")).pending_board_sat).to.equal(board.amount_sat);
    devnet.node.mine(REQUIRED_CONFIRMATIONS);
    await until("the board registered", async () => ((await ok<PendingBoardInfo[]>(alice, "GET", "/api/v1/boards/pending")).length === 0 ? true : undefined), 60_000);
    expect(await ok<Balance>(alice, "GET", "/api/v1/wallet/balance")).to.deep.include({ spendable_sat: board.amount_sat, pending_board_sat: 0 });
    expect((await ok<VtxoInfo[]>(alice, "GET", "/api/v1/wallet/vtxos")).map((v) => [v.id, v.state.type])).to.deep.equal([[board.vtxos[0], "spendable"]]);

    // Alice pays Bob's Ark address; Bob receives through his mailbox.
    const { address: bobAddress } = await ok<{ address: string }>(bob, "POST", "/api/v1/wallet/addresses/next");
    const { movement_id: sentMovement, ...sent } = await ok<{ message: string; movement_id: number }>(alice, "POST", "/api/v1/wallet/send", { destination: bobAddress, amount_sat: 120_000 });
    expect(sent).to.deep.equal({ message: "Payment sent successfully" });
    expect(sentMovement, "tender names the payment's movement").to.be.a("number");
    expect(await spendable(alice)).to.equal(board.amount_sat - 120_000);
    await until("Bob received", async () => ((await spendable(bob)) === 120_000 ? true : undefined), 30_000);
    const bobVtxos = await ok<VtxoInfo[]>(bob, "GET", "/api/v1/wallet/vtxos");
    expect(bobVtxos.map((v) => [v.amount_sat, v.state.type])).to.deep.equal([[120_000, "spendable"]]);

    // Bob pays part back to a fresh address of Alice's, keeping change.
    const { address: aliceAddress } = await ok<{ address: string }>(alice, "POST", "/api/v1/wallet/addresses/next");
    await ok(bob, "POST", "/api/v1/wallet/send", { destination: aliceAddress, amount_sat: 20_000 });
    expect(await spendable(bob)).to.equal(100_000);
    await until("Alice received the payback", async () => ((await spendable(alice)) === board.amount_sat - 100_000 ? true : undefined), 30_000);
    const bobAfter = await ok<VtxoInfo[]>(bob, "GET", "/api/v1/wallet/vtxos");
    expect(bobAfter.map((v) => v.amount_sat).reduce((a, b) => a + b, 0)).to.equal(100_000);
    const bobAll = await ok<VtxoInfo[]>(bob, "GET", "/api/v1/wallet/vtxos?all=true");
    expect(bobAll.filter((v) => v.state.type === "spent").map((v) => v.id)).to.deep.equal([bobVtxos[0]!.id]);

    // Movements on both sides, newest first.
    const aliceHistory = await ok<Movement[]>(alice, "GET", "/api/v1/history");
    expect(aliceHistory.map((m) => [m.subsystem.name, m.subsystem.kind, m.status, m.effective_balance_sat])).to.deep.equal([
      ["bark.arkoor", "receive", "successful", 20_000],
      ["bark.arkoor", "send", "successful", -120_000],
      ["bark.board", "board", "successful", board.amount_sat],
    ]);
    const aliceSend = aliceHistory[1]!;
    expect(aliceSend.sent_to).to.deep.equal([{ destination: { type: "ark", value: bobAddress }, amount_sat: 120_000 }]);
    expect(aliceSend.input_vtxos).to.deep.equal([board.vtxos[0]]);
    const bobHistory = await ok<Movement[]>(bob, "GET", "/api/v1/history");
    expect(bobHistory.map((m) => [m.subsystem.kind, m.status, m.effective_balance_sat])).to.deep.equal([
      ["send", "successful", -20_000],
      ["receive", "successful", 120_000],
    ]);
    expect(bobHistory[1]!.received_on).to.deep.equal([{ destination: { type: "ark", value: bobAddress }, amount_sat: 120_000 }]);

    // The history filter finds the payment on both sides; a metadata patch shows up with a notification.
    const byAddress = await ok<Movement[]>(alice, "GET", `/api/v1/history?type=ark&value=${bobAddress}`);
    expect(byAddress.map((m) => m.id)).to.deep.equal([aliceSend.id]);
    expect((await ok<Movement[]>(bob, "GET", `/api/v1/history?type=ark&value=${bobAddress}`)).map((m) => m.id)).to.deep.equal([bobHistory[1]!.id]);
    await ok(alice, "POST", `/api/v1/history/${aliceSend.id}/metadata`, { note: "rent" });
    expect((await ok<Movement[]>(alice, "GET", "/api/v1/history"))[1]!.metadata).to.deep.include({ note: "rent" });

    // Notifications: the websocket saw every movement change, the long-poll buffer holds them too.
    await until("Alice's frames", async () => (aliceWs.frames.some((f) => f.type === "movement-updated" && f.movement.metadata?.note === "rent") ? true : undefined));
    const aliceIds = new Set(aliceWs.frames.map((f) => f.movement.id));
    expect([...aliceIds].sort()).to.deep.equal(aliceHistory.map((m) => m.id).sort());
    expect(bobWs.frames.filter((f) => f.type === "movement-created").map((f) => f.movement.subsystem.kind)).to.deep.equal(["receive", "send"]);
    const polled = await ok<WaitResponse>(bob, "GET", "/api/v1/notifications/wait");
    expect(polled.notifications.filter((n) => n.type === "movement-created").map((n) => n.movement!.subsystem.kind)).to.deep.equal(["receive", "send"]);
    aliceWs.ws.close();
    bobWs.ws.close();
  });
});
