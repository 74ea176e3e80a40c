/**
 * The hArk swap after a round, for interactive and delegated participants alike: the server's
 * half of a leaf's hash-lock spend, forfeit nonces, and forfeits in exchange for the unlock
 * preimage.
 *
 * | RPC | Refusals |
 * |---|---|
 * | `RequestLeafVtxoCosign` | unknown VTXO (NOT_FOUND); "VTXO's chain anchor is not a known round" |
 * | `RequestForfeitNonces` | "too many vtxo ids, max is 1000"; "unknown unlock hash" (NOT_FOUND); "vtxo with id X is not part of this round participation" |
 * | `ForfeitVtxos` | "zero forfeit bundles provided"; "not all forfeit bundles have same unlock hash"; duplicate ids; "unknown unlock hash"; "… is not part of this round participation"; "missing input vtxos: …"; "no forfeit nonces generated for vtxo X"; "forfeit validation failed for vtxo X: …" |
 *
 * Leaf co-signatures use deterministic MuSig2 signing (repeatable, no nonce state: the
 * signature is useless without the preimage). Forfeit nonces live in memory only, one per input
 * and unlock hash, are taken when used, and are forgotten at a round start once older than
 * `round_forfeit_nonces_timeout`; after a restart the client simply asks again.
 */
import {
  ForfeitError,
  buildUnsignedVtxoTree,
  completeForfeit,
  decodeForfeitBundle,
  decodeSignedVtxoTreeSpec,
  decodeVtxo,
  encodeTx,
  formatOutPoint,
  fromHex,
  musigNonceGen,
  musigRespondCosignDeterministic,
  reverseBytes,
  toHex,
  treeLeafUnlockSighash,
  txidHex,
  verifyForfeitBundle,
  type ForfeitableVtxo,
  type HashLockedForfeitBundle,
  type MusigCosignResponse,
  type MusigNonce,
} from "@tender/ark-protocol";
import { musigNonceFromBytes, vtxoIdText } from "../request-decoding.js";
import { BadUserInputError, NotFoundError, RequestConversionError } from "../server-errors.js";
import type { ServerContext } from "../server-context.js";
import { checkRoundPver } from "./round-requests.js";
import { ForfeitStateError, type ForfeitRecord, type RoundStore, type StoredParticipation } from "./round-store.js";

/** Most ids in one `RequestForfeitNonces`. */
export const MAX_FORFEIT_NONCE_IDS = 1000;

interface HeldNonce {
  readonly unlockHash: string;
  readonly nonce: MusigNonce;
  readonly createdAt: number;
}

/** The server side of the hArk swap. */
export class HarkSwap {
  private readonly nonces = new Map<string, HeldNonce>();

  constructor(
    private readonly ctx: ServerContext,
    private readonly rounds: RoundStore,
  ) {}

  /** Forgets forfeit nonces created before `cutoffMs` (unix ms). */
  expireNonces(cutoffMs: number): void {
    for (const [id, n] of this.nonces) if (n.createdAt < cutoffMs) this.nonces.delete(id);
  }

  /** `RequestLeafVtxoCosign`. */
  async requestLeafVtxoCosign(vtxoIdBytes: Uint8Array | undefined, pubNonceBytes: Uint8Array | undefined, pver: number): Promise<MusigCosignResponse> {
    checkRoundPver(pver);
    const id = vtxoIdText(vtxoIdBytes);
    const userNonce = musigNonceFromBytes(pubNonceBytes);
    const row = await this.ctx.store.getVtxo(id);
    if (!row) throw new NotFoundError("vtxo not found", [id]);
    const vtxo = decodeVtxo(row.bytes);
    const round = await this.rounds.getRound(toHex(reverseBytes(vtxo.anchorPoint.txid)));
    if (!round) throw new BadUserInputError("VTXO's chain anchor is not a known round", undefined, [id]);
    const signed = decodeSignedVtxoTreeSpec(round.signedTree);
    const tree = buildUnsignedVtxoTree(signed.spec, signed.rootOutpoint);
    // a round output is output 0 of its leaf tx
    const leafIdx = signed.spec.leaves.findIndex((_, i) => `${txidHex(tree.txs[i]!)}:0` === id);
    if (leafIdx < 0) throw new BadUserInputError("VTXO is not a leaf of its round", undefined, [id]);
    const leaf = signed.spec.leaves[leafIdx]!;
    const { serverSecret, serverPubkey } = this.ctx.keys;
    return musigRespondCosignDeterministic({ secretKey: serverSecret, pubkey: serverPubkey, otherPubkey: leaf.policy.userPubkey, otherPubNonce: userNonce, message: treeLeafUnlockSighash(tree, leafIdx) });
  }

  private async participation(unlockHash: Uint8Array | undefined): Promise<StoredParticipation> {
    if (!unlockHash || unlockHash.length !== 32) throw new RequestConversionError("invalid unlock hash");
    const hex = toHex(unlockHash);
    const p = await this.rounds.getParticipation(hex);
    if (!p) throw new NotFoundError("unknown unlock hash", [hex]);
    return p;
  }

