/**
 * Taproot construction (BIP-341): leaf and branch hashes, the TapTweak, output
 * keys, control blocks, P2TR scripts and addresses.
 *
 * Protocol outputs use three shapes: key-path only, one leaf at depth 0, or two leaves at
 * depth 1. {@link taprootOutput} accepts any binary tree so the BIP-341 vectors can test it.
 *
 * @example
 * ```ts
 * const out = taprootOutput(internalXOnly, [scriptA, scriptB]);
 * out.scriptPubKey;               // 5120…
 * out.leaves[0]!.controlBlock;    // c0|parity ‖ internal ‖ leafHash(scriptB)
 * ```
 */
import { bech32m } from "@scure/base";
import { ProtocolDecodeError } from "./errors.js";
import { ecc } from "./secp256k1-ops.js";
import { belowCurveOrder } from "./scalar-bytes.js";
import { compareBytes, concatBytes, toHex, ByteWriter } from "./encoding.js";
import { taggedHash } from "./hashes.js";
import { p2trScript } from "./script.js";
import { segwitHrp, type Network } from "./network.js";

/** Tapscript leaf version used by every protocol leaf. */
export const TAPSCRIPT_LEAF_VERSION = 0xc0;

/** A leaf of a script tree. */
export interface TapLeafInput {
  readonly script: Uint8Array;
  readonly leafVersion?: number;
}

/** A script tree: a leaf, or a pair of subtrees. */
export type TapTree = TapLeafInput | Uint8Array | readonly [TapTree, TapTree];

/** A leaf of a built taproot output, with what a script-path spend needs. */
export interface TapLeaf {
  readonly script: Uint8Array;
  readonly leafVersion: number;
  readonly depth: number;
  readonly leafHash: Uint8Array;
  readonly controlBlock: Uint8Array;
}

/** A fully computed P2TR output. */
export interface TaprootOutput {
  readonly internalKey: Uint8Array;
  /** Leaves in the order they appear in the tree (left to right). */
  readonly leaves: readonly TapLeaf[];
  readonly merkleRoot: Uint8Array | null;
  readonly tweak: Uint8Array;
  readonly outputKey: Uint8Array;
  readonly parity: 0 | 1;
  readonly scriptPubKey: Uint8Array;
}

/** `TaggedHash("TapLeaf", version ‖ compactsize(len) ‖ script)`. */
export function tapLeafHash(script: Uint8Array, leafVersion = TAPSCRIPT_LEAF_VERSION): Uint8Array {
  return taggedHash("TapLeaf", new ByteWriter().u8(leafVersion).varBytes(script).finish());
}

/** `TaggedHash("TapBranch", min(a,b) ‖ max(a,b))`. */
export function tapBranchHash(a: Uint8Array, b: Uint8Array): Uint8Array {
  return compareBytes(a, b) <= 0 ? taggedHash("TapBranch", a, b) : taggedHash("TapBranch", b, a);
}

/** `TaggedHash("TapTweak", internal ‖ merkleRoot?)`. */
export function tapTweakHash(internalKey: Uint8Array, merkleRoot: Uint8Array | null): Uint8Array {
  return merkleRoot ? taggedHash("TapTweak", internalKey, merkleRoot) : taggedHash("TapTweak", internalKey);
}

/**
 * x-only tweak `Q = lift_x(internal) + t·G`; returns the x-only output key and its parity.
 * Throws {@link ProtocolDecodeError} if `t ≥ n`, the key is invalid or Q is infinity.
 */
export function tweakXOnly(internalKey: Uint8Array, tweak: Uint8Array): { outputKey: Uint8Array; parity: 0 | 1 } {
  if (!belowCurveOrder(tweak)) throw new ProtocolDecodeError("tap tweak is not a valid secp256k1 scalar");
  if (internalKey.length !== 32) throw new ProtocolDecodeError("invalid x-only key");
  const cacheKey = toHex(internalKey) + toHex(tweak);
  const cached = tweakCache.get(cacheKey);
  if (cached) return { outputKey: Uint8Array.from(cached.outputKey), parity: cached.parity };
  if (!ecc.isXOnlyPoint(internalKey)) throw new ProtocolDecodeError("invalid x-only key");
  const r = ecc.xOnlyPointAddTweak(internalKey, tweak);
  if (!r) throw new ProtocolDecodeError("tweaked key is the point at infinity");
  if (tweakCache.size >= TWEAK_CACHE_MAX) tweakCache.clear();
  tweakCache.set(cacheKey, { outputKey: Uint8Array.from(r.xOnlyPubkey), parity: r.parity });
  return { outputKey: r.xOnlyPubkey, parity: r.parity };
}

// Exit chains and trees are rebuilt from the same outputs again and again (every validation of
// a VTXO, every registration): tweak results are memoised (bounded; public data, returned as copies).
const TWEAK_CACHE_MAX = 4096;
const tweakCache = new Map<string, { outputKey: Uint8Array; parity: 0 | 1 }>();

interface Walked {
  hash: Uint8Array;
  leaves: Array<{ script: Uint8Array; leafVersion: number; leafHash: Uint8Array; path: Uint8Array[] }>;
}

function isPair(t: TapTree): t is readonly [TapTree, TapTree] {
  return Array.isArray(t);
}

function walk(tree: TapTree): Walked {
  if (isPair(tree)) {
    const l = walk(tree[0]);
    const r = walk(tree[1]);
    for (const leaf of l.leaves) leaf.path.push(r.hash);
    for (const leaf of r.leaves) leaf.path.push(l.hash);
    return { hash: tapBranchHash(l.hash, r.hash), leaves: [...l.leaves, ...r.leaves] };
  }
  const leaf = tree instanceof Uint8Array ? { script: tree } : (tree as TapLeafInput);
  const leafVersion = leaf.leafVersion ?? TAPSCRIPT_LEAF_VERSION;
  const leafHash = tapLeafHash(leaf.script, leafVersion);
  return { hash: leafHash, leaves: [{ script: leaf.script, leafVersion, leafHash, path: [] }] };
}

/**
 * Builds the P2TR output of `internalKey` (x-only) with an optional script tree. A plain array
 * of two scripts is the two-leaf shape (both at depth 1); a single script is depth 0.
 */
export function taprootOutput(internalKey: Uint8Array, tree?: TapTree | null): TaprootOutput {
  const walked = tree ? walk(tree) : null;
  const merkleRoot = walked ? walked.hash : null;
  const tweak = tapTweakHash(internalKey, merkleRoot);
  const { outputKey, parity } = tweakXOnly(internalKey, tweak);
  const leaves: TapLeaf[] = (walked?.leaves ?? []).map((l) => ({
    script: l.script,
    leafVersion: l.leafVersion,
    depth: l.path.length,
    leafHash: l.leafHash,
    controlBlock: concatBytes(Uint8Array.of(l.leafVersion | parity), internalKey, ...l.path),
  }));
  return { internalKey, leaves, merkleRoot, tweak, outputKey, parity, scriptPubKey: p2trScript(outputKey) };
}

/** Segwit v1 (bech32m) address of a taproot output key. */
export function p2trAddress(outputKey: Uint8Array, network: Network): string {
  if (outputKey.length !== 32) throw new RangeError("taproot output key must be 32 bytes");
  return bech32m.encode(segwitHrp(network), [1, ...bech32m.toWords(outputKey)]);
}
