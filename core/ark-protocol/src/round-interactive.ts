/**
 * Interactive round participation (bark's `start_attempt`, `sign_vtxo_tree`,
 * `construct_new_vtxos`): the `SubmitPayment` of an attempt, the checks and branch signatures
 * on `vtxo_proposal`, and the leaf VTXOs (not yet unlocked) on `finished`. See round-client.ts
 * for the whole round and the errors.
 *
 * | Event | Function | Result |
 * |---|---|---|
 * | `attempt` | {@link prepareRoundSubmission} | `SubmitPayment` request + {@link RoundSubmissionSecrets} (memory only) |
 * | `vtxo_proposal` | {@link signVtxoProposal} | one `ProvideVtxoSignatures` per output; wipes the secrets |
 * | `finished` | {@link roundOutputVtxos} | signed funding tx + our VTXOs lacking leaf signature and preimage |
 *
 * @example
 * ```ts
 * const { request, secrets } = prepareRoundSubmission({ challenge, inputs, outputs, nbRoundNonces: 3 });
 * const sigs = signVtxoProposal({ proposal, server, tipHeight, outputs, unlockHash, secrets });
 * const { fundingTx, fundingTxid, vtxos } = roundOutputVtxos({ proposal, finished, outputs, unlockHash });
 * ```
 */
import { secp256k1 } from "@noble/curves/secp256k1.js";
import { randomBytes } from "@noble/hashes/utils.js";
import type { ProtocolError } from "./errors.js";
import { bytesEqual, displayHex, toHex } from "./encoding.js";
import { pubkeyFromSecret } from "./keys.js";
import { encodePolicy } from "./policy.js";
import { decodeTx, txid, type Transaction } from "./tx.js";
import { musigNonceGen, musigTweakedKey, type MusigNonce } from "./musig.js";
import { verifySchnorr } from "./schnorr.js";
import { roundAttemptAttestation, signAttestation } from "./signatures.js";
import { buildUnsignedVtxoTree, decodeVtxoTreeSpec, vtxoTreeFundingOutput, type UnsignedVtxoTree, type VtxoTreeSpec } from "./tree.js";
import { treeCosignBranch, treeLeafVtxo } from "./tree-signing.js";
import { vtxoId, type Vtxo } from "./vtxo.js";
import type { RoundFinishedEvent, SubmitPaymentRequest, VtxoProposalEvent, VtxoSignaturesRequest } from "./server/round-messages.js";
import {
  MemoryOnly,
  ROUND_EXPIRY_HEIGHT_BUFFER,
  ROUND_TX_VTXO_TREE_VOUT,
  RoundFinishedError,
  RoundParticipationError,
  RoundProposalError,
  btcDisplay,
  checkOwnedInputs,
  checkRoundOutputs,
  checkRoundTreeParams,
  checkVtxoAwaitingUnlock,
  type OwnedRoundInput,
  type RoundOutput,
  type RoundServerParams,
} from "./round-client.js";

function describeOutput(o: RoundOutput): string {
  return `{amount: ${btcDisplay(o.amount)}, policy: ${toHex(encodePolicy(o.policy))}}`;
}

interface OutputSecrets {
  readonly cosignPubkey: Uint8Array;
  readonly cosignSecretKey: Uint8Array;
  readonly nonces: MusigNonce[];
}

/** The secrets behind each {@link RoundSubmissionSecrets}, reachable only from this module. */
const SECRETS = new WeakMap<RoundSubmissionSecrets, { outputs: OutputSecrets[]; used: boolean }>();

/**
 * The memory-only secrets of one submission: per output its cosign key and secret nonces.
 * Used once by {@link signVtxoProposal}, which wipes them; never persisted (serializing throws).
 * Only the public cosign keys are visible on the object.
 */
export class RoundSubmissionSecrets extends MemoryOnly {
  /** The cosign pubkeys, in output order (public). */
  readonly cosignPubkeys: readonly Uint8Array[];

