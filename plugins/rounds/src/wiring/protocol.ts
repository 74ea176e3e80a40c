/** The protocol core's round client as the rounds rail's {@link RoundProtocol} port. */
import {
  checkDelegatedOutputs, completeLeafSignature, finalizeRoundVtxo, forfeitBundles, leafCosignNonce, prepareDelegatedParticipation,
  prepareRoundSubmission, refreshOutputAmount, roundOutputVtxos, signVtxoProposal,
} from "@tender/ark-protocol";
import type { RoundProtocol } from "../round-ports.js";

export const roundProtocol: RoundProtocol = {
  refreshOutputAmount, prepareRoundSubmission, signVtxoProposal, roundOutputVtxos, prepareDelegatedParticipation, checkDelegatedOutputs,
  leafCosignNonce, completeLeafSignature, forfeitBundles, finalizeRoundVtxo,
};
