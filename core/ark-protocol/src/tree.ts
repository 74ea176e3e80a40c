/**
 * The round VTXO tree (bark's `ark::tree::signed`): the tree specification carried in
 * `VtxoProposal.vtxos_spec`, the stored signed form, the radix-4 tree shape and the unsigned
 * tree transactions with the sighashes the cosigners sign.
 *
 * | Object | Encoding |
 * |---|---|
 * | tree spec | `0x02` ‖ expiry u32 ‖ server pubkey ‖ exit delta u16 ‖ cs N ‖ N global cosign keys ‖ cs M (≥ 1) ‖ M leaf specs |
 * | leaf spec | policy ‖ amount u64 ‖ cosign pubkey (33, or `0x00` if none) ‖ unlock hash (32) |
 * | signed spec | `0x02` ‖ spec ‖ root outpoint ‖ cs K ‖ K signatures; version `0x01` (read only) counts signatures with a u32 |
 *
 * Node list: the M leaves in spec order, then internal nodes appended as created (each takes
 * the next ≤ 4 un-parented nodes as children); the last node is the root.
 *
 * @example
 * ```ts
 * const spec = decodeVtxoTreeSpec(proposal.vtxosSpec);
 * const tree = buildUnsignedVtxoTree(spec, { txid: roundTxid, vout: 0 });
 * tree.internal.map((n) => n.sighash);        // what the cosigners sign, leaves → root
 * treeBranch(tree, myLeafIdx);                // my branch, parent → root
 * ```
 */
import { ProtocolDecodeError, ProtocolError } from "./errors.js";
import { ByteReader, ByteWriter, decodeExact, readOutPoint, writeOutPoint, type OutPoint, type TxOut } from "./encoding.js";
import { readPubkey, toXOnly, writePubkey, aggregateXOnly } from "./keys.js";
import { readUserPolicy, writePolicy, policyScriptPubKey, policyTaproot, type VtxoPolicy, type HarkPolicy, type PolicyContext } from "./policy.js";
import { clauseScript, type HashLockVersion } from "./clause.js";
import { taprootOutput, type TaprootOutput } from "./taproot.js";
import { P2A_SCRIPT } from "./script.js";
import { txid, type Transaction } from "./tx.js";
import { taprootSighash } from "./sighash.js";

/** Tree branching factor. */
export const TREE_RADIX = 4;
/** Encoding version of {@link VtxoTreeSpec}. */
export const VTXO_TREE_SPEC_VERSION = 0x02;
/** Encoding version of {@link SignedVtxoTreeSpec} written today. */
export const SIGNED_VTXO_TREE_SPEC_VERSION = 0x02;
/** Legacy signed-spec version whose signature count is a u32. */
export const SIGNED_VTXO_TREE_SPEC_VERSION_U32 = 0x01;

/** A tree that cannot be built (empty, or amounts out of range). */
export class VtxoTreeError extends ProtocolError {}

/** One leaf of the tree: the requested VTXO plus its round cosigning data. */
export interface VtxoLeafSpec {
  policy: VtxoPolicy;
  amount: bigint;
  /** The participant's per-round cosign key; null for delegated participants and padding. */
  cosignPubkey: Uint8Array | null;
  /** SHA-256 of the unlock preimage revealed after forfeits. */
  unlockHash: Uint8Array;
}

/** Everything that fixes a tree before it is signed. */
export interface VtxoTreeSpec {
  expiryHeight: number;
  serverPubkey: Uint8Array;
  exitDelta: number;
  globalCosignPubkeys: Uint8Array[];
  leaves: VtxoLeafSpec[];
}

/** A tree spec with its root outpoint and one signature per internal node (leaves → root). */
export interface SignedVtxoTreeSpec {
  spec: VtxoTreeSpec;
  rootOutpoint: OutPoint;
  signatures: Uint8Array[];
}

function writeLeaf(w: ByteWriter, l: VtxoLeafSpec): void {
  writePolicy(w, l.policy).u64(l.amount);
  if (l.cosignPubkey) writePubkey(w, l.cosignPubkey);
  else w.u8(0);
  if (l.unlockHash.length !== 32) throw new VtxoTreeError("unlock hash must be 32 bytes");
  w.bytes(l.unlockHash);
}

function readLeaf(r: ByteReader): VtxoLeafSpec {
  const policy = readUserPolicy(r);
  const amount = r.u64();
  const cosignPubkey = r.peekU8() === 0 ? (r.u8(), null) : readPubkey(r);
  return { policy, amount, cosignPubkey, unlockHash: r.bytes(32) };
}

