import { expect } from "chai";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ArkServerNotFoundError } from "@tender/ark-grpc";
import {
  decodeTx, formatOutPoint, offboardConnectors, policyTaproot, taprootSighash, toHex, txidHex, verifySchnorr, vtxoIdString, type Vtxo,
} from "@tender/ark-protocol";
import { RoundFixture } from "./round-fixture.js";
import { rejection } from "./fixture.js";
import { offboard, p2trDestination, planOffboard, prepareAndSign } from "./offboard-kit.js";

const until = async (cond: () => Promise<boolean> | boolean, ms = 10_000): Promise<void> => {
  const end = Date.now() + ms;
  while (!(await cond())) {
    if (Date.now() > end) throw new Error("timed out");
    await new Promise((r) => setTimeout(r, 50));
  }
};

describe("ark server: offboards (connector swaps)", function () {
  this.timeout(60_000);
  let f: RoundFixture;
  afterEach(() => f?.close());

  const stateOf = async (v: Vtxo) => (await f.ark.server.ctx.store.getVtxo(vtxoIdString(v)))?.state;

  it("offboards a board and an arkoor VTXO whole: destination gets Σ − fee, 660 sat of connectors, inputs spent by the offboard with valid stored forfeits", async () => {
    f = await RoundFixture.start({ seed: "offboard-whole" });
    const { kit, vtxos } = await f.walletWith(50_000n, 40_000n);
    const { sent } = await kit.send([vtxos[1]!], 15_000n, kit.key().pk);
    const inputs = [vtxos[0]!, sent[0]!];
    const script = p2trDestination(1);
    const plan = await planOffboard(f.port(), f.info, f.node, kit, inputs, script);
    const gross = inputs.reduce((s, v) => s + v.amount, 0n);
    expect(plan.request.offboard.netAmountSat).to.equal(gross - plan.feeSat);
    const done = await offboard(f.port(), kit, plan);
    expect(f.node.getTxStatus(done.txid), "offboard tx in the mempool").to.not.equal(undefined);
    expect(done.signed.outputs[0]).to.deep.equal({ value: gross - plan.feeSat, script });
    expect(done.signed.outputs[1]!.value).to.equal(660n);
    for (const v of inputs) expect(await stateOf(v)).to.equal("spent");
    // every forfeit spends its VTXO and its connector, and both signatures verify
    const connectors = offboardConnectors(done.signed, 2);
    for (const [i, v] of plan.vtxos.entries()) {
      const stored = await f.ark.server.offboards.store.forfeitOf(vtxoIdString(v));
      expect(stored?.offboardTxid).to.equal(done.txid);
      const tx = decodeTx(stored!.forfeitTx);
      expect(formatOutPoint(tx.inputs[0]!.prevout)).to.equal(vtxoIdString(v));
      expect(formatOutPoint(tx.inputs[1]!.prevout)).to.equal(formatOutPoint(connectors.points[i]!));
      const prevouts = [{ value: v.amount, script: policyTaproot(v.policy, { serverPubkey: v.serverPubkey, exitDelta: v.exitDelta, expiryHeight: v.expiryHeight }).scriptPubKey }, connectors.txOut];
      expect(verifySchnorr(tx.inputs[0]!.witness[0]!, taprootSighash(tx, 0, prevouts), prevouts[0]!.script.subarray(2))).to.equal(true);
      expect(verifySchnorr(tx.inputs[1]!.witness[0]!, taprootSighash(tx, 1, prevouts), connectors.txOut.script.subarray(2))).to.equal(true);
    }
    f.node.mine(1);
    expect(f.node.getTxStatus(done.txid)?.confirmed).to.equal(true);
  });

  it("send-onchain (fee on top): the destination gets exactly the amount; the server keeps what the input exceeds it by", async () => {
    f = await RoundFixture.start({ seed: "offboard-add" });
    const { kit, vtxos } = await f.walletWith(100_000n);
    const plan = await planOffboard(f.port(), f.info, f.node, kit, vtxos, p2trDestination(2), { sendSat: 30_000n });
    expect(plan.request.offboard.deductFeesFromGrossAmount).to.equal(false);
    const done = await offboard(f.port(), kit, plan);
    expect(done.signed.outputs[0]!.value).to.equal(30_000n);
    expect(done.signed.outputs[1]!.value).to.equal(330n);
    expect(await stateOf(vtxos[0]!)).to.equal("spent");
  });

  it("an identical prepare replays the pending session (same tx, same nonces); a different request for the same inputs is refused as locked", async () => {
    f = await RoundFixture.start({ seed: "offboard-replay" });
    const { kit, vtxos } = await f.walletWith(60_000n);
    const plan = await planOffboard(f.port(), f.info, f.node, kit, vtxos, p2trDestination(3));
    const first = await f.port().prepareOffboard(plan.request);
    const again = await f.port().prepareOffboard(plan.request);
    expect(toHex(again.offboardTx)).to.equal(toHex(first.offboardTx));
    expect(again.forfeitCosignNonces.map(toHex)).to.deep.equal(first.forfeitCosignNonces.map(toHex));
    const other = await planOffboard(f.port(), f.info, f.node, kit, vtxos, p2trDestination(4));
    const locked = await rejection(f.port().prepareOffboard(other.request));
    expect(locked.message).to.contain("some VTXO is already locked by another process");
  });

  it("a finish retried after success returns the same signed tx; after the session expired the txid is unknown", async () => {
    f = await RoundFixture.start({ seed: "offboard-finish-replay", overrides: { offboardSessionTimeoutMs: 1_500, offboardCheckIntervalMs: 100 } });
    const { kit, vtxos } = await f.walletWith(60_000n);
    const p = await prepareAndSign(f.port(), kit, await planOffboard(f.port(), f.info, f.node, kit, vtxos, p2trDestination(5)));
    const first = await f.port().finishOffboard(p.finish);
    const second = await f.port().finishOffboard(p.finish);
    expect(toHex(second)).to.equal(toHex(first));
    await until(() => !f.ark.server.offboards.sessions.get(p.txid));
    const gone = await rejection(f.port().finishOffboard(p.finish));
    expect(gone).to.be.instanceOf(ArkServerNotFoundError);
    expect(gone.message).to.contain("unknown offboard txid");
    expect(f.node.getTxStatus(p.txid)).to.not.equal(undefined);
  });

  it("an abandoned session expires: its inputs can be offboarded again and its wallet coins pay another offboard", async () => {
    // one wallet coin: while the first session holds it, no other offboard can be funded
    f = await RoundFixture.start({ seed: "offboard-expiry", overrides: { offboardSessionTimeoutMs: 2_000, offboardCheckIntervalMs: 100 } });
    const { kit, vtxos } = await f.walletWith(60_000n, 70_000n);
    expect((await f.ark.server.walletStatus()).confirmedUtxos).to.have.length(1);
    const abandoned = await prepareAndSign(f.port(), kit, await planOffboard(f.port(), f.info, f.node, kit, [vtxos[0]!], p2trDestination(6)));
    const starved = await rejection(f.port().prepareOffboard((await planOffboard(f.port(), f.info, f.node, kit, [vtxos[1]!], p2trDestination(7))).request));
    expect(starved.message).to.contain("Insufficient funds");
    expect(await stateOf(vtxos[1]!), "a refused prepare changes nothing").to.equal("spendable");
    await until(() => !f.ark.server.offboards.sessions.get(abandoned.txid));
    expect(f.ark.server.ctx.locks.isLocked(vtxoIdString(vtxos[0]!))).to.equal(false);
    const done = await offboard(f.port(), kit, await planOffboard(f.port(), f.info, f.node, kit, vtxos, p2trDestination(8)));
    expect(done.signed.inputs.map((i) => formatOutPoint(i.prevout))).to.deep.equal(abandoned.tx.inputs.map((i) => formatOutPoint(i.prevout)));
    const late = await rejection(f.port().finishOffboard(abandoned.finish));
    expect(late).to.be.instanceOf(ArkServerNotFoundError);
  });

  it("an offboard stored but not broadcast (node refused, then the server restarted) is broadcast by the background task", async () => {
    const datadir = mkdtempSync(join(tmpdir(), "offboard-retry-"));
    f = await RoundFixture.start({ seed: "offboard-retry", datadir, overrides: { offboardCheckIntervalMs: 100 } });
    const { kit, vtxos } = await f.walletWith(60_000n);
    const chain = f.ark.server.ctx.chain as { submitTransaction: (raw: Uint8Array) => Promise<string> };
    chain.submitTransaction = async () => {
      throw new Error("node unreachable");
    };
    const done = await offboard(f.port(), kit, await planOffboard(f.port(), f.info, f.node, kit, vtxos, p2trDestination(9)));
    expect(f.node.getTxStatus(done.txid), "not broadcast yet").to.equal(undefined);
    expect((await f.ark.server.offboards.store.get(done.txid))?.committed).to.equal(false);
    expect(await stateOf(vtxos[0]!)).to.equal("spent");
    await f.restart(); // the new run reads the chain through a fresh chain object, which broadcasts
    expect(f.ark.server.ctx.chain).to.not.equal(chain);
    await until(async () => (await f.ark.server.offboards.store.get(done.txid))?.committed === true);
    expect(txidHex(decodeTx((await f.ark.server.offboards.store.get(done.txid))!.signedTx))).to.equal(done.txid);
    expect(f.node.getTxStatus(done.txid)).to.not.equal(undefined);
  });
});
