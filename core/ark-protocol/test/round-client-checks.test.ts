/**
 * What the wallet refuses in a round: bad preparation input, a proposal it must not sign, a
 * finished round or delegated result it must not accept, and swap answers that do not unlock.
 */
import { expect } from "chai";
import fc from "fast-check";
import { randomBytes } from "@noble/hashes/utils.js";
import { bytesEqual } from "../src/encoding.js";
import { sha256 } from "../src/hashes.js";
import { pubkeyFromSecret } from "../src/keys.js";
import { decodeTx, encodeTx } from "../src/tx.js";
import { decodeVtxoTreeSpec, encodeVtxoTreeSpec, type VtxoTreeSpec } from "../src/tree.js";
import { decodeVtxo, encodeVtxo, vtxoId, type Vtxo } from "../src/vtxo.js";
import { validateVtxo } from "../src/vtxo-validate.js";
import { VtxoValidationError } from "../src/errors.js";
import { captaindDefaultFeeSchedule } from "../src/fees.js";
import { RoundFinishedError, RoundParticipationError, RoundProposalError, RoundSwapError, refreshOutputAmount } from "../src/round-client.js";
import { prepareRoundSubmission, roundOutputVtxos, signVtxoProposal } from "../src/round-interactive.js";
import { checkDelegatedOutputs, prepareDelegatedParticipation } from "../src/round-delegated.js";
import { completeLeafSignature, finalizeRoundVtxo, forfeitBundles, leafCosignNonce } from "../src/round-swap.js";
import type { VtxoProposalEvent } from "../src/server/round-messages.js";
import { freshKey, TestRoundServer } from "./round-test-server.js";
import { participant, runRound, swap } from "./round-test-flow.js";

/** A server with one submitted participant and the attempt's proposal. */
function proposed() {
  const server = new TestRoundServer(10_000, { nbRoundNonces: 2 });
  const p = participant(server, [40_000n, 25_000n], 2);
  const { request, secrets } = prepareRoundSubmission({ challenge: server.challenge, inputs: p.inputs, outputs: p.outputs, nbRoundNonces: 2 });
  const unlockHash = server.submitPayment(request);
  const proposal = server.proposal();
  const args = { proposal, server: server.params, tipHeight: server.tipHeight, outputs: p.outputs, unlockHash, secrets };
  return { server, p, unlockHash, proposal, secrets, args };
}

function withSpec(proposal: VtxoProposalEvent, f: (s: VtxoTreeSpec) => VtxoTreeSpec): VtxoProposalEvent {
  return { ...proposal, vtxosSpec: encodeVtxoTreeSpec(f(decodeVtxoTreeSpec(proposal.vtxosSpec))) };
}

