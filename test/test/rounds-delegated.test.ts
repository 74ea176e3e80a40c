import { expect } from "chai";
import { appendFileSync } from "node:fs";
import { join } from "node:path";
import { cleanup, startDaemon, type Daemon } from "../src/daemon-process.js";
import { ALICE_MNEMONIC, BOB_MNEMONIC } from "./ark-harness.js";
import {
  ROUNDS_ENV, ROUND_CONFIRMATIONS, allVtxos, balance, boardedWallet, createBody, history, ok, printLogsOnFailure, refreshFeeOf, rounds,
  roundsDaemonConfig, runRound, serverState, startRoundsDevnet, until, untilMovementEnded, untilRoundStatus, vtxos,
  type DevnetWithArk, type PendingRoundInfo,
} from "./rounds-harness.js";

/**
 * Delegated refresh (`POST /wallet/refresh/delegated/vtxos`): the daemon hands a signed
 * participation to the server, which carries it through its next round (or the first round at
 * or after a scheduled height); the daemon completes it from the mailbox's notice, its own syncs,
 * or `POST /wallet/sync`.
 */
describe("delegated refresh: carried by the server's round, completed by the daemon", function () {
  this.timeout(240_000);
  let devnet: DevnetWithArk;
  let alice: Daemon;
  let bob: Daemon;

  before(async () => {
    devnet = await startRoundsDevnet("rounds-delegated");
    alice = await startDaemon({ config: roundsDaemonConfig(), env: ROUNDS_ENV });
    await boardedWallet(alice, devnet, ALICE_MNEMONIC, [100_000, 80_000]);
  });
  afterEach(function () {
    printLogsOnFailure(this, { alice, bob });
  });
  after(async () => {
    for (const d of [alice, bob]) if (d) { await d.stop(); cleanup(d.datadir); }
    await devnet?.stop();
  });

  /** Checks what a completed refresh of `input` left: one new spendable VTXO from `fundingTxid`, the input spent on both sides, a successful movement. */
  async function expectRefreshed(d: Daemon, r: PendingRoundInfo, input: { id: string; amount_sat: number }, fundingTxid: string): Promise<string> {
    const fee = refreshFeeOf(input.amount_sat);
    const fresh = (await vtxos(d)).filter((v) => v.chain_anchor.startsWith(`${fundingTxid}:`));
    expect(fresh.map((v) => [v.amount_sat, v.state.type, v.user_pubkey])).to.deep.equal([[input.amount_sat - fee, "spendable", r.participation.outputs[0]!.user_pubkey]]);
    expect((await allVtxos(d)).find((v) => v.id === input.id)!.state.type).to.equal("spent");
    expect(await serverState(devnet, input.id)).to.equal("spent");
    expect(await serverState(devnet, fresh[0]!.id)).to.equal("spendable");
    const m = (await history(d)).find((x) => x.subsystem.name === "bark.round" && x.input_vtxos.includes(input.id))!;
    expect(m).to.deep.include({ status: "successful", offchain_fee_sat: fee, effective_balance_sat: -fee, output_vtxos: [fresh[0]!.id], metadata: { funding_txid: fundingTxid } });
    return fresh[0]!.id;
  }

  it("hands the participation over at once (inputs stay spendable), and completes it after the round: issued, confirmed, swapped", async () => {
    const [input] = (await vtxos(alice)).filter((v) => v.amount_sat === 100_000);
    const before = await balance(alice);
    const r = await ok<PendingRoundInfo>(alice, "POST", "/api/v1/wallet/refresh/delegated/vtxos", { vtxos: [input!.id] });
    const fee = refreshFeeOf(100_000);
    expect(r.status).to.deep.equal({ status: "pending" });
    expect(r.participation.inputs).to.deep.equal([input!.id]);
    expect(r.participation.outputs.map((o) => [o.amount_sat, o.policy_type])).to.deep.equal([[100_000 - fee, "pubkey"]]);
    expect(r.unlock_hash, "the server's unlock hash").to.match(/^[0-9a-f]{64}$/);
    expect([r.funding_txid, r.funding_tx_hex]).to.deep.equal([null, null]);
    // the inputs are not held while the server waits for its round
    expect(await balance(alice)).to.deep.equal(before);
    expect((await vtxos(alice)).find((v) => v.id === input!.id)!.state.type).to.equal("spendable");
    expect((await history(alice))[0]).to.deep.include({ status: "pending", subsystem: { name: "bark.round", kind: "refresh" }, offchain_fee_sat: fee });
    expect(await rounds(alice)).to.deep.equal([r]);

    // the round carries it; the mailbox's notice makes the daemon take the outputs and hold the input
    expect(await runRound(devnet)).to.equal("finished");
    const unconfirmed = await untilRoundStatus(alice, r.id, "unconfirmed");
    const fundingTxid = unconfirmed.funding_txid!;
    expect(unconfirmed.unlock_hash).to.equal(r.unlock_hash);
    expect((await vtxos(alice)).find((v) => v.id === input!.id)!.state.type).to.equal("locked");
    expect(await balance(alice)).to.deep.include({ spendable_sat: before.spendable_sat - 100_000, pending_in_round_sat: 100_000 - fee });

    devnet.node.mine(ROUND_CONFIRMATIONS);
    await untilMovementEnded(alice, (await history(alice))[0]!.id);
    await expectRefreshed(alice, r, input!, fundingTxid);
    expect(await rounds(alice)).to.deep.equal([]);
    expect(await balance(alice)).to.deep.include({ spendable_sat: before.spendable_sat - fee, pending_in_round_sat: 0 });
  });

  it("in daemon_manual_sync mode nothing moves by itself: POST /wallet/sync completes the delegated refresh after the round", async () => {
    bob = await startDaemon({ config: roundsDaemonConfig(), env: ROUNDS_ENV });
    await ok(bob, "POST", "/api/v1/wallet/create", createBody(devnet, BOB_MNEMONIC));
    await bob.stop();
    appendFileSync(join(bob.datadir, "config.toml"), "daemon_manual_sync = true\n");
    bob = await startDaemon({ datadir: bob.datadir, config: roundsDaemonConfig(), env: ROUNDS_ENV });
    const { address } = await ok<{ address: string }>(bob, "POST", "/api/v1/wallet/addresses/next");
    await ok(alice, "POST", "/api/v1/wallet/send", { destination: address, amount_sat: 40_000 });
    await ok(bob, "POST", "/api/v1/wallet/sync/mailbox");
    const [input] = await vtxos(bob);
    expect(input!.amount_sat).to.equal(40_000);

    const r = await ok<PendingRoundInfo>(bob, "POST", "/api/v1/wallet/refresh/delegated/vtxos", { vtxos: [input!.id] });
    expect(r.status).to.deep.equal({ status: "pending" });
    expect(await runRound(devnet)).to.equal("finished");
    expect(await serverState(devnet, input!.id), "the round spent the input on the server").to.equal("spent");
    devnet.node.mine(ROUND_CONFIRMATIONS);
    // nothing ran: the wallet still shows the input spendable and the refresh pending (reads never sync)
    await new Promise((res) => setTimeout(res, 1_500));
    expect((await vtxos(bob)).map((v) => [v.id, v.state.type])).to.deep.equal([[input!.id, "spendable"]]);
    expect((await history(bob))[0]).to.deep.include({ status: "pending", subsystem: { name: "bark.round", kind: "refresh" } });

    // a spend of the input the wallet still shows spendable is refused by the server (the round spent it), and changes nothing
    const { address: aliceAddress } = await ok<{ address: string }>(alice, "POST", "/api/v1/wallet/addresses/next");
    const stale = await bob.api("POST", "/api/v1/wallet/send", { body: { destination: aliceAddress, amount_sat: 10_000 } });
    expect(stale.status, stale.text).to.equal(500);
    expect((await vtxos(bob)).map((v) => [v.id, v.state.type])).to.deep.equal([[input!.id, "spendable"]]);

    await ok(bob, "POST", "/api/v1/wallet/sync");
    const m = (await history(bob)).find((x) => x.subsystem.name === "bark.round")!;
    expect(m.status, "one sync completes it").to.equal("successful");
    await expectRefreshed(bob, r, input!, String(m.metadata?.funding_txid));
    expect(await rounds(bob)).to.deep.equal([]);
  });

  it("a delegated refresh whose input is spent before the round is dropped by the server; the next sync fails it (NOT_FOUND) and cleans up", async () => {
    const [input] = await vtxos(bob);
    const r = await ok<PendingRoundInfo>(bob, "POST", "/api/v1/wallet/refresh/delegated/vtxos", { vtxos: [input!.id] });
    const { address } = await ok<{ address: string }>(alice, "POST", "/api/v1/wallet/addresses/next");
    await ok(bob, "POST", "/api/v1/wallet/send", { destination: address, amount_sat: input!.amount_sat });
    expect(await runRound(devnet), "the server left the participation out").to.equal("failed");
    await ok(bob, "POST", "/api/v1/wallet/sync");
    const m = (await history(bob)).find((x) => x.subsystem.name === "bark.round" && x.input_vtxos.includes(input!.id))!;
    expect(m).to.deep.include({ status: "failed", output_vtxos: [] });
    expect(await rounds(bob)).to.deep.equal([]);
    expect((await allVtxos(bob)).find((v) => v.id === input!.id)!.state.type, "spent by the payment, not by a round").to.equal("spent");
    expect(await vtxos(bob)).to.deep.equal([]);
    expect(await balance(bob)).to.deep.include({ spendable_sat: 0, pending_in_round_sat: 0 });
    expect(r.unlock_hash).to.match(/^[0-9a-f]{64}$/);
  });

  it("a scheduled delegated refresh sits out rounds below its height and is carried by the first round at it", async () => {
    const [input] = await vtxos(alice);
    const height = devnet.node.tipHeight() + 3;
    const r = await ok<PendingRoundInfo>(alice, "POST", "/api/v1/wallet/refresh/delegated/vtxos", { vtxos: [input!.id], height });
    expect(r.status).to.deep.equal({ status: "pending" });
    expect(r.participation.outputs[0]!.amount_sat).to.equal(input!.amount_sat - refreshFeeOf(input!.amount_sat));

    // below the height the server leaves it out: the round has nobody, the participation stays pending
    devnet.node.mine(1);
    expect(await runRound(devnet)).to.equal("failed");
    await ok(alice, "POST", "/api/v1/wallet/sync");
    expect((await rounds(alice)).map((x) => [x.id, x.status])).to.deep.equal([[r.id, { status: "pending" }]]);
    expect(await serverState(devnet, input!.id)).to.equal("spendable");
    expect((await vtxos(alice)).find((v) => v.id === input!.id)!.state.type).to.equal("spendable");

    // at the height the next round carries it
    devnet.node.mine(height - devnet.node.tipHeight());
    expect(await runRound(devnet)).to.equal("finished");
    const unconfirmed = await untilRoundStatus(alice, r.id, "unconfirmed");
    devnet.node.mine(ROUND_CONFIRMATIONS);
    await untilMovementEnded(alice, (await history(alice)).find((m) => m.input_vtxos.includes(input!.id))!.id);
    const fresh = await expectRefreshed(alice, r, input!, unconfirmed.funding_txid!);
    expect((await vtxos(alice)).find((v) => v.id === fresh)!.expiry_height, "a round output expires after the scheduled height").to.be.greaterThan(height);
  });
});