  /** `RequestForfeitNonces`: one server nonce per id, the held one when it exists for this unlock hash. */
  async requestForfeitNonces(unlockHash: Uint8Array | undefined, idBytes: readonly Uint8Array[], pver: number): Promise<Uint8Array[]> {
    checkRoundPver(pver);
    if (idBytes.length > MAX_FORFEIT_NONCE_IDS) throw new BadUserInputError(`too many vtxo ids, max is ${MAX_FORFEIT_NONCE_IDS}`);
    const ids = idBytes.map((b) => vtxoIdText(b));
    const p = await this.participation(unlockHash);
    for (const id of ids) if (!p.inputs.includes(id)) throw new BadUserInputError(`vtxo with id ${id} is not part of this round participation`, undefined, [id]);
    const { serverSecret, serverPubkey } = this.ctx.keys;
    return ids.map((id) => {
      const held = this.nonces.get(id);
      if (held && held.unlockHash === p.unlockHash) return held.nonce.pubNonce;
      const nonce = musigNonceGen({ pubkey: serverPubkey, secretKey: serverSecret });
      this.nonces.set(id, { unlockHash: p.unlockHash, nonce, createdAt: Date.now() });
      return nonce.pubNonce;
    });
  }

  /** `ForfeitVtxos`: verifies and completes every forfeit, persists them, returns the unlock preimage. */
  async forfeitVtxos(bundleBytes: readonly Uint8Array[], pver: number): Promise<Uint8Array> {
    checkRoundPver(pver);
    const bundles: HashLockedForfeitBundle[] = bundleBytes.map((b) => {
      try {
        return decodeForfeitBundle(b);
      } catch {
        throw new RequestConversionError("invalid forfeit bundle");
      }
    });
    if (bundles.length === 0) throw new BadUserInputError("zero forfeit bundles provided");
    const hash = toHex(bundles[0]!.unlockHash);
    if (bundles.some((b) => toHex(b.unlockHash) !== hash)) throw new BadUserInputError("not all forfeit bundles have same unlock hash");
    const ids = bundles.map((b) => formatOutPoint(b.vtxoId));
    const dup = ids.find((id, i) => ids.indexOf(id) !== i);
    if (dup) throw new BadUserInputError(`duplicate forfeit bundle for vtxo ${dup}`, undefined, [dup]);
    const p = await this.participation(fromHex(hash));
    if (p.forfeitedAt) return p.unlockPreimage;
    for (const id of ids) if (!p.inputs.includes(id)) throw new BadUserInputError(`vtxo with id ${id} is not part of this round participation`, undefined, [id]);
    const missing = p.inputs.filter((id) => !ids.includes(id));
    if (missing.length) throw new BadUserInputError(`missing input vtxos: ${missing.join(", ")}`, undefined, missing);
    if (!p.roundId) throw new BadUserInputError("round participation is not part of a round yet");

    const work = await Promise.all(
      bundles.map(async (bundle, i) => {
        const id = ids[i]!;
        const held = this.nonces.get(id);
        if (!held) throw new BadUserInputError(`no forfeit nonces generated for vtxo ${id}`, undefined, [id]);
        if (held.unlockHash !== hash) throw new BadUserInputError(`forfeit nonce for vtxo ${id} was generated for another unlock hash`, undefined, [id]);
        const row = await this.ctx.store.getVtxo(id);
        if (!row) throw new NotFoundError("vtxo not found", [id]);
        return { id, bundle, held, vtxo: decodeVtxo(row.bytes) };
      }),
    );
    const { serverSecret } = this.ctx.keys;
    // verify every bundle before the server spends any of its nonces
    for (const w of work) {
      try {
        completeForfeitCheck(w.vtxo, w.bundle, w.held.nonce.pubNonce);
      } catch (e) {
        throw new BadUserInputError(`forfeit validation failed for vtxo ${w.id}: ${e instanceof Error ? e.message : String(e)}`, undefined, [w.id]);
      }
    }
    const records: ForfeitRecord[] = work.map((w) => {
      this.nonces.delete(w.id);
      const done = completeForfeit(w.vtxo, w.bundle, { secretKey: serverSecret, secNonce: w.held.nonce.secNonce, pubNonce: w.held.nonce.pubNonce });
      return { vtxoId: w.id, forfeitTxid: txidHex(done.tx), forfeitTx: encodeTx(done.tx) };
    });
    try {
      await this.rounds.recordForfeits(p, records);
    } catch (e) {
      if (e instanceof ForfeitStateError) throw new BadUserInputError(e.message, undefined, [e.id]);
      throw e;
    }
    this.ctx.logger.debug(`round participation ${hash}: ${records.length} input(s) forfeited, preimage released`);
    return p.unlockPreimage;
  }
}

/** Throws when the user's half of the forfeit does not verify (the server nonce stays unused). */
function completeForfeitCheck(vtxo: ForfeitableVtxo, bundle: HashLockedForfeitBundle, serverPubNonce: Uint8Array): void {
  if (!verifyForfeitBundle(vtxo, bundle, serverPubNonce)) throw new ForfeitError("partial signature does not verify");
}
