/**
 * Signing a round tree and the VTXOs it creates (bark's `ark::tree::signed`).
 *
 * | Who | Supplies |
 * |---|---|
 * | each leaf with a cosign key | `nb_round_nonces` public nonces; nonce `k` is used for its ancestor at internal level `k` (levels an edge branch skips leave nonces unused) |
 * | each global cosigner (the server) | one nonce per internal node, leaves → root |
 * | aggregated nonce of a node | the level-`k` nonces of every cosigning leaf under it + the global nonces for that node |
 * | a leaf cosigner | partial signatures for the internal nodes of its branch, leaf's parent → root |
 * | final | one signature per internal node, leaves → root |
 *
 * A round VTXO's genesis is one `cosigned` item per node from the root down to the leaf's
 * parent, then one `hash-locked-cosigned` item for the leaf tx.
 *
 * @example
 * ```ts
 * const agg = treeAggNonces(tree, leafNoncesByKey, [serverNonces]);
 * const mine = treeCosignBranch(tree, agg, myLeafIdx, cosignSecretKey, mySecNonces);
 * const sigs = treeCombinePartials(tree, agg, partialsByKey);            // server
 * const vtxo = treeLeafVtxo(tree, myLeafIdx, sigs, leafUnlockSig, { type: "preimage", preimage });
 * ```
 */
import { ProtocolError } from "./errors.js";
import { toHex, type TxOut } from "./encoding.js";
import type { VtxoPolicy } from "./policy.js";
import type { HashLockVersion } from "./clause.js";
import { txid, type Transaction } from "./tx.js";
import type { Vtxo } from "./vtxo.js";
import type { GenesisItem, Unlock } from "./vtxo-genesis.js";
import { MusigSession, musigNonceAgg, type MusigNonce } from "./musig.js";
import { treeBranch, type TreeNode, type TreeNodeSigning, type UnsignedVtxoTree, type VtxoLeafSpec } from "./tree.js";

/** A tree signing step that cannot proceed (missing nonces, bad partial signature). */
export class TreeSigningError extends ProtocolError {}

/** Internal level of a node (level − 1). */
export function internalLevel(tree: UnsignedVtxoTree, nodeIdx: number): number {
  const n = tree.shape[nodeIdx];
  if (!n || n.children.length === 0) throw new TreeSigningError("not an internal node");
  return n.level - 1;
}

/** Number of nonces each cosigning leaf must supply: the depth of internal levels. */
export function treeNoncesPerLeaf(tree: UnsignedVtxoTree): number {
  return (tree.shape[tree.shape.length - 1] as TreeNode).level;
}

function leafNoncesFor(leafNonces: ReadonlyMap<string, readonly Uint8Array[]>, key: Uint8Array, level: number): Uint8Array {
  const list = leafNonces.get(toHex(key));
  const n = list?.[level];
  if (!n) throw new TreeSigningError(`missing nonce ${level} of leaf cosign key ${toHex(key)}`);
  return n;
}

/**
 * Aggregated nonce of every internal node, leaves → root. `leafNonces` maps a leaf cosign
 * pubkey (hex) to its nonces by level; `globalNonces[g][i]` is global cosigner g's nonce for
 * internal node i.
 */
export function treeAggNonces(tree: UnsignedVtxoTree, leafNonces: ReadonlyMap<string, readonly Uint8Array[]>, globalNonces: readonly (readonly Uint8Array[])[]): Uint8Array[] {
  if (globalNonces.length !== tree.spec.globalCosignPubkeys.length) throw new TreeSigningError("missing global signer nonces");
  return tree.internal.map((node, i) => {
    const level = internalLevel(tree, node.nodeIdx);
    const nonces: Uint8Array[] = [];
    for (const l of (tree.shape[node.nodeIdx] as TreeNode).leaves) {
      const k = (tree.spec.leaves[l] as VtxoLeafSpec).cosignPubkey;
      if (k) nonces.push(leafNoncesFor(leafNonces, k, level));
    }
    for (const g of globalNonces) {
      const n = g[i];
      if (!n) throw new TreeSigningError(`missing global nonce for internal node ${i}`);
      nonces.push(n);
    }
    return musigNonceAgg(nonces);
  });
}

function sessionFor(tree: UnsignedVtxoTree, aggNonces: readonly Uint8Array[], node: TreeNodeSigning): MusigSession {
  const i = tree.internal.indexOf(node);
  const aggNonce = aggNonces[i];
  if (!aggNonce) throw new TreeSigningError("missing aggregated nonce");
  return new MusigSession({ pubkeys: node.cosignKeys, aggNonce, message: node.sighash, tweak: node.tweak });
}

/**
 * A leaf cosigner's partial signatures for its branch (leaf's parent → root), using its secret
 * nonce of each node's internal level. Consumes the used secret nonces.
 */
