/**
 * A minimal in-process round coordinator for the round client tests, written from the tree
 * primitives (test helper): it checks submissions (nonce count, attestations, refresh fee), builds
 * the tree spec with padding to two leaves and a funding tx paying the tree at vout 0 (from a fake
 * funding input), aggregates nonces, signs every internal node with a per-attempt cosign key,
 * combines the partial signatures, answers leaf cosign requests with the server's MuSig2 half,
 * hands out forfeit nonces and completes forfeits for the unlock preimage.
 */
import { expect } from "chai";
import { randomBytes } from "@noble/hashes/utils.js";
import { bytesEqual, encodeOutPoint, fromHex, toHex } from "../src/encoding.js";
import { sha256 } from "../src/hashes.js";
import { pubkeyFromSecret, toXOnly } from "../src/keys.js";
import { decodeUserPolicy } from "../src/policy.js";
import { p2trScript } from "../src/script.js";
import { encodeTx, txid, type Transaction } from "../src/tx.js";
import { blocksToExpiry, captaindDefaultFeeSchedule, refreshFee } from "../src/fees.js";
import { musigCompleteCosign, musigNonceGen, musigRespondCosign, musigTweakedKey, type MusigNonce } from "../src/musig.js";
import { verifySchnorr } from "../src/schnorr.js";
import { delegatedRoundAttestation, roundAttemptAttestation, verifyAttestation } from "../src/signatures.js";
import { buildUnsignedVtxoTree, encodeVtxoTreeSpec, treeLeafUnlockSighash, vtxoTreeFundingOutput, type UnsignedVtxoTree, type VtxoLeafSpec, type VtxoTreeSpec } from "../src/tree.js";
import { treeAggNonces, treeCombinePartials, treeCosignAll, treeLeafVtxo } from "../src/tree-signing.js";
import { completeForfeit, decodeForfeitBundle } from "../src/forfeit.js";
import { boardVtxo, buildBoardExit } from "../src/board.js";
import { encodeVtxo, vtxoId, type Vtxo } from "../src/vtxo.js";
import type { OwnedRoundInput, RoundServerParams } from "../src/round-client.js";
import type {
  LeafVtxoCosignRequest,
  LeafVtxoCosignResponse,
  RoundFinishedEvent,
  RoundParticipationRequest,
  RoundParticipationStatus,
  SubmitPaymentRequest,
  VtxoProposalEvent,
  VtxoSignaturesRequest,
} from "../src/server/round-messages.js";

/** captaind's padding leaf: an unspendable key and a dummy unlock hash. */
const PADDING_KEY = fromHex("02dfa52f6690299d2d6a08323083e290597b56fee125063e5f4e2957731639c42c");
const PADDING_UNLOCK_HASH = fromHex("deadbeef".repeat(8));

interface Participation {
  inputs: Vtxo[];
  outputs: { amount: bigint; policy: Uint8Array; cosignPubkey: Uint8Array | null }[];
  preimage: Uint8Array;
  unlockHash: Uint8Array;
  forfeited: boolean;
}

export class TestRoundServer {
  readonly serverSecretKey = freshKey();
  readonly serverPubkey = pubkeyFromSecret(this.serverSecretKey);
  readonly params: RoundServerParams;
  readonly challenge = randomBytes(32);
  readonly roundSeq = 7n;
  readonly attemptSeq = 0n;
  private readonly known = new Map<string, Vtxo>();
  private readonly participations: Participation[] = [];
  private readonly leafNonces = new Map<string, readonly Uint8Array[]>();
  private readonly partials = new Map<string, readonly Uint8Array[]>();
  private readonly forfeitNonceByInput = new Map<string, MusigNonce>();
  private cosignSecretKey = freshKey();
  spec?: VtxoTreeSpec;
  tree?: UnsignedVtxoTree;
  fundingTx?: Transaction;
  aggNonces?: Uint8Array[];
  nodeSignatures?: Uint8Array[];
  private serverNonces?: MusigNonce[];

  constructor(
    readonly tipHeight: number,
    opts: { nbRoundNonces?: number; vtxoLifetime?: number; exitDelta?: number } = {},
  ) {
    this.params = {
      serverPubkey: this.serverPubkey,
      vtxoExitDelta: opts.exitDelta ?? 144,
      vtxoLifetime: opts.vtxoLifetime ?? 4320,
      nbRoundNonces: opts.nbRoundNonces ?? 3,
      refreshFees: captaindDefaultFeeSchedule().refresh,
    };
  }

