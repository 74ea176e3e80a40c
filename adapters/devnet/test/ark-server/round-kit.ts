/**
 * A round client for server tests, built only from the protocol core and the gRPC Ark server
 * port: it attests and submits, signs its tree branch, checks the finished round, asks for the
 * leaf co-signature, forfeits its inputs for the unlock preimage, and finalizes its new VTXOs,
 * which must validate against the round funding tx.
 */
import { randomBytes } from "node:crypto";
import {
  buildUnsignedVtxoTree,
  bytesEqual,
  createForfeitBundle,
  decodeTx,
  decodeVtxo,
  decodeVtxoTreeSpec,
  delegatedRoundAttestation,
  encodeForfeitBundle,
  encodePolicy,
  encodeVtxo,
  exitChain,
  musigCompleteCosign,
  musigNonceGen,
  pubkeyFromSecret,
  roundAttemptAttestation,
  sha256,
  signAttestation,
  treeCosignBranch,
  treeLeafVtxo,
  txid,
  txidHex,
  validateVtxo,
  vtxoId,
  type MusigNonce,
  type Transaction,
  type UnsignedVtxoTree,
  type Vtxo,
  type VtxoPolicy,
} from "@tender/ark-protocol";
import type { ArkInfo, ArkServer as ArkServerPort, RoundEvent, RoundFinishedEvent, RoundParticipationRequest, SubmitPaymentRequest, VtxoProposalEvent } from "@tender/ark-protocol/server";
import { pubkeyPolicy, type KeyPair, type WalletKit } from "./wallet-kit.js";

/** A requested round output (the wallet kit holds the secret key of its owner key). */
export interface KitOutput {
  amount: bigint;
  policy: VtxoPolicy;
}

/** Per-output cosigning material of one submission (memory only). */
interface CosignSecrets {
  sk: Uint8Array;
  pk: Uint8Array;
  nonces: MusigNonce[];
}

/** One `SubmitPayment` with its secrets. */
export interface Submission {
  request: SubmitPaymentRequest;
  cosign: CosignSecrets[];
  outputs: KitOutput[];
}

/** One output per input total, to a fresh wallet key (zero refresh fee in the test profile). */
export function refreshOutputs(kit: WalletKit, inputs: readonly Vtxo[], fee = 0n): KitOutput[] {
  return [{ amount: inputs.reduce((s, v) => s + v.amount, 0n) - fee, policy: pubkeyPolicy(kit.key().pk) }];
}

/** Builds a submission for `challenge`: fresh cosign keys and nonces, one attestation per input. */
export function prepareSubmission(kit: WalletKit, challenge: Uint8Array, inputs: readonly Vtxo[], outputs: readonly KitOutput[], nbRoundNonces: number, mailbox?: KeyPair): Submission {
  const cosign = outputs.map(() => {
    const sk = new Uint8Array(randomBytes(32));
    const pk = pubkeyFromSecret(sk);
    return { sk, pk, nonces: Array.from({ length: nbRoundNonces }, () => musigNonceGen({ pubkey: pk, secretKey: sk })) };
  });
  const signed = outputs.map((o, i) => ({ amount: o.amount, policy: o.policy, cosignPubkey: cosign[i]!.pk }));
  const request: SubmitPaymentRequest = {
    inputs: inputs.map((v) => ({ vtxoId: vtxoId(v), attestation: signAttestation(roundAttemptAttestation(challenge, vtxoId(v), signed), kit.secretFor(v.policy.userPubkey)) })),
    outputs: outputs.map((o, i) => ({ amount: o.amount, policy: encodePolicy(o.policy), cosignPubkey: cosign[i]!.pk, pubNonces: cosign[i]!.nonces.map((n) => n.pubNonce) })),
    ...(mailbox ? { mailboxId: mailbox.pk } : {}),
  };
  return { request, cosign, outputs: [...outputs] };
}