describe("round client refusals", function () {
  this.timeout(60_000);

  describe("preparation", () => {
    const fees = captaindDefaultFeeSchedule().refresh;
    const server = new TestRoundServer(500);

    it("refuses a refresh of less than 330 sat in total (bark's text)", () => {
      const inputs = [server.board(200n).vtxo, server.board(129n).vtxo];
      expect(() => refreshOutputAmount(inputs, fees, 500)).to.throw(RoundParticipationError, "vtxo amount must be at least 0.00000330 BTC to participate in a round");
      expect(() => refreshOutputAmount([], fees, 500)).to.throw(RoundParticipationError, "vtxo amount must be at least");
    });

    it("refuses a refresh whose output after the fee is below dust (bark's text)", () => {
      const input = server.board(400n).vtxo; // 3000 blocks to expiry: 150 + ⌈400 × 8000 / 10⁶⌉ = 154
      expect(() => refreshOutputAmount([input], fees, 500)).to.throw(
        RoundParticipationError,
        "Amount after fee (0.00000246 BTC) is below dust limit (0.00000330 BTC). Amount: 0.00000400 BTC, Fee: 0.00000154 BTC",
      );
      expect(() => refreshOutputAmount([input], { baseFeeSat: 1_000n, ppmExpiryTable: [] }, 500)).to.throw(RoundParticipationError, "Fee (0.00001000 BTC) exceeds amount (0.00000400 BTC)");
      expect(refreshOutputAmount([server.board(484n).vtxo], fees, 500)).to.deep.equal({ fee: 154n, amount: 330n });
    });

    it("refuses duplicate inputs, a key that does not own its input, and sub-dust outputs", () => {
      const a = server.board(10_000n);
      const b = server.board(10_000n);
      const outputs = [{ amount: 9_000n, policy: { type: "pubkey" as const, userPubkey: pubkeyFromSecret(freshKey()) } }];
      const prepare = (inputs: typeof a[], outs = outputs) => prepareRoundSubmission({ challenge: server.challenge, inputs, outputs: outs, nbRoundNonces: 2 });
      expect(() => refreshOutputAmount([a.vtxo, a.vtxo], fees, 500)).to.throw(RoundParticipationError, "duplicate VTXO id");
      expect(() => prepare([a, a])).to.throw(RoundParticipationError, "duplicate VTXO id");
      expect(() => prepare([{ vtxo: a.vtxo, secretKey: b.secretKey }])).to.throw(RoundParticipationError, "does not match the user key");
      expect(() => prepare([a], [{ ...outputs[0]!, amount: 329n }])).to.throw(RoundParticipationError, "vtxo amount must be at least 0.00000330 BTC");
      expect(() => prepare([a], [])).to.throw(RoundParticipationError, "at least one output");
      expect(() => prepareDelegatedParticipation({ inputs: [a], outputs, scheduledHeight: a.vtxo.expiryHeight })).to.throw(
        RoundParticipationError,
        `expires at height ${a.vtxo.expiryHeight}, before the scheduled refresh height ${a.vtxo.expiryHeight}`,
      );
    });
  });

  describe("vtxo_proposal", () => {
    it("refuses a tree with another server pubkey", () => {
      const { proposal, args } = proposed();
      const other = pubkeyFromSecret(freshKey());
      expect(() => signVtxoProposal({ ...args, proposal: withSpec(proposal, (s) => ({ ...s, serverPubkey: other })) })).to.throw(RoundProposalError, "round VTXO tree uses an unexpected server pubkey");
    });

    it("refuses a tree with another exit delta", () => {
      const { proposal, args } = proposed();
      expect(() => signVtxoProposal({ ...args, proposal: withSpec(proposal, (s) => ({ ...s, exitDelta: 145 })) })).to.throw(RoundProposalError, "unexpected exit delta: got 145, expected 144");
    });

    it("refuses an expiry below tip + lifetime − 6, accepts it at the bound", () => {
      const { server, args } = proposed();
      const expiry = server.tipHeight + server.params.vtxoLifetime;
      expect(() => signVtxoProposal({ ...args, tipHeight: server.tipHeight + 7 })).to.throw(
        RoundProposalError,
        `round VTXO tree expiry height ${expiry} is below the required minimum ${expiry + 1}; server may be trying to sweep before we can exit`,
      );
      expect(signVtxoProposal({ ...args, tipHeight: server.tipHeight + 6 })).to.have.length(2);
    });

    it("refuses a tree missing an output, with a wrong amount, without our cosign key or unlock hash", () => {
      const { proposal, args, p } = proposed();
      const mine = (s: VtxoTreeSpec) => s.leaves.findIndex((l) => l.amount === p.outputs[1]!.amount && bytesEqual(l.policy.userPubkey, p.outputs[1]!.policy.userPubkey));
      const edit = (f: (s: VtxoTreeSpec, i: number) => void) =>
        withSpec(proposal, (s) => {
          const copy = { ...s, leaves: s.leaves.map((l) => ({ ...l })) };
          f(copy, mine(s));
          return copy;
        });
      const cases = [
        edit((s, i) => s.leaves.splice(i, 1)),
        edit((s, i) => (s.leaves[i]!.amount += 1n)),
        edit((s, i) => (s.leaves[i]!.policy = { type: "pubkey", userPubkey: pubkeyFromSecret(freshKey()) })),
        edit((s, i) => (s.leaves[i]!.cosignPubkey = null)),
        edit((s, i) => (s.leaves[i]!.unlockHash = sha256(randomBytes(32)))),
      ];
      for (const bad of cases) expect(() => signVtxoProposal({ ...args, proposal: bad })).to.throw(RoundProposalError, "server didn't include all of our vtxos, missing: [{amount: ");
      expect(() => signVtxoProposal({ ...args, unlockHash: sha256(randomBytes(32)) })).to.throw(RoundProposalError, "server didn't include all of our vtxos");
    });

    it("refuses a funding tx that does not pay the tree at vout 0, and a wrong number of aggregated nonces", () => {
      const { proposal, args } = proposed();
      const tx = decodeTx(proposal.unsignedRoundTx);
      const lessValue = { ...tx, outputs: [{ ...tx.outputs[0]!, value: tx.outputs[0]!.value - 1n }, ...tx.outputs.slice(1)] };
      expect(() => signVtxoProposal({ ...args, proposal: { ...proposal, unsignedRoundTx: encodeTx(lessValue) } })).to.throw(RoundProposalError, "does not pay the VTXO tree");
      const swapped = { ...tx, outputs: [...tx.outputs].reverse() };
      expect(() => signVtxoProposal({ ...args, proposal: { ...proposal, unsignedRoundTx: encodeTx(swapped) } })).to.throw(RoundProposalError, "does not pay the VTXO tree");
      expect(() => signVtxoProposal({ ...args, proposal: { ...proposal, aggNonces: proposal.aggNonces.slice(1) } })).to.throw(RoundProposalError, "aggregated nonces");
      expect(() => signVtxoProposal({ ...args, proposal: { ...proposal, vtxosSpec: proposal.vtxosSpec.slice(1) } })).to.throw(RoundProposalError, "invalid round proposal");
    });

    it("a refused proposal leaves the nonces unused: the genuine one still signs and the round completes", () => {
      const { server, proposal, args, p, unlockHash } = proposed();
      expect(() => signVtxoProposal({ ...args, proposal: withSpec(proposal, (s) => ({ ...s, exitDelta: 12 })) })).to.throw(RoundProposalError);
      expect(args.secrets.used).to.equal(false);
      signVtxoProposal(args).forEach((r) => server.provideVtxoSignatures(r));
      const { vtxos, fundingTx } = roundOutputVtxos({ proposal, finished: server.finish(), outputs: p.outputs, unlockHash });
      expect(swap(server, p, vtxos, unlockHash, fundingTx)).to.have.length(2);
    });
  });

  describe("finished", () => {
    function signedRound() {
      const s = proposed();
      signVtxoProposal(s.args).forEach((r) => s.server.provideVtxoSignatures(r));
      return { ...s, finished: s.server.finish() };
    }

    it("refuses a signed funding tx with another txid", () => {
      const { proposal, finished, p, unlockHash } = signedRound();
      const tx = decodeTx(finished.signedRoundTx);
      const other = encodeTx({ ...tx, locktime: tx.locktime + 1 });
      expect(() => roundOutputVtxos({ proposal, finished: { ...finished, signedRoundTx: other }, outputs: p.outputs, unlockHash })).to.throw(RoundFinishedError, "doesn't match tx received before");
    });

    it("refuses a bad, missing or extra node signature", () => {
      const { proposal, finished, p, unlockHash } = signedRound();
      const flipped = finished.cosignSignatures.map((s) => Uint8Array.from(s));
      flipped[0]![10]! ^= 1;
      const run = (cosignSignatures: Uint8Array[]) => () => roundOutputVtxos({ proposal, finished: { ...finished, cosignSignatures }, outputs: p.outputs, unlockHash });
      expect(run(flipped)).to.throw(RoundFinishedError, "Received incorrect vtxo cosign signatures from server");
      expect(run(finished.cosignSignatures.slice(1))).to.throw(RoundFinishedError, "Received incorrect vtxo cosign signatures");
      expect(run([...finished.cosignSignatures, finished.cosignSignatures[0]!])).to.throw(RoundFinishedError, "Received incorrect vtxo cosign signatures");
    });

    it("refuses a round without our outputs", () => {
      const { proposal, finished, p, unlockHash } = signedRound();
      const stranger = [{ amount: p.outputs[0]!.amount, policy: { type: "pubkey" as const, userPubkey: pubkeyFromSecret(freshKey()) } }];
      expect(() => roundOutputVtxos({ proposal, finished, outputs: stranger, unlockHash })).to.throw(RoundFinishedError, "None of our VTXOs were present in round!");
      expect(() => roundOutputVtxos({ proposal, finished, outputs: [p.outputs[0]!, stranger[0]!], unlockHash })).to.throw(RoundFinishedError, "Server included some of our VTXOs but not all: 1 missing");
    });
  });

  describe("hArk swap", () => {
    let ctx: ReturnType<typeof setup>;
    function setup() {
      const server = new TestRoundServer(20_000, { nbRoundNonces: 2 });
      const p = participant(server, [30_000n, 20_000n]);
      const { joined, interactiveVtxos, finished, proposal } = runRound(server, [p]);
      const { vtxos, fundingTx } = roundOutputVtxos({ proposal, finished, outputs: p.outputs, unlockHash: joined[0]!.unlockHash });
      return { server, p, unlockHash: joined[0]!.unlockHash, vtxos, fundingTx, final: interactiveVtxos[0]![0]! };
    }
    before(() => {
      ctx = setup();
    });

    it("refuses a preimage that does not hash to the unlock hash", () => {
      const { vtxos, unlockHash, fundingTx, final } = ctx;
      const sig = final.genesis.at(-1)!.transition.signature!;
      expect(() => finalizeRoundVtxo({ vtxo: vtxos[0]!, leafSignature: sig, preimage: randomBytes(32), unlockHash, fundingTx })).to.throw(RoundSwapError, "invalid preimage for vtxo");
      const other = randomBytes(32);
      expect(() => finalizeRoundVtxo({ vtxo: vtxos[0]!, leafSignature: sig, preimage: other, unlockHash: sha256(other), fundingTx })).to.throw(RoundSwapError, "locked by another unlock hash");
    });

    it("refuses a leaf signature that does not verify, a bad server partial, and a wrong forfeit nonce count", () => {
      const { server, p, vtxos, unlockHash, fundingTx, final } = ctx;
      const last = final.genesis.at(-1)!.transition;
      const preimage = last.kind === "hash-locked-cosigned-v1" && last.unlock.type === "preimage" ? last.unlock.preimage : new Uint8Array(32);
      const badSig = Uint8Array.from(last.signature!);
      badSig[63]! ^= 0x80;
      expect(() => finalizeRoundVtxo({ vtxo: vtxos[0]!, leafSignature: badSig, preimage, unlockHash, fundingTx })).to.throw(RoundSwapError, "does not pass validation after hArk forfeit protocol");
      const { request, secNonce } = leafCosignNonce({ vtxo: vtxos[0]!, secretKey: p.outputKeys[0]! });
      const response = server.leafCosign(request);
      const tampered = { ...response, partialSig: Uint8Array.from(response.partialSig) };
      tampered.partialSig[5]! ^= 1;
      expect(() => completeLeafSignature({ vtxo: vtxos[0]!, secretKey: p.outputKeys[0]!, secNonce, response: tampered, serverPubkey: server.serverPubkey })).to.throw(RoundSwapError, "failed to finalize VTXO leaf signature");
      expect(() => leafCosignNonce({ vtxo: vtxos[0]!, secretKey: freshKey() })).to.throw(RoundSwapError, "not found for VTXO");
      const nonces = server.forfeitNonces(unlockHash, p.inputs.map((i) => vtxoId(i.vtxo)));
      expect(() => forfeitBundles({ inputs: p.inputs, unlockHash, serverNonces: nonces.slice(1) })).to.throw(RoundSwapError, "server sent 1 nonce pairs, expected 2");
    });

    it("property: flipping any bit of any signature in a final VTXO makes full validation fail", () => {
      const { final, fundingTx } = ctx;
      const tx = decodeTx(fundingTx);
      expect(() => validateVtxo(final, tx)).to.not.throw();
      fc.assert(
        fc.property(fc.nat(final.genesis.length - 1), fc.nat(63), fc.integer({ min: 0, max: 7 }), (item, byte, bit) => {
          const genesis = final.genesis.map((g, i) => {
            if (i !== item) return g;
            const signature = Uint8Array.from(g.transition.signature!);
            signature[byte]! ^= 1 << bit;
            return { ...g, transition: { ...g.transition, signature } };
          });
          expect(() => validateVtxo({ ...final, genesis } as Vtxo, tx)).to.throw(VtxoValidationError);
        }),
        { numRuns: 300 },
      );
    });
  });

  describe("delegated outputs", () => {
    let ctx: ReturnType<typeof setup>;
    function setup() {
      const server = new TestRoundServer(30_000, { nbRoundNonces: 2 });
      const d = participant(server, [50_000n, 30_000n], 2);
      const out = d.outputs;
      // distinct amounts so a reordering is visible
      d.outputs = [{ ...out[0]!, amount: out[0]!.amount - 1_000n }, { ...out[1]!, amount: out[1]!.amount + 1_000n }];
      const unlockHash = server.submitRoundParticipation(prepareDelegatedParticipation({ inputs: d.inputs, outputs: d.outputs }));
      server.proposal();
      server.finish();
      const status = server.participationStatus(unlockHash);
      if (status.status === "pending") throw new Error("pending");
      const args = { status, outputs: d.outputs, server: server.params, inputs: d.inputs.map((i) => i.vtxo), unlockHash };
      return { server, d, unlockHash, status, args };
    }
    before(() => {
      ctx = setup();
    });

    it("accepts the outputs as issued", () => {
      expect(checkDelegatedOutputs(ctx.args).vtxos.map((v) => v.amount)).to.deep.equal(ctx.d.outputs.map((o) => o.amount));
    });

    it("refuses outputs in another order, another count, or another amount or policy", () => {
      const { args, status } = ctx;
      const reversed = { ...status, outputVtxos: [...status.outputVtxos].reverse() };
      expect(() => checkDelegatedOutputs({ ...args, status: reversed })).to.throw(RoundFinishedError, "unexpected VTXO amount: got ");
      expect(() => checkDelegatedOutputs({ ...args, status: { ...status, outputVtxos: status.outputVtxos.slice(1) } })).to.throw(RoundFinishedError, "unexpected number of VTXOs: got 1, expected 2");
      const otherPolicy = [{ ...args.outputs[0]!, policy: { type: "pubkey" as const, userPubkey: pubkeyFromSecret(freshKey()) } }, args.outputs[1]!];
      expect(() => checkDelegatedOutputs({ ...args, outputs: otherPolicy })).to.throw(RoundFinishedError, "unexpected VTXO policy");
    });

    it("refuses an expiry not after the scheduled height or the latest input expiry", () => {
      const { args, server } = ctx;
      const expiry = server.tipHeight + server.params.vtxoLifetime;
      expect(() => checkDelegatedOutputs({ ...args, scheduledHeight: expiry })).to.throw(RoundFinishedError, `round VTXO tree expiry height ${expiry} is below the required minimum ${expiry + 1}`);
      expect(checkDelegatedOutputs({ ...args, scheduledHeight: expiry - 1 }).vtxos).to.have.length(2);
      const lateInput = { ...args.inputs[0]!, expiryHeight: expiry };
      expect(() => checkDelegatedOutputs({ ...args, inputs: [lateInput] })).to.throw(RoundFinishedError, "is below the required minimum");
    });

    it("refuses another server key or exit delta, a bad node signature, another unlock hash, an already unlocked leaf", () => {
      const { args, status, server } = ctx;
      expect(() => checkDelegatedOutputs({ ...args, server: { ...server.params, vtxoExitDelta: 12 } })).to.throw(RoundFinishedError, "unexpected exit delta: got 144, expected 12");
      expect(() => checkDelegatedOutputs({ ...args, server: { ...server.params, serverPubkey: pubkeyFromSecret(freshKey()) } })).to.throw(RoundFinishedError, "unexpected server pubkey");
      const v = decodeVtxo(status.outputVtxos[0]!);
      const sig = Uint8Array.from(v.genesis[0]!.transition.signature!);
      sig[0]! ^= 1;
      const bad = encodeVtxo({ ...v, genesis: [{ ...v.genesis[0]!, transition: { ...v.genesis[0]!.transition, signature: sig } }, ...v.genesis.slice(1)] });
      expect(() => checkDelegatedOutputs({ ...args, status: { ...status, outputVtxos: [bad, status.outputVtxos[1]!] } })).to.throw(RoundFinishedError, "genesis item 0: invalid cosigned signature");
      expect(() => checkDelegatedOutputs({ ...args, unlockHash: sha256(randomBytes(32)) })).to.throw(RoundFinishedError, "another unlock hash");
      const done = swap(server, ctx.d, checkDelegatedOutputs(args).vtxos, ctx.unlockHash, status.roundFundingTx);
      expect(() => checkDelegatedOutputs({ ...args, status: { ...status, outputVtxos: done.map((x) => encodeVtxo(x)) } })).to.throw(RoundFinishedError, "should fail validation but doesn't");
    });
  });
});
