/**
 * The wallet side of hArk rounds, end to end against an in-process coordinator built from the
 * tree primitives: submission, branch signatures, finished round, leaf co-signature, forfeits,
 * unlock; every output VTXO fully validates against the round funding tx.
 */
import { expect } from "chai";
import { inspect } from "node:util";
import { type Vtxo } from "../src/vtxo.js";
import { treeNoncesPerLeaf } from "../src/tree-signing.js";
import { refreshOutputAmount, RoundParticipationError } from "../src/round-client.js";
import { prepareRoundSubmission, roundOutputVtxos, signVtxoProposal } from "../src/round-interactive.js";
import { checkDelegatedOutputs, prepareDelegatedParticipation } from "../src/round-delegated.js";
import { leafCosignNonce } from "../src/round-swap.js";
import { TestRoundServer } from "./round-test-server.js";
import { participant, runRound, swap, type TestParticipant } from "./round-test-flow.js";

function expectOutputs(vtxos: Vtxo[], p: TestParticipant, server: TestRoundServer): void {
  expect(vtxos.map((v) => v.amount)).to.deep.equal(p.outputs.map((o) => o.amount));
  vtxos.forEach((v, i) => {
    expect(v.policy).to.deep.equal(p.outputs[i]!.policy);
    expect(v.expiryHeight).to.equal(server.tipHeight + server.params.vtxoLifetime);
    expect(v.genesis.at(-1)!.transition.kind).to.equal("hash-locked-cosigned-v1");
  });
}