/** Writes a tree spec. */
export function writeVtxoTreeSpec(w: ByteWriter, s: VtxoTreeSpec): ByteWriter {
  if (s.leaves.length === 0) throw new VtxoTreeError("vtxo tree spec must have at least one leaf");
  w.u8(VTXO_TREE_SPEC_VERSION).u32(s.expiryHeight);
  writePubkey(w, s.serverPubkey).u16(s.exitDelta).compactSize(s.globalCosignPubkeys.length);
  for (const k of s.globalCosignPubkeys) writePubkey(w, k);
  w.compactSize(s.leaves.length);
  for (const l of s.leaves) writeLeaf(w, l);
  return w;
}

/** Reads a tree spec (rejects an unknown version and zero leaves). */
export function readVtxoTreeSpec(r: ByteReader): VtxoTreeSpec {
  const version = r.u8();
  if (version !== VTXO_TREE_SPEC_VERSION) throw new ProtocolDecodeError(`invalid VtxoTreeSpec encoding version byte: 0x${version.toString(16)}`);
  const expiryHeight = r.height();
  const serverPubkey = readPubkey(r);
  const exitDelta = r.delta();
  const nGlobal = r.count(33, "global cosign pubkeys");
  const globalCosignPubkeys: Uint8Array[] = [];
  for (let i = 0; i < nGlobal; i++) globalCosignPubkeys.push(readPubkey(r));
  // smallest leaf: policy (34) + amount (8) + absent key (1) + hash (32)
  const nLeaves = r.count(75, "tree leaves");
  if (nLeaves === 0) throw new ProtocolDecodeError("vtxo tree spec must have at least one leaf");
  const leaves: VtxoLeafSpec[] = [];
  for (let i = 0; i < nLeaves; i++) leaves.push(readLeaf(r));
  return { expiryHeight, serverPubkey, exitDelta, globalCosignPubkeys, leaves };
}

/** Encodes a tree spec. */
export function encodeVtxoTreeSpec(s: VtxoTreeSpec): Uint8Array {
  return writeVtxoTreeSpec(new ByteWriter(), s).finish();
}

/** Decodes a whole tree spec. */
export function decodeVtxoTreeSpec(bytes: Uint8Array): VtxoTreeSpec {
  return decodeExact(bytes, readVtxoTreeSpec);
}

/** Encodes a signed tree spec (version 2). */
export function encodeSignedVtxoTreeSpec(s: SignedVtxoTreeSpec): Uint8Array {
  const w = new ByteWriter().u8(SIGNED_VTXO_TREE_SPEC_VERSION);
  writeVtxoTreeSpec(w, s.spec);
  writeOutPoint(w, s.rootOutpoint).compactSize(s.signatures.length);
  for (const sig of s.signatures) {
    if (sig.length !== 64) throw new VtxoTreeError("tree signatures are 64 bytes");
    w.bytes(sig);
  }
  return w.finish();
}

/** Decodes a signed tree spec, version 2 or the legacy version 1 (u32 signature count). */
export function decodeSignedVtxoTreeSpec(bytes: Uint8Array): SignedVtxoTreeSpec {
  return decodeExact(bytes, (r) => {
    const version = r.u8();
    if (version !== SIGNED_VTXO_TREE_SPEC_VERSION && version !== SIGNED_VTXO_TREE_SPEC_VERSION_U32) {
      throw new ProtocolDecodeError(`invalid SignedVtxoTreeSpec encoding version byte: 0x${version.toString(16)}`);
    }
    const spec = readVtxoTreeSpec(r);
    const rootOutpoint = readOutPoint(r);
    let n: number;
    if (version === SIGNED_VTXO_TREE_SPEC_VERSION_U32) {
      n = r.u32();
      if (n * 64 > r.remaining) throw new ProtocolDecodeError("signature count exceeds remaining input");
    } else {
      n = r.count(64, "tree signatures");
    }
    const signatures: Uint8Array[] = [];
    for (let i = 0; i < n; i++) signatures.push(r.bytes(64));
    return { spec, rootOutpoint, signatures };
  });
}

/** One node of the tree shape. */
export interface TreeNode {
  idx: number;
  parent: number | null;
  /** Child node indices in output order (empty for leaves). */
  children: number[];
  /** Leaf indices covered by this node (contiguous). */
  leaves: number[];
  /** 0 for leaves; 1 + the maximum child level otherwise. */
  level: number;
}

/** Total number of nodes (leaves + internal) of a tree with `nbLeaves` leaves. */
export function treeNodeCount(nbLeaves: number): number {
  if (!Number.isSafeInteger(nbLeaves) || nbLeaves < 1) throw new VtxoTreeError("trees can't be empty");
  let n = nbLeaves;
  let left = nbLeaves;
  while (left > 1) {
    left -= Math.min(left, TREE_RADIX) - 1;
    n++;
  }
  return n;
}

