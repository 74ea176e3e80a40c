/**
 * The tree of one round attempt on the server side: the spec with padding, the server's
 * per-attempt nonces and the aggregated nonces, the check of a cosigner's branch partial
 * signatures, and the final signatures once everyone signed.
 *
 * | Piece | Rule |
 * |---|---|
 * | padding | while fewer than 2 leaves: 330 sat, `pubkey` policy of an unspendable key, unlock hash `deadbeef…`, no cosign key |
 * | global cosign key | one fresh key per attempt, the only global key |
 * | server nonces | one per internal node (leaves → root), kept in memory only |
 */
import {
  MIN_TREE_LEAVES,
  MusigSession,
  buildUnsignedVtxoTree,
  fromHex,
  internalLevel,
  musigNonceGen,
  toHex,
  treeAggNonces,
  treeBranch,
  treeCombinePartials,
  treeCosignAll,
  type MusigNonce,
  type OutPoint,
  type UnsignedVtxoTree,
  type VtxoLeafSpec,
  type VtxoTreeSpec,
} from "@tender/ark-protocol";

/** The unspendable key of padding leaves. */
export const PADDING_PUBKEY = fromHex("02dfa52f6690299d2d6a08323083e290597b56fee125063e5f4e2957731639c42c");
/** The unlock hash of padding leaves: `deadbeef` × 8. */
export const PADDING_UNLOCK_HASH = fromHex("deadbeef".repeat(8));
/** The amount of a padding leaf. */
export const PADDING_AMOUNT = 330n;

/** Whether a leaf is padding. */
export function isPaddingLeaf(leaf: VtxoLeafSpec): boolean {
  return leaf.cosignPubkey === null && toHex(leaf.unlockHash) === toHex(PADDING_UNLOCK_HASH) && leaf.policy.type === "pubkey" && toHex(leaf.policy.userPubkey) === toHex(PADDING_PUBKEY);
}

/** The tree spec of an attempt: the given leaves, padded to the minimum. */
export function attemptTreeSpec(p: { leaves: readonly VtxoLeafSpec[]; expiryHeight: number; serverPubkey: Uint8Array; exitDelta: number; cosignPubkey: Uint8Array }): VtxoTreeSpec {
  const leaves = [...p.leaves];
  while (leaves.length < MIN_TREE_LEAVES) leaves.push({ policy: { type: "pubkey", userPubkey: PADDING_PUBKEY }, amount: PADDING_AMOUNT, cosignPubkey: null, unlockHash: PADDING_UNLOCK_HASH });
  return { expiryHeight: p.expiryHeight, serverPubkey: p.serverPubkey, exitDelta: p.exitDelta, globalCosignPubkeys: [p.cosignPubkey], leaves };
}

/** A branch partial-signature set that does not verify. */
export class BranchSignatureError extends Error {}

/** The signing state of one attempt's tree. */
export class AttemptTreeSigning {
  readonly tree: UnsignedVtxoTree;
  readonly aggNonces: Uint8Array[];
  private readonly serverNonces: MusigNonce[];
  /** Per internal node (leaves → root): its signing session, built on first use. */
  private readonly sessions: (MusigSession | undefined)[] = [];
  private leafIndex: Map<string, number> | undefined;

  constructor(
    spec: VtxoTreeSpec,
    rootOutpoint: OutPoint,
    /** Per leaf cosign key (hex): its public nonces by internal level. */
    private readonly leafNonces: ReadonlyMap<string, readonly Uint8Array[]>,
    private readonly cosignSecret: Uint8Array,
  ) {
    this.tree = buildUnsignedVtxoTree(spec, rootOutpoint);
    const cosignPubkey = spec.globalCosignPubkeys[0]!;
    this.serverNonces = this.tree.internal.map(() => musigNonceGen({ pubkey: cosignPubkey, secretKey: cosignSecret }));
    this.aggNonces = treeAggNonces(this.tree, leafNonces, [this.serverNonces.map((n) => n.pubNonce)]);
  }

  /** Leaf index of a cosign key, or -1. */
  leafOf(cosignPubkeyHex: string): number {
    if (!this.leafIndex) {
      this.leafIndex = new Map();
      this.tree.spec.leaves.forEach((l, i) => {
        if (l.cosignPubkey !== null) this.leafIndex!.set(toHex(l.cosignPubkey), i);
      });
    }
    return this.leafIndex.get(cosignPubkeyHex) ?? -1;
  }

  /**
   * Checks a cosigner's partial signatures for its branch (leaf's parent → root); throws
   * {@link BranchSignatureError}. Each node's session is built once per attempt and each
   * signature is checked against the aggregated nonce this server computed from the same
   * nonces, so checking all N cosigners stays linear in the work per node rather than
   * re-aggregating every cosigner's nonce for each of them.
   */
  verifyBranch(cosignPubkey: Uint8Array, sigs: readonly Uint8Array[]): void {
    const keyHex = toHex(cosignPubkey);
    const leafIdx = this.leafOf(keyHex);
    const nonces = this.leafNonces.get(keyHex);
    if (leafIdx < 0 || !nonces) throw new BranchSignatureError("pubkey is not part of cosigner group");
    const branch = treeBranch(this.tree, leafIdx);
    if (sigs.length !== branch.length) throw new BranchSignatureError(`expected ${branch.length} signatures, got ${sigs.length}`);
    branch.forEach((node, j) => {
      const i = this.tree.internal.indexOf(node);
      const pubNonce = nonces[internalLevel(this.tree, node.nodeIdx)];
      const session = (this.sessions[i] ??= new MusigSession({ pubkeys: node.cosignKeys, aggNonce: this.aggNonces[i]!, message: node.sighash, tweak: node.tweak }));
      if (!pubNonce || !session.verifyPartialWithOwnAggNonce(sigs[j]!, cosignPubkey, pubNonce)) throw new BranchSignatureError(`partial signature ${j} does not verify`);
    });
  }

  /** The server signs every node with the attempt key and combines everything: one final signature per internal node, leaves → root. Single use. */
  finalSignatures(partials: ReadonlyMap<string, readonly Uint8Array[]>): Uint8Array[] {
    const all = new Map(partials);
    all.set(toHex(this.tree.spec.globalCosignPubkeys[0]!), treeCosignAll(this.tree, this.aggNonces, this.cosignSecret, this.serverNonces));
    return treeCombinePartials(this.tree, this.aggNonces, all);
  }
}