  /** A board VTXO of `amount` owned by a fresh key, co-signed by this server (known to it). */
  board(amount: bigint, expiryHeight = this.tipHeight + 3000): OwnedRoundInput {
    const secretKey = freshKey();
    const userPubkey = pubkeyFromSecret(secretKey);
    const exit = buildBoardExit({ userPubkey, serverPubkey: this.serverPubkey, expiryHeight, exitDelta: this.params.vtxoExitDelta }, { txid: randomBytes(32), vout: 1 }, amount, 0n);
    const nonce = musigNonceGen({ pubkey: userPubkey, secretKey, message: exit.sighash });
    const response = musigRespondCosign({ secretKey: this.serverSecretKey, pubkey: this.serverPubkey, otherPubkey: userPubkey, otherPubNonce: nonce.pubNonce, message: exit.sighash, tweak: exit.tweak });
    const sig = musigCompleteCosign({ secretKey, pubkey: userPubkey, nonce, otherPubkey: this.serverPubkey, response, message: exit.sighash, tweak: exit.tweak });
    const vtxo = boardVtxo(exit, sig);
    this.known.set(toHex(vtxoId(vtxo)), vtxo);
    return { vtxo, secretKey };
  }

  private inputsOf(ids: readonly Uint8Array[]): Vtxo[] {
    return ids.map((id) => {
      const v = this.known.get(toHex(id));
      if (!v) throw new Error("vtxo does not exist");
      return v;
    });
  }

  private checkFee(inputs: Vtxo[], outputs: readonly { amount: bigint }[], height: number): void {
    const fee = refreshFee(this.params.refreshFees, inputs.map((v) => ({ amount: v.amount, blocksToExpiry: blocksToExpiry(v.expiryHeight, height) })));
    const inSum = inputs.reduce((s, v) => s + v.amount, 0n);
    const outSum = outputs.reduce((s, o) => s + o.amount, 0n);
    if (inSum - outSum < fee) throw new Error(`insufficient refresh fee: expected at least ${fee}, got ${inSum - outSum}`);
  }

  private register(inputs: Vtxo[], outputs: Participation["outputs"]): Uint8Array {
    const preimage = randomBytes(32);
    const unlockHash = sha256(preimage);
    this.participations.push({ inputs, outputs, preimage, unlockHash, forfeited: false });
    return unlockHash;
  }

  /** `SubmitPayment`: nonce count, attestations over the challenge, refresh fee at the tip. */
  submitPayment(req: SubmitPaymentRequest): Uint8Array {
    if (req.outputs.length === 0) throw new Error("invalid request: no outputs");
    for (const o of req.outputs) if (o.pubNonces.length !== this.params.nbRoundNonces) throw new Error(`need exactly ${this.params.nbRoundNonces} public nonces`);
    const inputs = this.inputsOf(req.inputs.map((i) => i.vtxoId));
    const signed = req.outputs.map((o) => ({ amount: o.amount, policy: decodeUserPolicy(o.policy), cosignPubkey: o.cosignPubkey }));
    req.inputs.forEach((i, n) => {
      if (!verifyAttestation(i.attestation, roundAttemptAttestation(this.challenge, i.vtxoId, signed), inputs[n]!.policy.userPubkey)) throw new Error("attestation is invalid");
    });
    this.checkFee(inputs, req.outputs, this.tipHeight);
    for (const o of req.outputs) this.leafNonces.set(toHex(o.cosignPubkey), o.pubNonces);
    return this.register(inputs, req.outputs.map((o) => ({ amount: o.amount, policy: o.policy, cosignPubkey: o.cosignPubkey })));
  }

  /** `SubmitRoundParticipation`: delegated attestations, refresh fee at the scheduled height or tip. */
  submitRoundParticipation(req: RoundParticipationRequest): Uint8Array {
    const inputs = this.inputsOf(req.inputs.map((i) => i.vtxoId));
    const outs = req.outputs.map((o) => ({ amount: o.amount, policy: decodeUserPolicy(o.policy) }));
    req.inputs.forEach((i, n) => {
      if (!verifyAttestation(i.attestation, delegatedRoundAttestation(i.vtxoId, outs), inputs[n]!.policy.userPubkey)) throw new Error(`attestation for vtxo ${toHex(i.vtxoId)} failed`);
    });
    this.checkFee(inputs, req.outputs, req.scheduledHeight ?? this.tipHeight);
    return this.register(inputs, req.outputs.map((o) => ({ amount: o.amount, policy: o.policy, cosignPubkey: null })));
  }