/** The radix-4 tree shape, leaves first, root last. */
export function buildTreeShape(nbLeaves: number): TreeNode[] {
  const total = treeNodeCount(nbLeaves);
  const nodes: TreeNode[] = [];
  for (let i = 0; i < nbLeaves; i++) nodes.push({ idx: i, parent: null, children: [], leaves: [i], level: 0 });
  let cursor = 0;
  while (cursor < nodes.length - 1) {
    const idx = nodes.length;
    const children: number[] = [];
    while (cursor < nodes.length && children.length < TREE_RADIX) {
      (nodes[cursor] as TreeNode).parent = idx;
      children.push(cursor++);
    }
    const kids = children.map((c) => nodes[c] as TreeNode);
    nodes.push({ idx, parent: null, children, leaves: kids.flatMap((k) => k.leaves), level: 1 + Math.max(...kids.map((k) => k.level)) });
  }
  if (nodes.length !== total) throw new VtxoTreeError("tree shape invariant broken");
  return nodes;
}

/** The internal-node output taproot: agg(keys) with one TimelockSign(S, E) leaf. */
export function treeInternalTaproot(aggregateKey: Uint8Array, serverPubkey: Uint8Array, expiryHeight: number): TaprootOutput {
  return taprootOutput(aggregateKey, clauseScript({ kind: "timelock-sign", key: toXOnly(serverPubkey), height: expiryHeight }));
}

/** The hArk leaf output policy of a tree leaf (v1 scripts unless `hashLockVersion` is 0). */
export function treeLeafPolicy(leaf: VtxoLeafSpec, hashLockVersion: HashLockVersion = 1): HarkPolicy {
  return { type: hashLockVersion === 1 ? "hark-leaf-v1" : "hark-leaf", userPubkey: leaf.policy.userPubkey, unlockHash: leaf.unlockHash };
}

/** The cosign keys of an internal node: the leaf cosign keys under it, then the global keys. */
export function treeNodeCosignKeys(spec: VtxoTreeSpec, node: TreeNode): Uint8Array[] {
  const keys: Uint8Array[] = [];
  for (const l of node.leaves) {
    const k = (spec.leaves[l] as VtxoLeafSpec).cosignPubkey;
    if (k) keys.push(k);
  }
  return [...keys, ...spec.globalCosignPubkeys];
}

/** Total value of the tree. */
export function treeTotalAmount(spec: VtxoTreeSpec): bigint {
  return spec.leaves.reduce((s, l) => s + l.amount, 0n);
}

/** Rounds pad trees to at least this many leaves: a one-leaf tree has no node tx to fund. */
export const MIN_TREE_LEAVES = 2;

function checkBuildable(spec: VtxoTreeSpec): void {
  if (spec.leaves.length < MIN_TREE_LEAVES) throw new VtxoTreeError("a round tree needs at least two leaves (pad it)");
}

/** The round funding output the tree spends: agg of every cosign key, value = Σ leaves. */
export function vtxoTreeFundingOutput(spec: VtxoTreeSpec): TxOut {
  checkBuildable(spec);
  const shape = buildTreeShape(spec.leaves.length);
  const root = shape[shape.length - 1] as TreeNode;
  const tr = treeInternalTaproot(aggregateXOnly(treeNodeCosignKeys(spec, root)), spec.serverPubkey, spec.expiryHeight);
  return { value: treeTotalAmount(spec), script: tr.scriptPubKey };
}

/** An internal node's signing data. */
export interface TreeNodeSigning {
  /** The node index in {@link UnsignedVtxoTree.shape}. */
  nodeIdx: number;
  /** Keys that co-sign this node's tx (its own input). */
  cosignKeys: Uint8Array[];
  /** x-only tweak = TapTweak of the spent output. */
  tweak: Uint8Array;
  /** The key-path sighash of the node tx. */
  sighash: Uint8Array;
  /** The output being spent. */
  prevout: TxOut;
}

/** The unsigned tree: one tx per node (leaf txs spend the hArk leaf outputs). */
export interface UnsignedVtxoTree {
  spec: VtxoTreeSpec;
  shape: TreeNode[];
  /** Index = node index (leaves first, root last). */
  txs: Transaction[];
  /** Internal nodes in leaves → root order (the order of signatures). */
  internal: TreeNodeSigning[];
  /** Per leaf: the hArk leaf taproot its leaf tx spends. */
  leafTaproots: TaprootOutput[];
}

const emptyInput = (prevout: OutPoint) => ({ prevout, scriptSig: new Uint8Array(0), sequence: 0, witness: [] as Uint8Array[] });

/**
 * Builds every tree tx for a funding output at `rootOutpoint`: node txs pay
 * their children (hArk leaf outputs for leaves, cosign taproots for internal children) plus a
 * P2A anchor; leaf txs pay the requested VTXO policy plus a P2A anchor; all v3, zero fee.
 * Needs at least {@link MIN_TREE_LEAVES} leaves.
 */
