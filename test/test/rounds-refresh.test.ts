import { expect } from "chai";
import { cleanup, startDaemon, type Daemon } from "../src/daemon-process.js";
import { ALICE_MNEMONIC, BOB_MNEMONIC } from "./ark-harness.js";
import {
  ROUNDS_ENV, ROUND_CONFIRMATIONS, VTXO_LIFETIME, allVtxos, balance, boardedWallet, history, ok, refreshFeeOf, rounds, roundsDaemonConfig,
  printLogsOnFailure, serverState, startRoundsDevnet, sum, triggerRound, until, untilMovementEnded, untilRoundStatus, vtxos,
  type DevnetWithArk, type PendingRoundInfo,
} from "./rounds-harness.js";

/**
 * Refreshing VTXOs in an hArk round, end to end: two daemons (tenderd's default plugins) on one
 * devnet, each asking for a refresh over barkd's routes, one triggered round carrying both.
 */
describe("refresh in an hArk round: Alice and Bob refresh everything in one triggered round", function () {
  this.timeout(180_000);
  let devnet: DevnetWithArk;
  let alice: Daemon;
  let bob: Daemon;

  before(async () => {
    devnet = await startRoundsDevnet("rounds-refresh");
    [alice, bob] = await Promise.all([
      startDaemon({ config: roundsDaemonConfig(), env: ROUNDS_ENV }),
      startDaemon({ config: roundsDaemonConfig(), env: ROUNDS_ENV }),
    ]);
    await boardedWallet(alice, devnet, ALICE_MNEMONIC, [150_000, 100_000]);
    await ok(bob, "POST", "/api/v1/wallet/create", { network: "regtest", ark_server: devnet.arkUrl, chain_source: { esplora: { url: devnet.esploraUrl } }, mnemonic: BOB_MNEMONIC });
  });
  afterEach(function () {
    printLogsOnFailure(this, { alice, bob });
  });
  after(async () => {
    for (const d of [alice, bob]) if (d) { await d.stop(); cleanup(d.datadir); }
    await devnet?.stop();
  });

  /** Alice pays Bob twice, Bob pays part back: both hold arkoor VTXOs, Alice board and change VTXOs too. */
  async function payments(): Promise<void> {
    const { address: bobAddress } = await ok<{ address: string }>(bob, "POST", "/api/v1/wallet/addresses/next");
    await ok(alice, "POST", "/api/v1/wallet/send", { destination: bobAddress, amount_sat: 60_000 });
    await ok(alice, "POST", "/api/v1/wallet/send", { destination: bobAddress, amount_sat: 30_000 });
    await until("Bob received", async () => ((await balance(bob)).spendable_sat === 90_000 ? true : undefined));
    const { address: aliceAddress } = await ok<{ address: string }>(alice, "POST", "/api/v1/wallet/addresses/next");
    await ok(bob, "POST", "/api/v1/wallet/send", { destination: aliceAddress, amount_sat: 10_000 });
    await until("Alice received", async () => ((await balance(alice)).spendable_sat === 170_000 ? true : undefined));
  }

  it("refreshes board, arkoor and change VTXOs on both sides: statuses, balances, history, the server's states, and the new VTXOs pay", async () => {
    await payments();
    const aliceBefore = await vtxos(alice);
    const bobBefore = await vtxos(bob);
    // Alice holds a board VTXO (anchored in a board funding tx), change and a received VTXO; Bob a received one and change
    const boardAnchors = new Set((await history(alice)).filter((m) => m.subsystem.name === "bark.board").map((m) => String(m.metadata?.chain_anchor)));
    expect(aliceBefore.filter((v) => boardAnchors.has(v.chain_anchor) && v.exit_depth === 1), "an unspent board VTXO").to.have.length.greaterThan(0);
    expect(aliceBefore.filter((v) => (v.exit_depth ?? 0) > 1), "arkoor VTXOs (change and received)").to.have.length.greaterThan(1);
    expect(bobBefore.length).to.be.greaterThan(1);
    const aliceTotal = sum(aliceBefore);
    const bobTotal = sum(bobBefore);
    expect([aliceTotal, bobTotal]).to.deep.equal([170_000, 80_000]);

    // both ask for a refresh: the inputs lock, the outputs count as pending in a round, a pending refresh movement appears
    const aliceRefresh = await ok<PendingRoundInfo>(alice, "POST", "/api/v1/wallet/refresh/all");
    const bobRefresh = await ok<PendingRoundInfo>(bob, "POST", "/api/v1/wallet/refresh/vtxos", { vtxos: bobBefore.map((v) => v.id) });
    for (const [d, r, before, total] of [[alice, aliceRefresh, aliceBefore, aliceTotal], [bob, bobRefresh, bobBefore, bobTotal]] as const) {
      const fee = refreshFeeOf(total);
      expect(r.status).to.deep.equal({ status: "pending" });
      expect([...r.participation.inputs].sort()).to.deep.equal(before.map((v) => v.id).sort());
      expect(r.participation.outputs).to.have.length(1);
      expect(r.participation.outputs[0]).to.deep.include({ amount_sat: total - fee, policy_type: "pubkey" });
      expect([r.unlock_hash, r.funding_txid, r.funding_tx_hex]).to.deep.equal([null, null, null]);
      expect(await balance(d)).to.deep.include({ spendable_sat: 0, pending_in_round_sat: total - fee });
      expect((await vtxos(d)).map((v) => v.state.type)).to.deep.equal(before.map(() => "locked"));
      const [m] = await history(d);
      expect(m).to.deep.include({ status: "pending", subsystem: { name: "bark.round", kind: "refresh" }, intended_balance_sat: 0, effective_balance_sat: -fee, offchain_fee_sat: fee });
      expect([...m!.input_vtxos].sort()).to.deep.equal(before.map((v) => v.id).sort());
      expect(await rounds(d)).to.deep.equal([r]);
    }

    // one round carries both: finished, the funding tx in the mempool, waiting for confirmations
    const tipAtRound = devnet.node.tipHeight();
    await triggerRound(devnet);
    const aliceUnconfirmed = await untilRoundStatus(alice, aliceRefresh.id, "unconfirmed");
    const bobUnconfirmed = await untilRoundStatus(bob, bobRefresh.id, "unconfirmed");
    const fundingTxid = aliceUnconfirmed.funding_txid!;
    expect(aliceUnconfirmed.status).to.deep.equal({ status: "unconfirmed", funding_txid: fundingTxid });
    expect(bobUnconfirmed.funding_txid, "one round for both").to.equal(fundingTxid);
    for (const u of [aliceUnconfirmed, bobUnconfirmed]) {
      expect(u.unlock_hash).to.match(/^[0-9a-f]{64}$/);
      expect(u.funding_tx_hex).to.equal(Buffer.from(devnet.node.getTransaction(fundingTxid)!.raw).toString("hex"));
    }
    expect(devnet.node.getTransaction(fundingTxid)?.status.confirmed, "the funding tx is in the mempool").to.equal(false);
    expect((await balance(alice)).pending_in_round_sat).to.equal(aliceRefresh.participation.outputs[0]!.amount_sat);
    expect((await history(alice))[0]!.metadata).to.deep.equal({ funding_txid: fundingTxid });

    // one confirmation is not enough; the second one completes the swap, and the list then drops them
    devnet.node.mine(ROUND_CONFIRMATIONS - 1);
    await ok(alice, "POST", "/api/v1/wallet/sync");
    expect((await rounds(alice)).map((r) => r.status.status)).to.deep.equal(["unconfirmed"]);
    devnet.node.mine(1);
    // the list re-syncs: the read right after the block completes the swap and reports the participation confirmed (the
    // daemons' own syncs need many more round trips than this one read); the next read no longer lists it
    const [aliceSeen, bobSeen] = await Promise.all([rounds(alice), rounds(bob)]);
    expect(aliceSeen.map((r) => [r.id, r.status])).to.deep.equal([[aliceRefresh.id, { status: "confirmed", funding_txid: fundingTxid }]]);
    expect(bobSeen.map((r) => [r.id, r.status])).to.deep.equal([[bobRefresh.id, { status: "confirmed", funding_txid: fundingTxid }]]);
    expect(await rounds(alice)).to.deep.equal([]);
    expect(await rounds(bob)).to.deep.equal([]);

    for (const [d, r, before, total] of [[alice, aliceRefresh, aliceBefore, aliceTotal], [bob, bobRefresh, bobBefore, bobTotal]] as const) {
      const fee = refreshFeeOf(total);
      const now = await vtxos(d);
      expect(now).to.have.length(1);
      const fresh = now[0]!;
      expect(fresh).to.deep.include({ amount_sat: total - fee, state: { type: "spendable" }, policy_type: "pubkey", user_pubkey: r.participation.outputs[0]!.user_pubkey });
      expect(fresh.chain_anchor.startsWith(`${fundingTxid}:`)).to.equal(true);
      expect(fresh.expiry_height).to.be.within(tipAtRound + VTXO_LIFETIME, tipAtRound + VTXO_LIFETIME + 1);
      const all = await allVtxos(d);
      expect(all.filter((v) => v.state.type === "spent").map((v) => v.id)).to.include.members(before.map((v) => v.id));
      expect(await balance(d)).to.deep.include({ spendable_sat: total - fee, pending_in_round_sat: 0 });
      const m = await untilMovementEnded(d, (await history(d)).find((x) => x.subsystem.name === "bark.round")!.id);
      expect(m).to.deep.include({ status: "successful", effective_balance_sat: -fee, offchain_fee_sat: fee, output_vtxos: [fresh.id], metadata: { funding_txid: fundingTxid } });
      expect(m.time.completed_at).to.be.a("string");
      // the server agrees: inputs spent (forfeited), the new VTXO spendable
      for (const v of before) expect(await serverState(devnet, v.id), `server state of input ${v.id}`).to.equal("spent");
      expect(await serverState(devnet, fresh.id)).to.equal("spendable");
    }

    // the refreshed VTXOs pay
    const { address: bobAddress } = await ok<{ address: string }>(bob, "POST", "/api/v1/wallet/addresses/next");
    const aliceLeft = (await balance(alice)).spendable_sat;
    const bobLeft = (await balance(bob)).spendable_sat;
    await ok(alice, "POST", "/api/v1/wallet/send", { destination: bobAddress, amount_sat: 5_000 });
    expect((await balance(alice)).spendable_sat).to.equal(aliceLeft - 5_000);
    await until("Bob received from a refreshed VTXO", async () => ((await balance(bob)).spendable_sat === bobLeft + 5_000 ? true : undefined));
    const refreshedId = (await allVtxos(alice)).find((v) => v.chain_anchor.startsWith(`${fundingTxid}:`))!.id;
    expect((await allVtxos(alice)).find((v) => v.id === refreshedId)!.state.type).to.equal("spent");
    expect(await serverState(devnet, refreshedId)).to.equal("spent");
  });
});
