import { expect } from "chai";
import { cleanup, startDaemon, type Daemon } from "../src/daemon-process.js";
import {
  allVtxos, expectedFee, boardAndRegister, externalAddress, fundedWallet, offboardDaemonConfig, offboardMovements, ok, paidTo, payArk,
  startOffboardDevnet, type Balance, type DevnetWithArk, type FeeEstimate, type Movement,
} from "./offboard-harness.js";

interface WaitResponse { notifications: { type: string; movement: Movement }[]; last_pushed_at: string | null }

describe("offboard and send-onchain over HTTP on the devnet (issue 11)", function () {
  this.timeout(180_000);
  let devnet: DevnetWithArk;
  const daemons: Daemon[] = [];
  const start = async () => {
    const d = await startDaemon({ config: offboardDaemonConfig() });
    daemons.push(d);
    return d;
  };

  before(async () => { devnet = await startOffboardDevnet("offboard-flow"); });
  after(async () => {
    for (const d of daemons) {
      await d.stop();
      cleanup(d.datadir);
    }
    await devnet.stop();
  });

  it("offboards chosen VTXOs, then all of them: each destination gets Σ − fee, the estimates equal the charge, movements and notifications as barkd records them", async () => {
    const alice = await start();
    const bob = await start();
    await fundedWallet(alice, devnet, [400_000n]);
    await fundedWallet(bob, devnet, [300_000n]);
    const boardA = await boardAndRegister(alice, devnet, 150_000);
    const boardB = await boardAndRegister(alice, devnet, 100_000);
    await boardAndRegister(bob, devnet, 200_000);
    const received = await payArk(bob, alice, 60_000);
    expect((await ok<Balance>(alice, "GET", "/api/v1/wallet/balance")).spendable_sat).to.equal(310_000);
    const since = (await ok<WaitResponse>(alice, "GET", "/api/v1/notifications/wait")).last_pushed_at;

    // one chosen VTXO
    const first = externalAddress();
    const estimate = await ok<FeeEstimate>(alice, "POST", "/api/v1/fees/offboard", { address: first, vtxos: [boardA] });
    const fee = await expectedFee(devnet, 150_000n, [150_000n]);
    expect(estimate).to.deep.equal({ gross_amount_sat: 150_000, fee_sat: fee, net_amount_sat: 150_000 - fee, vtxos_spent: [boardA] });
    const { offboard_txid: txid } = await ok<{ offboard_txid: string }>(alice, "POST", "/api/v1/wallet/offboard/vtxos", { vtxos: [boardA], address: first });
    expect(paidTo(devnet, txid, first)).to.equal(BigInt(estimate.net_amount_sat));
    const [m1] = await offboardMovements(alice);
    expect(m1).to.deep.include({
      status: "successful", subsystem: { name: "bark.offboard", kind: "offboard" }, intended_balance_sat: -150_000, effective_balance_sat: -150_000,
      offchain_fee_sat: fee, input_vtxos: [boardA], output_vtxos: [], received_on: [],
      sent_to: [{ destination: { type: "bitcoin", value: first }, amount_sat: 150_000 - fee }],
    });
    expect(m1!.metadata?.offboard_txid).to.equal(txid);
    expect(Buffer.from(devnet.node.getTransaction(txid)!.raw).toString("hex")).to.equal(m1!.metadata?.offboard_tx);
    expect(m1!.time.completed_at, "0 confirmations required on regtest: done at once").to.be.a("string");
    const notes = (await ok<WaitResponse>(alice, "GET", `/api/v1/notifications/wait${since ? `?since=${encodeURIComponent(since)}` : ""}`)).notifications
      .filter((n) => n.movement.id === m1!.id);
    expect(notes.map((n) => n.type)[0]).to.equal("movement-created");
    expect(notes.at(-1)).to.deep.include({ type: "movement-updated" });
    expect(notes.at(-1)!.movement.status).to.equal("successful");
    expect((await ok<Balance>(alice, "GET", "/api/v1/wallet/balance")).spendable_sat).to.equal(160_000);
    expect((await allVtxos(alice)).find((v) => v.id === boardA)?.state.type).to.equal("spent");

    // all the rest (a block first: the server funds offboards from confirmed coins only)
    devnet.node.mine(1);
    const second = externalAddress();
    const all = await ok<FeeEstimate>(alice, "GET", `/api/v1/fees/offboard-all?address=${second}`);
    const feeAll = await expectedFee(devnet, 160_000n, [100_000n, 60_000n]);
    expect(all.fee_sat).to.equal(feeAll);
    expect([all.gross_amount_sat, all.net_amount_sat, [...all.vtxos_spent].sort()]).to.deep.equal([160_000, 160_000 - feeAll, [boardB, received].sort()]);
    const { offboard_txid: txidAll } = await ok<{ offboard_txid: string }>(alice, "POST", "/api/v1/wallet/offboard/all", { address: second });
    expect(paidTo(devnet, txidAll, second)).to.equal(BigInt(160_000 - feeAll));
    const m2 = (await offboardMovements(alice))[1]!;
    expect([m2.status, m2.effective_balance_sat, m2.offchain_fee_sat, [...m2.input_vtxos].sort()]).to.deep.equal(["successful", -160_000, feeAll, [boardB, received].sort()]);
    expect((await ok<Balance>(alice, "GET", "/api/v1/wallet/balance")).spendable_sat).to.equal(0);
    expect(await ok<unknown[]>(alice, "GET", "/api/v1/wallet/vtxos")).to.deep.equal([]);

    devnet.node.mine(1);
    for (const t of [txid, txidAll]) expect(devnet.node.getTransaction(t)?.status.confirmed, t).to.equal(true);
    // the server holds the forfeits of every offboarded VTXO
    for (const id of [boardA, boardB, received]) expect((await devnet.ark.server.ctx.store.getVtxo(id))?.state, id).to.not.equal("spendable");
  });

  it("offboards to a fresh address of the wallet's on-chain wallet when none is given", async () => {
    const carol = await start();
    await fundedWallet(carol, devnet, [200_000n]);
    const vtxo = await boardAndRegister(carol, devnet, 100_000);
    const fee = await expectedFee(devnet, 100_000n, [100_000n]);
    await ok(carol, "POST", "/api/v1/wallet/offboard/vtxos", { vtxos: [vtxo] });
    const [m] = await offboardMovements(carol);
    const address = m!.sent_to[0]!.destination.value;
    devnet.node.mine(1);
    await ok(carol, "POST", "/api/v1/onchain/sync");
    const utxos = await ok<{ outpoint: string; amount_sat: number }[]>(carol, "GET", "/api/v1/onchain/utxos");
    expect(utxos.some((u) => u.outpoint.startsWith(String(m!.metadata?.offboard_txid)) && u.amount_sat === 100_000 - fee), address).to.equal(true);
  });

  it("send-onchain pays exactly the amount, the fee on top; the change is split and stays on Ark", async () => {
    const dave = await start();
    await fundedWallet(dave, devnet, [500_000n]);
    const input = await boardAndRegister(dave, devnet, 400_000);
    const to = externalAddress();
    const estimate = await ok<FeeEstimate>(dave, "GET", `/api/v1/fees/send-onchain?amount_sat=100000&address=${to}`);
    const fee = await expectedFee(devnet, 100_000n, [400_000n]);
    expect(estimate).to.deep.equal({ gross_amount_sat: 100_000 + fee, fee_sat: fee, net_amount_sat: 100_000, vtxos_spent: [input] });
    const { offboard_txid: txid } = await ok<{ offboard_txid: string }>(dave, "POST", "/api/v1/wallet/send-onchain", { destination: to, amount_sat: 100_000 });
    expect(paidTo(devnet, txid, to)).to.equal(100_000n);
    const [m] = await offboardMovements(dave);
    expect(m).to.deep.include({
      status: "successful", subsystem: { name: "bark.offboard", kind: "send_onchain" }, intended_balance_sat: -100_000, effective_balance_sat: -(100_000 + fee),
      offchain_fee_sat: fee, input_vtxos: [input], sent_to: [{ destination: { type: "bitcoin", value: to }, amount_sat: 100_000 }],
    });
    expect(m!.metadata?.offboard_txid).to.equal(txid);
    const offboarded = m!.metadata?.offboard_vtxos as string[];
    expect(offboarded).to.have.length(1);
    // change_vtxo_split_factor 2: two change VTXOs worth the rest, spendable
    const vtxos = await ok<{ id: string; amount_sat: number; state: { type: string } }[]>(dave, "GET", "/api/v1/wallet/vtxos");
    expect(vtxos.map((v) => v.id).sort()).to.deep.equal([...m!.output_vtxos].sort());
    expect(vtxos).to.have.length(2);
    expect(vtxos.every((v) => v.state.type === "spendable")).to.equal(true);
    expect(vtxos.reduce((t, v) => t + v.amount_sat, 0)).to.equal(400_000 - 100_000 - fee);
    expect((await ok<Balance>(dave, "GET", "/api/v1/wallet/balance")).spendable_sat).to.equal(300_000 - fee);
    const all = await allVtxos(dave);
    for (const id of [input, ...offboarded]) expect(all.find((v) => v.id === id)?.state.type, id).to.equal("spent");
    // the change is known to the server (registered): it can be spent again
    devnet.node.mine(1);
    const again = await ok<{ offboard_txid: string }>(dave, "POST", "/api/v1/wallet/send-onchain", { destination: to, amount_sat: 50_000 });
    expect(paidTo(devnet, again.offboard_txid, to)).to.equal(50_000n);
  });
});