export function treeCosignBranch(tree: UnsignedVtxoTree, aggNonces: readonly Uint8Array[], leafIdx: number, cosignSecretKey: Uint8Array, secNonces: readonly MusigNonce[]): Uint8Array[] {
  return treeBranch(tree, leafIdx).map((node) => {
    const nonce = secNonces[internalLevel(tree, node.nodeIdx)];
    if (!nonce) throw new TreeSigningError("missing secret nonce for a branch level");
    return sessionFor(tree, aggNonces, node).sign(nonce.secNonce, cosignSecretKey);
  });
}

/** A global cosigner's partial signatures for every internal node (leaves → root). */
export function treeCosignAll(tree: UnsignedVtxoTree, aggNonces: readonly Uint8Array[], secretKey: Uint8Array, secNonces: readonly MusigNonce[]): Uint8Array[] {
  return tree.internal.map((node, i) => {
    const nonce = secNonces[i];
    if (!nonce) throw new TreeSigningError("missing global secret nonce");
    return sessionFor(tree, aggNonces, node).sign(nonce.secNonce, secretKey);
  });
}

/**
 * Combines partial signatures into one final signature per internal node (leaves → root).
 * `partials` maps a cosign pubkey (hex) to its partial signatures: a leaf cosigner's in branch
 * order (as {@link treeCosignBranch} returns them), a global cosigner's for every node.
 */
export function treeCombinePartials(tree: UnsignedVtxoTree, aggNonces: readonly Uint8Array[], partials: ReadonlyMap<string, readonly Uint8Array[]>): Uint8Array[] {
  const perNode: Uint8Array[][] = tree.internal.map(() => []);
  tree.spec.leaves.forEach((leaf, leafIdx) => {
    if (!leaf.cosignPubkey) return;
    const sigs = partials.get(toHex(leaf.cosignPubkey));
    if (!sigs) throw new TreeSigningError(`missing partial signatures of ${toHex(leaf.cosignPubkey)}`);
    treeBranch(tree, leafIdx).forEach((node, j) => {
      const s = sigs[j];
      if (!s) throw new TreeSigningError("too few branch partial signatures");
      perNode[tree.internal.indexOf(node)]!.push(s);
    });
  });
  for (const g of tree.spec.globalCosignPubkeys) {
    const sigs = partials.get(toHex(g));
    if (!sigs || sigs.length !== tree.internal.length) throw new TreeSigningError(`missing partial signatures of global cosigner ${toHex(g)}`);
    sigs.forEach((s, i) => perNode[i]!.push(s));
  }
  return tree.internal.map((node, i) => sessionFor(tree, aggNonces, node).aggregate(perNode[i]!));
}

function nodeItem(tx: Transaction, childIdx: number, pubkeys: Uint8Array[], signature: Uint8Array | null): GenesisItem {
  const outs: TxOut[] = tx.outputs.slice(0, -1);
  return { transition: { kind: "cosigned", pubkeys, signature }, outputIdx: childIdx, otherOutputs: outs.filter((_, i) => i !== childIdx), feeAmount: 0n };
}

/**
 * The VTXO of leaf `leafIdx`: cosigned items root → parent with the node signatures
 * (`nodeSignatures` leaves → root, null entries for unsigned), then the hash-locked leaf item
 * with `leafSignature` (the MuSig2(user, server) unlock-clause signature) and `unlock`.
 */
export function treeLeafVtxo(
  tree: UnsignedVtxoTree,
  leafIdx: number,
  nodeSignatures: readonly (Uint8Array | null)[],
  leafSignature: Uint8Array | null,
  unlock: Unlock,
  hashLockVersion: HashLockVersion = 1,
): Vtxo<VtxoPolicy> {
  const leaf = tree.spec.leaves[leafIdx];
  const leafTx = tree.txs[leafIdx];
  if (!leaf || !leafTx) throw new TreeSigningError("leaf index out of range");
  if (nodeSignatures.length !== tree.internal.length) throw new TreeSigningError("one signature per internal node expected");
  const rootOutpoint = (tree.txs[tree.txs.length - 1] as Transaction).inputs[0]!.prevout;
  const items: GenesisItem[] = [];
  let child = leafIdx;
  for (const node of treeBranch(tree, leafIdx)) {
    const n = tree.shape[node.nodeIdx] as TreeNode;
    items.unshift(nodeItem(tree.txs[node.nodeIdx]!, n.children.indexOf(child), node.cosignKeys, nodeSignatures[tree.internal.indexOf(node)] ?? null));
    child = node.nodeIdx;
  }
  items.push({
    transition: { kind: hashLockVersion === 1 ? "hash-locked-cosigned-v1" : "hash-locked-cosigned", userPubkey: leaf.policy.userPubkey, signature: leafSignature, unlock },
    outputIdx: 0,
    otherOutputs: [],
    feeAmount: 0n,
  });
  return {
    amount: leaf.amount,
    expiryHeight: tree.spec.expiryHeight,
    serverPubkey: tree.spec.serverPubkey,
    exitDelta: tree.spec.exitDelta,
    anchorPoint: rootOutpoint,
    genesis: items,
    policy: leaf.policy,
    point: { txid: txid(leafTx), vout: 0 },
  };
}