  /** Builds the tree (interactive leaves, then delegated ones, then padding) and the proposal. */
  proposal(): VtxoProposalEvent {
    const ordered = [...this.participations.filter((p) => p.outputs.some((o) => o.cosignPubkey)), ...this.participations.filter((p) => p.outputs.every((o) => !o.cosignPubkey))];
    const leaves: VtxoLeafSpec[] = ordered.flatMap((p) => p.outputs.map((o) => ({ policy: decodeUserPolicy(o.policy), amount: o.amount, cosignPubkey: o.cosignPubkey, unlockHash: p.unlockHash })));
    while (leaves.length < 2) leaves.push({ policy: { type: "pubkey", userPubkey: PADDING_KEY }, amount: 330n, cosignPubkey: null, unlockHash: PADDING_UNLOCK_HASH });
    const cosignPubkey = pubkeyFromSecret(this.cosignSecretKey);
    const spec: VtxoTreeSpec = {
      expiryHeight: this.tipHeight + this.params.vtxoLifetime,
      serverPubkey: this.serverPubkey,
      exitDelta: this.params.vtxoExitDelta,
      globalCosignPubkeys: [cosignPubkey],
      leaves,
    };
    const fundingTx: Transaction = {
      version: 2,
      locktime: 0,
      inputs: [{ prevout: { txid: randomBytes(32), vout: 3 }, scriptSig: new Uint8Array(0), sequence: 0xfffffffd, witness: [] }],
      outputs: [vtxoTreeFundingOutput(spec), { value: 1_000_000n, script: p2trScript(toXOnly(pubkeyFromSecret(freshKey()))) }],
    };
    const tree = buildUnsignedVtxoTree(spec, { txid: txid(fundingTx), vout: 0 });
    this.serverNonces = tree.internal.map(() => musigNonceGen({ pubkey: cosignPubkey, secretKey: this.cosignSecretKey }));
    this.aggNonces = treeAggNonces(tree, this.leafNonces, [this.serverNonces.map((n) => n.pubNonce)]);
    Object.assign(this, { spec, tree, fundingTx });
    return { kind: "vtxo-proposal", roundSeq: this.roundSeq, attemptSeq: this.attemptSeq, vtxosSpec: encodeVtxoTreeSpec(spec), unsignedRoundTx: encodeTx(fundingTx), aggNonces: this.aggNonces };
  }

  /** `ProvideVtxoSignatures`: only cosign keys of the tree, once each. */
  provideVtxoSignatures(req: VtxoSignaturesRequest): void {
    const key = toHex(req.cosignPubkey);
    if (!this.spec!.leaves.some((l) => l.cosignPubkey && bytesEqual(l.cosignPubkey, req.cosignPubkey))) throw new Error("pubkey is not part of cosigner group");
    if (this.partials.has(key)) throw new Error("duplicate signatures for pubkey");
    this.partials.set(key, req.signatures);
  }

  /** Signs every internal node, combines, checks each final signature; the `finished` event. */
  finish(): RoundFinishedEvent {
    const tree = this.tree!;
    const cosignPubkey = pubkeyFromSecret(this.cosignSecretKey);
    const partials = new Map(this.partials);
    partials.set(toHex(cosignPubkey), treeCosignAll(tree, this.aggNonces!, this.cosignSecretKey, this.serverNonces!));
    const sigs = treeCombinePartials(tree, this.aggNonces!, partials);
    tree.internal.forEach((n, i) => expect(verifySchnorr(sigs[i]!, n.sighash, musigTweakedKey(n.cosignKeys, n.tweak)), `node ${i} signature`).to.equal(true));
    this.nodeSignatures = sigs;
    this.cosignSecretKey.fill(0);
    const input = this.fundingTx!.inputs[0]!;
    const signed: Transaction = { ...this.fundingTx!, inputs: [{ ...input, witness: [randomBytes(64)] }] };
    return { kind: "finished", roundSeq: this.roundSeq, attemptSeq: this.attemptSeq, signedRoundTx: encodeTx(signed), cosignSignatures: sigs };
  }

  private leafIdxOf(vtxoIdBytes: Uint8Array): number {
    const idx = this.tree!.txs.findIndex((t, i) => i < this.spec!.leaves.length && bytesEqual(vtxoIdBytes.subarray(0, 32), txid(t)) && vtxoIdBytes[32] === 0);
    if (idx < 0) throw new Error("VTXO's chain anchor is not a known round");
    return idx;
  }