/** A delegated participation request for `inputs` → `outputs`. */
export function prepareDelegated(kit: WalletKit, inputs: readonly Vtxo[], outputs: readonly KitOutput[], opts: { scheduledHeight?: number; mailbox?: KeyPair } = {}): RoundParticipationRequest {
  return {
    inputs: inputs.map((v) => ({ vtxoId: vtxoId(v), attestation: signAttestation(delegatedRoundAttestation(vtxoId(v), outputs), kit.secretFor(v.policy.userPubkey)) })),
    outputs: outputs.map((o) => ({ amount: o.amount, policy: encodePolicy(o.policy) })),
    ...(opts.mailbox ? { mailboxId: opts.mailbox.pk } : {}),
    ...(opts.scheduledHeight !== undefined ? { scheduledHeight: opts.scheduledHeight } : {}),
  };
}

/** The tree of a proposal, rooted at its unsigned funding tx. */
export function proposalTree(proposal: VtxoProposalEvent): UnsignedVtxoTree {
  return buildUnsignedVtxoTree(decodeVtxoTreeSpec(proposal.vtxosSpec), { txid: txid(decodeTx(proposal.unsignedRoundTx)), vout: 0 });
}

/** Checks the proposal's parameters and our leaves, and signs our branches (one request per output). */
export function signProposal(info: ArkInfo, tip: number, proposal: VtxoProposalEvent, s: Submission, unlockHash: Uint8Array): { cosignPubkey: Uint8Array; signatures: Uint8Array[] }[] {
  const tree = proposalTree(proposal);
  const spec = tree.spec;
  if (!bytesEqual(spec.serverPubkey, info.serverPubkey)) throw new Error("proposal: wrong server pubkey");
  if (spec.exitDelta !== info.vtxoExitDelta) throw new Error("proposal: wrong exit delta");
  if (spec.expiryHeight < tip + info.vtxoLifetime - 6) throw new Error("proposal: expiry too early");
  return s.cosign.map((c, i) => {
    const leafIdx = leafOf(tree, c.pk, s.outputs[i]!, unlockHash);
    return { cosignPubkey: c.pk, signatures: treeCosignBranch(tree, [...proposal.aggNonces], leafIdx, c.sk, c.nonces) };
  });
}

function leafOf(tree: UnsignedVtxoTree, cosignPk: Uint8Array | null, out: KitOutput, unlockHash: Uint8Array, skip: ReadonlySet<number> = new Set()): number {
  const idx = tree.spec.leaves.findIndex(
    (l, i) =>
      !skip.has(i) &&
      (cosignPk ? l.cosignPubkey !== null && bytesEqual(l.cosignPubkey, cosignPk) : l.cosignPubkey === null) &&
      l.amount === out.amount &&
      bytesEqual(encodePolicy(l.policy), encodePolicy(out.policy)) &&
      bytesEqual(l.unlockHash, unlockHash),
  );
  if (idx < 0) throw new Error("requested output is not among the leaves");
  return idx;
}

/** A finished participation: the funding tx and our (not yet unlocked) leaf VTXOs. */
export interface RoundOutcome {
  fundingTx: Transaction;
  tree: UnsignedVtxoTree;
  leafIdxs: number[];
  signatures: readonly Uint8Array[];
  vtxos: Vtxo[];
  unlockHash: Uint8Array;
}

/** Checks the finished event against the proposal and builds our leaf VTXOs. */
export function finishedOutcome(proposal: VtxoProposalEvent, finished: RoundFinishedEvent, s: Submission, unlockHash: Uint8Array): RoundOutcome {
  const tree = proposalTree(proposal);
  const fundingTx = decodeTx(finished.signedRoundTx);
  if (txidHex(fundingTx) !== txidHex(decodeTx(proposal.unsignedRoundTx))) throw new Error("finished: funding txid differs from the proposal's");
  const leafIdxs = s.cosign.map((c, i) => leafOf(tree, c.pk, s.outputs[i]!, unlockHash));
  const vtxos = leafIdxs.map((idx) => treeLeafVtxo(tree, idx, finished.cosignSignatures, null, { type: "hash", hash: unlockHash }));
  return { fundingTx, tree, leafIdxs, signatures: finished.cosignSignatures, vtxos, unlockHash };
}