describe("hArk round, wallet side (in-process coordinator)", function () {
  this.timeout(60_000);

  it("one participant with one input: padded two-leaf tree, refreshed VTXO validates against the funding tx", () => {
    const server = new TestRoundServer(1_000, { nbRoundNonces: 2 });
    const p = participant(server, [50_000n]);
    const { fee } = refreshOutputAmount(p.inputs.map((i) => i.vtxo), server.params.refreshFees, server.tipHeight);
    expect(fee).to.equal(150n + 400n); // base + 8000 ppm of 50 000 at 3000 blocks to expiry
    const { interactiveVtxos, joined } = runRound(server, [p]);
    expect(server.spec!.leaves.length).to.equal(2);
    expect(server.spec!.leaves[1]!.cosignPubkey).to.equal(null);
    expect(joined[0]!.signatures!.map((s) => s.signatures.length)).to.deep.equal([1]);
    expectOutputs(interactiveVtxos[0]!, p, server);
    expect(interactiveVtxos[0]![0]!.amount).to.equal(50_000n - fee);
    expect(interactiveVtxos[0]![0]!.genesis.length).to.equal(2);
  });

  it("three participants with several inputs each and a delegated participant without cosign key", () => {
    const server = new TestRoundServer(2_000, { nbRoundNonces: 2 });
    const a = participant(server, [20_000n, 30_000n]);
    const b = participant(server, [10_000n, 15_000n, 40_000n], 2);
    const c = participant(server, [5_000n, 7_000n], 1);
    const d = participant(server, [60_000n, 1_000n], 2);
    const { interactiveVtxos, delegatedVtxos, joined } = runRound(server, [a, b, c], [d]);
    expect(server.spec!.leaves.length).to.equal(6);
    expect(server.spec!.leaves.filter((l) => l.cosignPubkey === null).length).to.equal(2);
    expect(joined.map((j) => j.signatures!.length)).to.deep.equal([1, 2, 1]);
    [a, b, c].forEach((p, i) => expectOutputs(interactiveVtxos[i]!, p, server));
    expectOutputs(delegatedVtxos[0]!, d, server);
    const ids = [...interactiveVtxos.flat(), ...delegatedVtxos.flat()].map((v) => v.point.txid.join(","));
    expect(new Set(ids).size).to.equal(6);
  });

  it("a 17-leaf tree has three internal levels; branches that skip a level sign two nodes", () => {
    const server = new TestRoundServer(3_000, { nbRoundNonces: 3 });
    const ps = [participant(server, [90_000n], 5), participant(server, [80_000n, 9_000n], 4), participant(server, [70_000n], 4), participant(server, [60_000n, 5_000n, 4_000n], 4)];
    const { interactiveVtxos, joined } = runRound(server, ps);
    expect(server.spec!.leaves.length).to.equal(17);
    expect(treeNoncesPerLeaf(server.tree!)).to.equal(3);
    const counts = joined.flatMap((j) => j.signatures!.map((s) => s.signatures.length));
    // leaves 0–11: parent → level-2 node → root; 12–15: parent → root (no level-2 node);
    // 16 hangs directly under the level-2 node (no level-1 parent)
    expect(counts).to.deep.equal([...new Array(12).fill(3), ...new Array(4).fill(2), 2]);
    ps.forEach((p, i) => expectOutputs(interactiveVtxos[i]!, p, server));
    expect(interactiveVtxos[3]!.at(-1)!.genesis.length).to.equal(3);
    expect(interactiveVtxos[0]![0]!.genesis.length).to.equal(4);
  });

  it("a scheduled delegated refresh pays the fee at the scheduled height and checks expiry against it", () => {
    const server = new TestRoundServer(4_000, { nbRoundNonces: 2 });
    const scheduledHeight = server.tipHeight + 2_900; // the inputs then expire in 100 blocks: cheaper tier
    const d = participant(server, [100_000n], 1, scheduledHeight);
    const { fee } = refreshOutputAmount(d.inputs.map((i) => i.vtxo), server.params.refreshFees, scheduledHeight);
    expect(fee).to.equal(150n + 100n);
    const unlockHash = server.submitRoundParticipation(prepareDelegatedParticipation({ inputs: d.inputs, outputs: d.outputs, scheduledHeight }));
    expect(server.participationStatus(unlockHash).status).to.equal("pending");
    server.proposal();
    server.finish();
    const status = server.participationStatus(unlockHash);
    if (status.status === "pending") throw new Error("still pending");
    const { vtxos } = checkDelegatedOutputs({ status, outputs: d.outputs, server: server.params, inputs: d.inputs.map((i) => i.vtxo), scheduledHeight, unlockHash });
    const done = swap(server, d, vtxos, unlockHash, status.roundFundingTx);
    expect(server.participationStatus(unlockHash).status).to.equal("released");
    expect(done[0]!.amount).to.equal(100_000n - fee);
  });

  it("round secrets are memory-only: serializing them throws, inspecting shows no secret, a second signing is refused", () => {
    const server = new TestRoundServer(5_000, { nbRoundNonces: 2 });
    const p = participant(server, [50_000n]);
    const { request, secrets } = prepareRoundSubmission({ challenge: server.challenge, inputs: p.inputs, outputs: p.outputs, nbRoundNonces: 2 });
    expect(() => JSON.stringify(secrets)).to.throw(RoundParticipationError, "memory-only");
    expect(() => JSON.stringify({ state: { secrets } })).to.throw(RoundParticipationError);
    expect(inspect(secrets)).to.equal("RoundSubmissionSecrets <memory-only>");
    expect(Object.keys(secrets)).to.deep.equal(["cosignPubkeys"]);
    expect(secrets.cosignPubkeys).to.deep.equal(request.outputs.map((o) => o.cosignPubkey));
    const unlockHash = server.submitPayment(request);
    const proposal = server.proposal();
    const args = { proposal, server: server.params, tipHeight: server.tipHeight, outputs: p.outputs, unlockHash, secrets };
    signVtxoProposal(args).forEach((r) => server.provideVtxoSignatures(r));
    expect(() => signVtxoProposal(args)).to.throw("avoid nonce reuse");
    const finished = server.finish();
    const { vtxos } = roundOutputVtxos({ proposal, finished, outputs: p.outputs, unlockHash });
    const { request: leafRequest, secNonce } = leafCosignNonce({ vtxo: vtxos[0]!, secretKey: p.outputKeys[0]! });
    expect(() => JSON.stringify(secNonce)).to.throw(RoundParticipationError, "memory-only");
    expect(inspect(secNonce)).to.equal("MemoryOnlyNonce <memory-only>");
    expect(Object.keys(secNonce)).to.deep.equal(["pubNonce"]);
    expect(secNonce.pubNonce).to.deep.equal(leafRequest.pubNonce);
  });
});
