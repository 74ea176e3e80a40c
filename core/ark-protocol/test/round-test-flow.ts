/**
 * The wallet side of a round driven against {@link TestRoundServer} (test helper): participants
 * refreshing board VTXOs, an interactive round with optional delegated participants, the hArk
 * swap of each participation with full validation of every output.
 */
import { expect } from "chai";
import { displayHex } from "../src/encoding.js";
import { pubkeyFromSecret } from "../src/keys.js";
import { decodeTx } from "../src/tx.js";
import { vtxoId, type Vtxo } from "../src/vtxo.js";
import { validateVtxo } from "../src/vtxo-validate.js";
import { refreshOutputAmount, type OwnedRoundInput, type RoundOutput } from "../src/round-client.js";
import { prepareRoundSubmission, roundOutputVtxos, signVtxoProposal, type RoundSubmissionSecrets } from "../src/round-interactive.js";
import { checkDelegatedOutputs, prepareDelegatedParticipation } from "../src/round-delegated.js";
import { completeLeafSignature, finalizeRoundVtxo, forfeitBundles, leafCosignNonce } from "../src/round-swap.js";
import type { VtxoSignaturesRequest } from "../src/server/round-messages.js";
import { freshKey, type TestRoundServer } from "./round-test-server.js";

/** A wallet refreshing some board VTXOs into `nbOutputs` fresh pubkey outputs. */
export interface TestParticipant {
  inputs: OwnedRoundInput[];
  outputs: RoundOutput[];
  /** Secret keys of the output policies, in output order. */
  outputKeys: Uint8Array[];
}

export function participant(server: TestRoundServer, inputAmounts: readonly bigint[], nbOutputs = 1, height = server.tipHeight): TestParticipant {
  const inputs = inputAmounts.map((a) => server.board(a));
  const { amount } = refreshOutputAmount(inputs.map((i) => i.vtxo), server.params.refreshFees, height);
  const outputKeys = Array.from({ length: nbOutputs }, freshKey);
  const share = amount / BigInt(nbOutputs);
  const outputs = outputKeys.map((k, i) => ({
    amount: i === nbOutputs - 1 ? amount - share * BigInt(nbOutputs - 1) : share,
    policy: { type: "pubkey" as const, userPubkey: pubkeyFromSecret(k) },
  }));
  return { inputs, outputs, outputKeys };
}

/** The hArk swap of one participation: leaf co-signatures, forfeits, unlock, full validation. */
export function swap(server: TestRoundServer, p: TestParticipant, vtxos: Vtxo[], unlockHash: Uint8Array, fundingTx: Uint8Array): Vtxo[] {
  const leafSigs = vtxos.map((vtxo, i) => {
    const secretKey = p.outputKeys[i]!;
    const { request, secNonce } = leafCosignNonce({ vtxo, secretKey });
    return completeLeafSignature({ vtxo, secretKey, secNonce, response: server.leafCosign(request), serverPubkey: server.serverPubkey });
  });
  const serverNonces = server.forfeitNonces(unlockHash, p.inputs.map((i) => vtxoId(i.vtxo)));
  const preimage = server.forfeitVtxos(forfeitBundles({ inputs: p.inputs, unlockHash, serverNonces }));
  const tx = decodeTx(fundingTx);
  return vtxos.map((vtxo, i) => {
    const done = finalizeRoundVtxo({ vtxo, leafSignature: leafSigs[i]!, preimage, unlockHash, fundingTx });
    expect(() => validateVtxo(done, tx)).to.not.throw();
    return done;
  });
}

interface Interactive {
  p: TestParticipant;
  unlockHash: Uint8Array;
  secrets: RoundSubmissionSecrets;
  signatures?: VtxoSignaturesRequest[];
}

/** Runs an interactive round for `participants` (and delegated ones), returns everyone's final VTXOs. */
export function runRound(server: TestRoundServer, participants: TestParticipant[], delegated: TestParticipant[] = []) {
  const joined: Interactive[] = participants.map((p) => {
    const { request, secrets } = prepareRoundSubmission({ challenge: server.challenge, inputs: p.inputs, outputs: p.outputs, nbRoundNonces: server.params.nbRoundNonces });
    return { p, unlockHash: server.submitPayment(request), secrets };
  });
  const waiting = delegated.map((p) => ({ p, unlockHash: server.submitRoundParticipation(prepareDelegatedParticipation({ inputs: p.inputs, outputs: p.outputs })) }));
  const proposal = server.proposal();
  for (const j of joined) {
    j.signatures = signVtxoProposal({ proposal, server: server.params, tipHeight: server.tipHeight, outputs: j.p.outputs, unlockHash: j.unlockHash, secrets: j.secrets });
    expect(j.secrets.used).to.equal(true);
    j.signatures.forEach((s) => server.provideVtxoSignatures(s));
  }
  const finished = server.finish();
  const interactiveVtxos = joined.map((j) => {
    const { fundingTx, fundingTxid, vtxos } = roundOutputVtxos({ proposal, finished, outputs: j.p.outputs, unlockHash: j.unlockHash });
    expect(fundingTxid).to.equal(displayHex(vtxos[0]!.anchorPoint.txid));
    return swap(server, j.p, vtxos, j.unlockHash, fundingTx);
  });
  const delegatedVtxos = waiting.map((w) => {
    const status = server.participationStatus(w.unlockHash);
    if (status.status === "pending") throw new Error("still pending after the round");
    const { vtxos } = checkDelegatedOutputs({ status, outputs: w.p.outputs, server: server.params, inputs: w.p.inputs.map((i) => i.vtxo), unlockHash: w.unlockHash });
    return swap(server, w.p, vtxos, w.unlockHash, status.roundFundingTx);
  });
  return { proposal, finished, joined, interactiveVtxos, delegatedVtxos };
}