/** A delegated participation's outcome from its status (outputs in request order). */
export function delegatedOutcome(fundingTxBytes: Uint8Array, outputVtxos: readonly Uint8Array[], outputs: readonly KitOutput[], unlockHash: Uint8Array): { fundingTx: Transaction; vtxos: Vtxo[] } {
  const vtxos = outputVtxos.map((b) => decodeVtxo(b));
  if (vtxos.length !== outputs.length) throw new Error("status: wrong number of outputs");
  vtxos.forEach((v, i) => {
    if (v.amount !== outputs[i]!.amount || !bytesEqual(encodePolicy(v.policy), encodePolicy(outputs[i]!.policy))) throw new Error(`status: output ${i} differs`);
    const last = v.genesis.at(-1)!.transition;
    if (last.kind !== "hash-locked-cosigned-v1" || last.unlock.type !== "hash" || !bytesEqual(last.unlock.hash, unlockHash)) throw new Error("status: output is not hash-locked to our unlock hash");
  });
  return { fundingTx: decodeTx(fundingTxBytes), vtxos };
}

/**
 * The hArk swap: leaf co-signature for every new VTXO, forfeit nonces and bundles for every
 * input, the preimage in exchange; returns the finalized VTXOs, each validated against the
 * funding tx.
 */
export async function harkSwap(
  api: ArkServerPort,
  kit: WalletKit,
  info: ArkInfo,
  p: { fundingTx: Transaction; vtxos: readonly Vtxo[]; unlockHash: Uint8Array; inputs: readonly Vtxo[] },
): Promise<{ vtxos: Vtxo[]; preimage: Uint8Array }> {
  const leafSigs: Uint8Array[] = [];
  for (const v of p.vtxos) {
    // the leaf tx's hash-lock script-spend sighash, from the VTXO's own exit chain
    const msg = exitChain(v).at(-1)!.sighash;
    const sk = kit.secretFor(v.policy.userPubkey);
    const nonce = musigNonceGen({ pubkey: v.policy.userPubkey, secretKey: sk, message: msg });
    const response = await api.requestLeafVtxoCosign({ vtxoId: vtxoId(v), pubNonce: nonce.pubNonce });
    leafSigs.push(musigCompleteCosign({ secretKey: sk, pubkey: v.policy.userPubkey, nonce, otherPubkey: info.serverPubkey, response, message: msg }));
  }
  const nonces = await api.requestForfeitNonces(p.unlockHash, p.inputs.map((v) => vtxoId(v)));
  if (nonces.length !== p.inputs.length) throw new Error("wrong number of forfeit nonces");
  const bundles = p.inputs.map((v, i) => encodeForfeitBundle(createForfeitBundle(v, p.unlockHash, kit.secretFor(v.policy.userPubkey), nonces[i]!)));
  const preimage = await api.forfeitVtxos(bundles);
  if (!bytesEqual(sha256(preimage), p.unlockHash)) throw new Error("the preimage does not match the unlock hash");
  const vtxos = p.vtxos.map((v, i) => finalizeVtxo(v, leafSigs[i]!, preimage, p.fundingTx));
  await api.registerVtxoTransactions(vtxos.map((v) => encodeVtxo(v)));
  return { vtxos, preimage };
}

/** Inserts the leaf signature and the preimage and validates the VTXO against the funding tx. */
export function finalizeVtxo(v: Vtxo, leafSig: Uint8Array, preimage: Uint8Array, fundingTx: Transaction): Vtxo {
  const genesis = [...v.genesis];
  const last = genesis.at(-1)!;
  if (last.transition.kind !== "hash-locked-cosigned-v1") throw new Error("not a round leaf");
  genesis[genesis.length - 1] = { ...last, transition: { ...last.transition, signature: leafSig, unlock: { type: "preimage", preimage } } };
  const final = { ...v, genesis };
  validateVtxo(final, fundingTx);
  return final;
}