  constructor(outputs: OutputSecrets[]) {
    super();
    this.cosignPubkeys = outputs.map((o) => o.cosignPubkey);
    SECRETS.set(this, { outputs, used: false });
  }

  /** Whether the nonces were used or wiped (they can then never sign again). */
  get used(): boolean {
    return SECRETS.get(this)?.used ?? true;
  }

  /** Zeroes every secret key and secret nonce (an abandoned attempt). */
  wipe(): void {
    const s = SECRETS.get(this);
    if (!s) return;
    s.used = true;
    for (const o of s.outputs) {
      o.cosignSecretKey.fill(0);
      for (const n of o.nonces) n.secNonce.fill(0);
    }
  }
}

/** Hands a submission's secrets out once, for signing; later calls throw. */
function takeSecrets(secrets: RoundSubmissionSecrets): readonly OutputSecrets[] {
  const s = SECRETS.get(secrets);
  if (!s || s.used) throw new RoundProposalError("secret cosign nonces unavailable or already used; abandoning round attempt to avoid nonce reuse");
  s.used = true;
  return s.outputs;
}

type Rand = (n: number) => Uint8Array;

function freshSecretKey(rand: Rand): Uint8Array {
  for (;;) {
    const k = rand(32);
    if (k.length === 32 && secp256k1.utils.isValidSecretKey(k)) return Uint8Array.from(k);
  }
}

/**
 * Builds the `SubmitPayment` of an attempt: per output a fresh cosign key and `nbRoundNonces`
 * nonce pairs, per input a round-attempt attestation over the challenge, its id and every
 * signed output. `rand` (default: crypto randomness) feeds keys, nonces and signature aux data.
 */
export function prepareRoundSubmission(p: {
  challenge: Uint8Array;
  inputs: readonly OwnedRoundInput[];
  outputs: readonly RoundOutput[];
  nbRoundNonces: number;
  mailboxId?: Uint8Array;
  rand?: Rand;
}): { request: SubmitPaymentRequest; secrets: RoundSubmissionSecrets } {
  const rand = p.rand ?? randomBytes;
  if (p.challenge.length !== 32) throw new RoundParticipationError("round challenge must be 32 bytes");
  if (!Number.isSafeInteger(p.nbRoundNonces) || p.nbRoundNonces < 1) throw new RoundParticipationError(`invalid number of round nonces ${p.nbRoundNonces}`);
  if (p.mailboxId !== undefined && p.mailboxId.length !== 33) throw new RoundParticipationError("mailbox id must be 33 bytes");
  checkOwnedInputs(p.inputs);
  checkRoundOutputs(p.outputs);
  const secrets: OutputSecrets[] = p.outputs.map(() => {
    const cosignSecretKey = freshSecretKey(rand);
    const cosignPubkey = pubkeyFromSecret(cosignSecretKey);
    const nonces = Array.from({ length: p.nbRoundNonces }, () => musigNonceGen({ pubkey: cosignPubkey, secretKey: cosignSecretKey, rand: rand(32) }));
    return { cosignPubkey, cosignSecretKey, nonces };
  });
  const signed = p.outputs.map((o, i) => ({ amount: o.amount, policy: o.policy, cosignPubkey: secrets[i]!.cosignPubkey }));
  const request: SubmitPaymentRequest = {
    inputs: p.inputs.map(({ vtxo, secretKey }) => {
      const id = vtxoId(vtxo);
      return { vtxoId: id, attestation: signAttestation(roundAttemptAttestation(p.challenge, id, signed), secretKey, rand(32)) };
    }),
    outputs: p.outputs.map((o, i) => ({
      amount: o.amount,
      policy: encodePolicy(o.policy),
      cosignPubkey: secrets[i]!.cosignPubkey,
      pubNonces: secrets[i]!.nonces.map((n) => n.pubNonce),
    })),
    ...(p.mailboxId ? { mailboxId: p.mailboxId } : {}),
  };
  return { request, secrets: new RoundSubmissionSecrets(secrets) };
}

