import { expect } from "chai";
import { ArkServerNotFoundError, type ArkServerRejectedError } from "@tender/ark-grpc";
import { encodeOutPoint, formatOutPoint, toHex, txidHex, vtxoId, type Vtxo } from "@tender/ark-protocol";
import { randomBytes } from "node:crypto";
import type { RoundEvent } from "@tender/ark-protocol/server";
import { testFeeSchedule } from "../../src/ark-server/server-config.js";
import { RoundFixture } from "./round-fixture.js";
import { delegatedOutcome, harkSwap, prepareDelegated, refreshOutputs, type KitOutput } from "./round-kit.js";
import { rejection } from "./fixture.js";
import { pubkeyPolicy, type WalletKit } from "./wallet-kit.js";

describe("ark server: delegated round participations", function () {
  this.timeout(60_000);
  let f: RoundFixture;
  afterEach(() => f.close());

  /** Runs one triggered round and waits for its end event. */
  async function runRound(): Promise<RoundEvent> {
    const before = (await f.port().lastRoundEvent())?.roundSeq ?? 0n;
    const rec = f.recorder();
    f.ark.server.triggerRound();
    const end = await rec.until((e) => (e.kind === "finished" || e.kind === "failed") && e.roundSeq > before);
    await rec.stop();
    return end;
  }

  async function swapDelegated(kit: WalletKit, hash: Uint8Array, inputs: Vtxo[], outputs: KitOutput[]): Promise<Vtxo[]> {
    const port = f.port();
    const status = await port.roundParticipationStatus(hash);
    if (status.status === "pending") throw new Error("still pending");
    const issued = delegatedOutcome(status.roundFundingTx, status.outputVtxos, outputs, hash);
    return (await harkSwap(port, kit, f.info, { fundingTx: issued.fundingTx, vtxos: issued.vtxos, unlockHash: hash, inputs })).vtxos;
  }

  it("joins a round with two interactive clients: PENDING, then ISSUED with a mailbox notice, then RELEASED after the forfeits", async () => {
    f = await RoundFixture.start();
    const a = await f.walletWith(30_000n);
    const b = await f.walletWith(40_000n);
    const d = await f.walletWith(25_000n, 20_000n);
    const outputs: KitOutput[] = [
      { amount: 15_000n, policy: pubkeyPolicy(d.kit.key().pk) },
      { amount: 30_000n, policy: pubkeyPolicy(d.kit.key().pk) },
    ];
    const port = f.port();
    const hash = await port.submitRoundParticipation(prepareDelegated(d.kit, d.vtxos, outputs, { mailbox: d.kit.mailbox }));
    const pending = await port.roundParticipationStatus(hash);
    expect(pending).to.deep.equal({ status: "pending", inputVtxoIds: d.vtxos.map((v) => vtxoId(v)) });

    const pa = f.participant(a.kit, a.vtxos);
    const pb = f.participant(b.kit, b.vtxos);
    f.ark.server.triggerRound();
    const [da, db] = await Promise.all([pa.complete(), pb.complete()]);
    // one tree: 2 interactive leaves + 2 delegated leaves without cosign keys
    const leaves = da.outcome.tree.spec.leaves;
    expect(leaves).to.have.length(4);
    expect(leaves.filter((l) => l.cosignPubkey === null).map((l) => l.amount)).to.deep.equal([15_000n, 30_000n]);
    expect(txidHex(db.outcome.fundingTx)).to.equal(txidHex(da.outcome.fundingTx));

    const issued = await port.roundParticipationStatus(hash);
    expect(issued.status).to.equal("issued");
    const page = await port.readMailbox({ mailboxId: d.kit.mailbox.pk, authorization: d.kit.authorization(), checkpoint: 0n });
    expect(page.messages.map((m) => m.kind === "round-participation-completed" && toHex(m.unlockHash))).to.deep.equal([toHex(hash)]);

    const vtxos = await swapDelegated(d.kit, hash, d.vtxos, outputs);
    expect(vtxos.map((v) => v.amount)).to.deep.equal([15_000n, 30_000n]);
    expect(vtxos[0]!.expiryHeight).to.equal(f.node.tipHeight() + f.info.vtxoLifetime);
    const released = await port.roundParticipationStatus(hash);
    expect(released.status).to.equal("released");
    expect(released.status !== "pending" && released.unlockPreimage).to.be.instanceOf(Uint8Array);
  });

  it("a scheduled participation sits out rounds until the tip reaches its height", async () => {
    f = await RoundFixture.start();
    const d = await f.walletWith(30_000n);
    const outputs = refreshOutputs(d.kit, d.vtxos);
    const height = f.node.tipHeight() + 2;
    const hash = await f.port().submitRoundParticipation(prepareDelegated(d.kit, d.vtxos, outputs, { scheduledHeight: height }));
    expect((await runRound()).kind).to.equal("failed");
    f.node.mine(1);
    expect((await runRound()).kind).to.equal("failed");
    expect((await f.port().roundParticipationStatus(hash)).status).to.equal("pending");
    f.node.mine(1);
    expect((await runRound()).kind).to.equal("finished");
    expect((await swapDelegated(d.kit, hash, d.vtxos, outputs))[0]!.amount).to.equal(30_000n);
  });

  it("is dropped when its input is spent by arkoor before the round: status NOT_FOUND", async () => {
    f = await RoundFixture.start();
    const d = await f.walletWith(30_000n);
    const hash = await f.port().submitRoundParticipation(prepareDelegated(d.kit, d.vtxos, refreshOutputs(d.kit, d.vtxos)));
    await d.kit.send(d.vtxos, 30_000n, d.kit.key().pk);
    expect((await runRound()).kind).to.equal("failed");
    const err = await rejection(f.port().roundParticipationStatus(hash));
    expect(err).to.be.instanceOf(ArkServerNotFoundError);
    expect((err as ArkServerNotFoundError).serverMessage).to.equal("not found: round participation not found");
  });

  it("a newer participation on the same input replaces the pending one", async () => {
    f = await RoundFixture.start();
    const d = await f.walletWith(30_000n);
    const port = f.port();
    const old = await port.submitRoundParticipation(prepareDelegated(d.kit, d.vtxos, refreshOutputs(d.kit, d.vtxos)));
    const outputs = refreshOutputs(d.kit, d.vtxos);
    const fresh = await port.submitRoundParticipation(prepareDelegated(d.kit, d.vtxos, outputs));
    expect(await rejection(port.roundParticipationStatus(old))).to.be.instanceOf(ArkServerNotFoundError);
    expect((await port.roundParticipationStatus(fresh)).status).to.equal("pending");
    expect((await runRound()).kind).to.equal("finished");
    expect((await swapDelegated(d.kit, fresh, d.vtxos, outputs))[0]!.amount).to.equal(30_000n);
  });

  it("refuses bad attestations, inputs expiring before the scheduled height, unpaid fees, unknown and unusable inputs", async () => {
    f = await RoundFixture.start({ overrides: { fees: { ...testFeeSchedule(), refresh: { baseFeeSat: 200n, ppmExpiryTable: [] } } } });
    const d = await f.walletWith(30_000n, 20_000n);
    const other = f.wallet();
    const port = f.port();
    const reason = async (p: Promise<unknown>) => ((await rejection(p)) as ArkServerRejectedError).serverMessage;
    const outputs = refreshOutputs(d.kit, [d.vtxos[0]!], 200n);
    const forged = prepareDelegated(d.kit, [d.vtxos[0]!], outputs);
    const wrongKey = prepareDelegated(other, [], outputs);
    expect(wrongKey.inputs).to.have.length(0);
    expect(await reason(port.submitRoundParticipation({ ...forged, inputs: [{ ...forged.inputs[0]!, attestation: new Uint8Array(64).fill(3) }] }))).to.equal(`bad user input: attestation for vtxo ${fmt(d.vtxos[0]!)} failed`);
    // an attestation over other outputs does not verify either
    const other2 = prepareDelegated(d.kit, [d.vtxos[0]!], refreshOutputs(d.kit, [d.vtxos[0]!], 200n));
    expect(await reason(port.submitRoundParticipation({ ...forged, inputs: other2.inputs }))).to.equal(`bad user input: attestation for vtxo ${fmt(d.vtxos[0]!)} failed`);
    const unknownId = encodeOutPoint({ txid: new Uint8Array(randomBytes(32)), vout: 0 });
    const unknown = await rejection(port.submitRoundParticipation({ ...forged, inputs: [{ vtxoId: unknownId, attestation: forged.inputs[0]!.attestation }] }));
    expect(unknown).to.be.instanceOf(ArkServerNotFoundError);
    expect((unknown as ArkServerNotFoundError).serverMessage).to.equal("not found: vtxo does not exist");
    const late = prepareDelegated(d.kit, [d.vtxos[0]!], outputs, { scheduledHeight: d.vtxos[0]!.expiryHeight });
    expect(await reason(port.submitRoundParticipation(late))).to.equal(
      `bad user input: input vtxo ${fmt(d.vtxos[0]!)} expires at height ${d.vtxos[0]!.expiryHeight}, before the scheduled refresh height ${d.vtxos[0]!.expiryHeight}`,
    );
    const cheap = prepareDelegated(d.kit, [d.vtxos[0]!], refreshOutputs(d.kit, [d.vtxos[0]!], 199n));
    expect(await reason(port.submitRoundParticipation(cheap))).to.equal("refresh fee check failed: bad user input: insufficient refresh fee: expected at least 200, got 199");
    await d.kit.send([d.vtxos[1]!], 20_000n, d.kit.key().pk);
    const spent = prepareDelegated(d.kit, [d.vtxos[1]!], refreshOutputs(d.kit, [d.vtxos[1]!], 200n));
    const unusable = (await rejection(port.submitRoundParticipation(spent))) as ArkServerRejectedError;
    expect(unusable.serverMessage).to.equal(`unusable inputs: [${fmt(d.vtxos[1]!)}]: bad user input: input vtxo(s) unusable`);
    expect(unusable.identifiers).to.deep.equal([fmt(d.vtxos[1]!)]);
    expect(await port.submitRoundParticipation(prepareDelegated(d.kit, [d.vtxos[0]!], outputs))).to.have.length(32);
  });
});

const fmt = (v: Vtxo): string => formatOutPoint(v.point);