  /** `RequestLeafVtxoCosign`: the server's nonce and partial over the leaf's unlock sighash. */
  leafCosign(req: LeafVtxoCosignRequest): LeafVtxoCosignResponse {
    const idx = this.leafIdxOf(req.vtxoId);
    const leaf = this.spec!.leaves[idx]!;
    return musigRespondCosign({ secretKey: this.serverSecretKey, pubkey: this.serverPubkey, otherPubkey: leaf.policy.userPubkey, otherPubNonce: req.pubNonce, message: treeLeafUnlockSighash(this.tree!, idx) });
  }

  private participation(unlockHash: Uint8Array): Participation {
    const p = this.participations.find((x) => bytesEqual(x.unlockHash, unlockHash));
    if (!p) throw new Error("unknown unlock hash");
    return p;
  }

  /** `RequestForfeitNonces`: one held nonce per input id (the same one when asked again). */
  forfeitNonces(unlockHash: Uint8Array, ids: readonly Uint8Array[]): Uint8Array[] {
    const p = this.participation(unlockHash);
    return ids.map((id) => {
      if (!p.inputs.some((v) => bytesEqual(vtxoId(v), id))) throw new Error(`vtxo with id ${toHex(id)} is not part of this round participation`);
      const k = toHex(id);
      if (!this.forfeitNonceByInput.has(k)) this.forfeitNonceByInput.set(k, musigNonceGen({ pubkey: this.serverPubkey, secretKey: this.serverSecretKey }));
      return this.forfeitNonceByInput.get(k)!.pubNonce;
    });
  }

  /** `ForfeitVtxos`: every input of one participation, each forfeit completed; the preimage. */
  forfeitVtxos(bundles: readonly Uint8Array[]): Uint8Array {
    const decoded = bundles.map(decodeForfeitBundle);
    if (decoded.length === 0) throw new Error("zero forfeit bundles provided");
    const p = this.participation(decoded[0]!.unlockHash);
    if (!decoded.every((b) => bytesEqual(b.unlockHash, p.unlockHash))) throw new Error("not all forfeit bundles have same unlock hash");
    if (p.forfeited) return p.preimage;
    if (decoded.length !== p.inputs.length) throw new Error("missing input vtxos");
    for (const b of decoded) {
      const vtxo = p.inputs.find((v) => bytesEqual(vtxoId(v), encodeOutPoint(b.vtxoId)));
      if (!vtxo) throw new Error("forfeit bundle is not part of this round participation");
      const nonce = this.forfeitNonceByInput.get(toHex(vtxoId(vtxo)));
      if (!nonce) throw new Error("no forfeit nonces generated for vtxo");
      completeForfeit(vtxo, b, { secretKey: this.serverSecretKey, secNonce: nonce.secNonce, pubNonce: nonce.pubNonce });
    }
    p.forfeited = true;
    return p.preimage;
  }

  /** `RoundParticipationStatus` of a delegated participation after the round. */
  participationStatus(unlockHash: Uint8Array): RoundParticipationStatus {
    const p = this.participation(unlockHash);
    const inputVtxoIds = p.inputs.map(vtxoId);
    if (!this.nodeSignatures) return { status: "pending", inputVtxoIds };
    const taken = new Set<number>();
    const outputVtxos = p.outputs.map((o) => {
      const idx = this.spec!.leaves.findIndex((l, i) => !taken.has(i) && bytesEqual(l.unlockHash, p.unlockHash) && l.amount === o.amount);
      taken.add(idx);
      return encodeVtxo(treeLeafVtxo(this.tree!, idx, this.nodeSignatures!, null, { type: "hash", hash: p.unlockHash }));
    });
    const signed: Transaction = { ...this.fundingTx!, inputs: [{ ...this.fundingTx!.inputs[0]!, witness: [randomBytes(64)] }] };
    return { status: p.forfeited ? "released" : "issued", inputVtxoIds, roundFundingTx: encodeTx(signed), outputVtxos, ...(p.forfeited ? { unlockPreimage: p.preimage } : {}) };
  }
}

/** A fresh valid secret key. */
export function freshKey(): Uint8Array {
  for (;;) {
    const k = randomBytes(32);
    try {
      pubkeyFromSecret(k);
      return k;
    } catch {
      // out of range: draw again
    }
  }
}