function decodeProposal<E extends ProtocolError>(proposal: VtxoProposalEvent, Err: new (message: string) => E): { spec: VtxoTreeSpec; tx: Transaction } {
  try {
    return { spec: decodeVtxoTreeSpec(proposal.vtxosSpec), tx: decodeTx(proposal.unsignedRoundTx) };
  } catch (e) {
    throw new Err(`invalid round proposal: ${(e as Error).message}`);
  }
}

function buildTree<E extends ProtocolError>(spec: VtxoTreeSpec, tx: Transaction, Err: new (message: string) => E): UnsignedVtxoTree {
  try {
    const fundingOut = vtxoTreeFundingOutput(spec);
    const out = tx.outputs[ROUND_TX_VTXO_TREE_VOUT];
    if (!out || out.value !== fundingOut.value || !bytesEqual(out.script, fundingOut.script)) {
      throw new Err(`round funding tx output ${ROUND_TX_VTXO_TREE_VOUT} does not pay the VTXO tree`);
    }
    return buildUnsignedVtxoTree(spec, { txid: txid(tx), vout: ROUND_TX_VTXO_TREE_VOUT });
  } catch (e) {
    if (e instanceof Err) throw e;
    throw new Err(`invalid round VTXO tree: ${(e as Error).message}`);
  }
}

/**
 * Leaf index of each output, in output order: a distinct leaf with the same amount, policy and
 * unlock hash (and, when given, the output's cosign key).
 */
function matchLeaves(spec: VtxoTreeSpec, outputs: readonly RoundOutput[], unlockHash: Uint8Array, cosignKeys?: readonly Uint8Array[]): (number | null)[] {
  const taken = new Set<number>();
  const encoded = spec.leaves.map((l) => encodePolicy(l.policy));
  return outputs.map((o, i) => {
    const policy = encodePolicy(o.policy);
    const key = cosignKeys?.[i];
    const idx = spec.leaves.findIndex(
      (l, j) =>
        !taken.has(j) &&
        l.amount === o.amount &&
        bytesEqual(encoded[j]!, policy) &&
        bytesEqual(l.unlockHash, unlockHash) &&
        (key === undefined || (l.cosignPubkey !== null && bytesEqual(l.cosignPubkey, key))),
    );
    if (idx < 0) return null;
    taken.add(idx);
    return idx;
  });
}

/**
 * Answers a `vtxo_proposal`: checks the tree parameters (server key, exit delta, expiry ≥
 * tip + lifetime − 6), that the funding tx pays the tree at vout 0 and that every output is a
 * leaf with our cosign key and `unlockHash`; then signs each output's branch (leaf's parent →
 * root) with its secret nonces. One {@link VtxoSignaturesRequest} per output, in output order.
 * Consumes and wipes the secrets once the checks pass. Throws {@link RoundProposalError}.
 */