export function buildUnsignedVtxoTree(spec: VtxoTreeSpec, rootOutpoint: OutPoint, hashLockVersion: HashLockVersion = 1): UnsignedVtxoTree {
  checkBuildable(spec);
  const shape = buildTreeShape(spec.leaves.length);
  const ctx: PolicyContext = { serverPubkey: spec.serverPubkey, exitDelta: spec.exitDelta, expiryHeight: spec.expiryHeight };
  const leafTaproots = spec.leaves.map((l) => policyTaproot(treeLeafPolicy(l, hashLockVersion), ctx));
  const nodeTaproot: TaprootOutput[] = [];
  const value: bigint[] = [];
  const outputsOf: TxOut[][] = [];
  for (const node of shape) {
    if (node.children.length === 0) {
      const leaf = spec.leaves[node.idx] as VtxoLeafSpec;
      if (leaf.amount <= 0n) throw new VtxoTreeError("tree leaf amount must be positive");
      nodeTaproot.push(leafTaproots[node.idx] as TaprootOutput);
      value.push(leaf.amount);
      outputsOf.push([{ value: leaf.amount, script: policyScriptPubKey(leaf.policy, ctx) }, { value: 0n, script: P2A_SCRIPT }]);
    } else {
      nodeTaproot.push(treeInternalTaproot(aggregateXOnly(treeNodeCosignKeys(spec, node)), spec.serverPubkey, spec.expiryHeight));
      value.push(node.children.reduce((s, c) => s + (value[c] as bigint), 0n));
      outputsOf.push([
        ...node.children.map((c) => ({ value: value[c] as bigint, script: (nodeTaproot[c] as TaprootOutput).scriptPubKey })),
        { value: 0n, script: P2A_SCRIPT },
      ]);
    }
  }
  const txs: Transaction[] = new Array<Transaction>(shape.length);
  const prevouts: TxOut[] = new Array<TxOut>(shape.length);
  const rootIdx = shape.length - 1;
  const build = (idx: number, prevout: OutPoint): void => {
    const tx: Transaction = { version: 3, locktime: 0, inputs: [emptyInput(prevout)], outputs: outputsOf[idx] as TxOut[] };
    txs[idx] = tx;
    const id = txid(tx);
    (shape[idx] as TreeNode).children.forEach((c, i) => {
      prevouts[c] = (tx.outputs[i] as TxOut);
      build(c, { txid: id, vout: i });
    });
  };
  prevouts[rootIdx] = { value: value[rootIdx] as bigint, script: (nodeTaproot[rootIdx] as TaprootOutput).scriptPubKey };
  build(rootIdx, rootOutpoint);
  const internal: TreeNodeSigning[] = shape
    .filter((n) => n.children.length > 0)
    .map((n) => ({
      nodeIdx: n.idx,
      cosignKeys: treeNodeCosignKeys(spec, n),
      tweak: (nodeTaproot[n.idx] as TaprootOutput).tweak,
      sighash: taprootSighash(txs[n.idx] as Transaction, 0, [prevouts[n.idx] as TxOut]),
      prevout: prevouts[n.idx] as TxOut,
    }));
  return { spec, shape, txs, internal, leafTaproots };
}

/**
 * Script-path sighash of a leaf tx spending its hArk leaf output through the unlock
 * (hash-sign) clause: the message of the untweaked MuSig2(user, server) leaf co-signature.
 */
export function treeLeafUnlockSighash(tree: UnsignedVtxoTree, leafIdx: number): Uint8Array {
  const tr = tree.leafTaproots[leafIdx];
  const tx = tree.txs[leafIdx];
  const leaf = tree.spec.leaves[leafIdx];
  if (!tr || !tx || !leaf) throw new VtxoTreeError("leaf index out of range");
  const unlock = tr.leaves[1];
  if (!unlock) throw new VtxoTreeError("hArk leaf output has no unlock clause");
  return taprootSighash(tx, 0, [{ value: leaf.amount, script: tr.scriptPubKey }], { leafHash: unlock.leafHash });
}

/** The node txs from a leaf's parent up to the root (the branch a leaf cosigner signs). */
export function treeBranch(tree: UnsignedVtxoTree, leafIdx: number): TreeNodeSigning[] {
  const out: TreeNodeSigning[] = [];
  let p = (tree.shape[leafIdx] as TreeNode | undefined)?.parent ?? null;
  while (p !== null) {
    const n = p;
    out.push(tree.internal.find((s) => s.nodeIdx === n) as TreeNodeSigning);
    p = (tree.shape[p] as TreeNode).parent;
  }
  return out;
}