export function signVtxoProposal(p: {
  proposal: VtxoProposalEvent;
  server: RoundServerParams;
  tipHeight: number;
  outputs: readonly RoundOutput[];
  unlockHash: Uint8Array;
  secrets: RoundSubmissionSecrets;
}): VtxoSignaturesRequest[] {
  const { spec, tx } = decodeProposal(p.proposal, RoundProposalError);
  const minExpiryHeight = Math.max(0, p.tipHeight + p.server.vtxoLifetime - ROUND_EXPIRY_HEIGHT_BUFFER);
  checkRoundTreeParams(spec, { serverPubkey: p.server.serverPubkey, exitDelta: p.server.vtxoExitDelta, minExpiryHeight }, RoundProposalError);
  const cosignKeys = p.secrets.cosignPubkeys;
  if (cosignKeys.length !== p.outputs.length) throw new RoundProposalError(`submission has ${cosignKeys.length} outputs, expected ${p.outputs.length}`);
  const leafIdx = matchLeaves(spec, p.outputs, p.unlockHash, cosignKeys);
  const missing = p.outputs.filter((_, i) => leafIdx[i] === null);
  if (missing.length) throw new RoundProposalError(`server didn't include all of our vtxos, missing: [${missing.map(describeOutput).join(", ")}]`);
  for (const k of cosignKeys) {
    if (spec.leaves.filter((l) => l.cosignPubkey !== null && bytesEqual(l.cosignPubkey, k)).length !== 1) {
      throw new RoundProposalError(`cosign pubkey ${toHex(k)} appears in more than one tree leaf`);
    }
  }
  const tree = buildTree(spec, tx, RoundProposalError);
  if (p.proposal.aggNonces.length !== tree.internal.length) {
    throw new RoundProposalError(`server sent ${p.proposal.aggNonces.length} aggregated nonces, expected ${tree.internal.length}`);
  }
  const secrets = takeSecrets(p.secrets);
  try {
    return secrets.map((s, i) => {
      try {
        return { cosignPubkey: s.cosignPubkey, signatures: treeCosignBranch(tree, p.proposal.aggNonces, leafIdx[i]!, s.cosignSecretKey, s.nonces) };
      } catch (e) {
        throw new RoundProposalError(`failed to cosign branch: ${(e as Error).message}`);
      }
    });
  } finally {
    p.secrets.wipe();
  }
}

/**
 * Answers a `finished` event: the signed funding tx has the proposal's txid, the final node
 * signatures verify, and each output's leaf (same amount, policy and unlock hash) gives a VTXO
 * with its full genesis but no leaf signature and no preimage, valid up to that last transition.
 * VTXOs in output order. Throws {@link RoundFinishedError}.
 */
export function roundOutputVtxos(p: {
  proposal: VtxoProposalEvent;
  finished: RoundFinishedEvent;
  outputs: readonly RoundOutput[];
  unlockHash: Uint8Array;
}): { fundingTx: Uint8Array; fundingTxid: string; vtxos: Vtxo[] } {
  const { spec, tx: unsigned } = decodeProposal(p.proposal, RoundFinishedError);
  let signed: Transaction;
  try {
    signed = decodeTx(p.finished.signedRoundTx);
  } catch (e) {
    throw new RoundFinishedError(`invalid signed round tx: ${(e as Error).message}`);
  }
  const fundingTxid = txid(signed);
  if (!bytesEqual(fundingTxid, txid(unsigned))) {
    throw new RoundFinishedError(`signed funding tx (${displayHex(fundingTxid)}) doesn't match tx received before (${displayHex(txid(unsigned))})`);
  }
  const tree = buildTree(spec, signed, RoundFinishedError);
  const sigs = p.finished.cosignSignatures;
  const valid =
    sigs.length === tree.internal.length &&
    tree.internal.every((n, i) => {
      try {
        return verifySchnorr(sigs[i]!, n.sighash, musigTweakedKey(n.cosignKeys, n.tweak));
      } catch {
        return false;
      }
    });
  if (!valid) throw new RoundFinishedError("Received incorrect vtxo cosign signatures from server");
  const leafIdx = matchLeaves(spec, p.outputs, p.unlockHash);
  const missing = p.outputs.filter((_, i) => leafIdx[i] === null);
  if (missing.length === p.outputs.length) throw new RoundFinishedError("None of our VTXOs were present in round!");
  if (missing.length) throw new RoundFinishedError(`Server included some of our VTXOs but not all: ${missing.length} missing: [${missing.map(describeOutput).join(", ")}]`);
  const vtxos = leafIdx.map((idx) => {
    const vtxo = treeLeafVtxo(tree, idx!, sigs, null, { type: "hash", hash: p.unlockHash });
    checkVtxoAwaitingUnlock(vtxo, signed, RoundFinishedError);
    return vtxo;
  });
  return { fundingTx: p.finished.signedRoundTx, fundingTxid: displayHex(fundingTxid), vtxos };
}
