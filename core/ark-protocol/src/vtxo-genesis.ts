/**
 * Genesis items and transitions of a VTXO (bark's `ark::vtxo::genesis`): their binary encoding, the
 * output each transition spends, and the witness it provides.
 *
 * | type | kind | spent output |
 * |---|---|---|
 * | 1 | `cosigned` | KeyAgg(pubkeys) internal key, one leaf TimelockSign(S, E) |
 * | 2 | `arkoor` | x-only KeyAgg(cosigners + S) tweaked by `tapTweak` (key path only) |
 * | 3 | `hash-locked-cosigned` (v0) | `hark-leaf` policy of (user, S, E, unlock hash) |
 * | 4 | `hash-locked-cosigned-v1` | `hark-leaf-v1` policy of (user, S, E, unlock hash) |
 *
 * @example
 * ```ts
 * const spent = transitionSpentOutput(item.transition, ctx);
 * spent.scriptPubKey; // the script of the output this genesis item's exit tx spends
 * ```
 */
import { ProtocolDecodeError } from "./errors.js";
import { ByteReader, ByteWriter, bytesEqual, readTxOut, writeTxOut, type Sats, type TxOut } from "./encoding.js";
import { aggregateXOnly, readPubkey, writePubkey } from "./keys.js";
import { belowCurveOrder } from "./scalar-bytes.js";
import { sha256 } from "./hashes.js";
import { clauseScript } from "./clause.js";
import { policyLeafClauses, policyTaproot, type HarkPolicy, type PolicyContext } from "./policy.js";
import { taprootOutput, tweakXOnly, type TapLeaf, type TaprootOutput } from "./taproot.js";
import { p2trScript } from "./script.js";

/** Cooperatively signed tree node / board exit (type 1). */
export interface CosignedTransition {
  readonly kind: "cosigned";
  /** All co-signer pubkeys (≥ 1). */
  readonly pubkeys: readonly Uint8Array[];
  readonly signature: Uint8Array | null;
}

/** Out-of-round payment hop (type 2). */
export interface ArkoorTransition {
  readonly kind: "arkoor";
  /** Client co-signers; the server key is implied and not listed. */
  readonly clientCosigners: readonly Uint8Array[];
  /** TapTweak of the spent output's policy taproot (a scalar < n). */
  readonly tapTweak: Uint8Array;
  readonly signature: Uint8Array | null;
}

/** How a hash-locked transition unlocks: the preimage, or (until revealed) only its hash. */
export type Unlock = { readonly type: "preimage"; readonly preimage: Uint8Array } | { readonly type: "hash"; readonly hash: Uint8Array };

/** hArk leaf transaction (type 3 = v0 scripts, type 4 = v1 scripts). */
export interface HashLockedTransition {
  readonly kind: "hash-locked-cosigned" | "hash-locked-cosigned-v1";
  readonly userPubkey: Uint8Array;
  readonly signature: Uint8Array | null;
  readonly unlock: Unlock;
}

/** A genesis transition. */
export type Transition = CosignedTransition | ArkoorTransition | HashLockedTransition;

/** One exit transaction of the chain, as stored in the VTXO. */
export interface GenesisItem {
  readonly transition: Transition;
  /** Vout of the output that continues the chain (or the VTXO) in this item's exit tx. */
  readonly outputIdx: number;
  /** Other outputs of the exit tx, in order, without the continuing output and the P2A anchor. */
  readonly otherOutputs: readonly TxOut[];
  /** Value of this exit tx's P2A anchor (0 in encoding version 1). */
  readonly feeAmount: Sats;
}

const TRANSITION_TYPE: Readonly<Record<Transition["kind"], number>> = {
  cosigned: 1,
  arkoor: 2,
  "hash-locked-cosigned": 3,
  "hash-locked-cosigned-v1": 4,
};

const ZERO_SIG = new Uint8Array(64);

/** Reads an optional signature: 64 bytes, all zeros meaning absent. */
export function readOptionalSignature(r: ByteReader): Uint8Array | null {
  const sig = r.bytes(64);
  return bytesEqual(sig, ZERO_SIG) ? null : sig;
}

/** Writes an optional signature (64 zero bytes when absent). */
export function writeOptionalSignature(w: ByteWriter, sig: Uint8Array | null): ByteWriter {
  if (sig && sig.length !== 64) throw new RangeError("signature must be 64 bytes");
  return w.bytes(sig ?? ZERO_SIG);
}

/** The unlock hash of a hash-locked transition (SHA-256 of the preimage if known). */
export function unlockHash(unlock: Unlock): Uint8Array {
  return unlock.type === "preimage" ? sha256(unlock.preimage) : unlock.hash;
}

/** Writes a transition (type byte + body). */
export function writeTransition(w: ByteWriter, t: Transition): ByteWriter {
  w.u8(TRANSITION_TYPE[t.kind]);
  switch (t.kind) {
    case "cosigned":
      if (t.pubkeys.length === 0) throw new RangeError("cosigned transition needs at least one pubkey");
      w.compactSize(t.pubkeys.length);
      for (const pk of t.pubkeys) writePubkey(w, pk);
      return writeOptionalSignature(w, t.signature);
    case "arkoor":
      w.compactSize(t.clientCosigners.length);
      for (const pk of t.clientCosigners) writePubkey(w, pk);
      if (t.tapTweak.length !== 32) throw new RangeError("tap tweak must be 32 bytes");
      return writeOptionalSignature(w.bytes(t.tapTweak), t.signature);
    case "hash-locked-cosigned":
    case "hash-locked-cosigned-v1": {
      writeOptionalSignature(writePubkey(w, t.userPubkey), t.signature);
      const data = t.unlock.type === "preimage" ? t.unlock.preimage : t.unlock.hash;
      if (data.length !== 32) throw new RangeError("unlock preimage/hash must be 32 bytes");
      return w.u8(t.unlock.type === "preimage" ? 0 : 1).bytes(data);
    }
  }
}

/** Reads a transition. */
export function readTransition(r: ByteReader): Transition {
  const type = r.u8();
  switch (type) {
    case 1: {
      const n = r.count(33, "cosign pubkeys");
      if (n === 0) throw new ProtocolDecodeError("empty pubkey list");
      const pubkeys: Uint8Array[] = [];
      for (let i = 0; i < n; i++) pubkeys.push(readPubkey(r));
      return { kind: "cosigned", pubkeys, signature: readOptionalSignature(r) };
    }
    case 2: {
      const n = r.count(33, "arkoor cosigners");
      const clientCosigners: Uint8Array[] = [];
      for (let i = 0; i < n; i++) clientCosigners.push(readPubkey(r));
      const tapTweak = r.bytes(32);
      if (!belowCurveOrder(tapTweak)) throw new ProtocolDecodeError("tap tweak is not a valid secp256k1 scalar");
      return { kind: "arkoor", clientCosigners, tapTweak, signature: readOptionalSignature(r) };
    }
    case 3:
    case 4: {
      const userPubkey = readPubkey(r);
      const signature = readOptionalSignature(r);
      const tag = r.u8();
      let unlock: Unlock;
      if (tag === 0) unlock = { type: "preimage", preimage: r.bytes(32) };
      else if (tag === 1) unlock = { type: "hash", hash: r.bytes(32) };
      else throw new ProtocolDecodeError(`invalid unlock tag ${tag}`);
      return { kind: type === 4 ? "hash-locked-cosigned-v1" : "hash-locked-cosigned", userPubkey, signature, unlock };
    }
    default:
      throw new ProtocolDecodeError(`unknown transition type ${type}`);
  }
}

/** Writes a genesis item in encoding version `version` (1: no fee field). */
export function writeGenesisItem(w: ByteWriter, item: GenesisItem, version: 1 | 2 = 2): ByteWriter {
  const nb = item.otherOutputs.length + 1;
  if (nb > 255) throw new RangeError("too many outputs in a genesis item");
  if (!Number.isInteger(item.outputIdx) || item.outputIdx < 0 || item.outputIdx >= nb) throw new RangeError("output_idx out of range");
  writeTransition(w, item.transition).u8(nb).u8(item.outputIdx);
  for (const o of item.otherOutputs) writeTxOut(w, o);
  if (version === 2) w.u64(item.feeAmount);
  else if (item.feeAmount !== 0n) throw new RangeError("encoding version 1 cannot carry a fee amount");
  return w;
}

/** Reads a genesis item of encoding version `version`. */
export function readGenesisItem(r: ByteReader, version: 1 | 2): GenesisItem {
  const transition = readTransition(r);
  const nb = r.u8();
  if (nb === 0) throw new ProtocolDecodeError("genesis item with zero outputs");
  const outputIdx = r.u8();
  if (outputIdx >= nb) throw new ProtocolDecodeError("genesis output_idx out of range");
  const otherOutputs: TxOut[] = [];
  for (let i = 1; i < nb; i++) otherOutputs.push(readTxOut(r));
  const feeAmount = version === 2 ? r.u64() : 0n;
  return { transition, outputIdx, otherOutputs, feeAmount };
}

/** The output a transition spends, with what a signer or verifier needs. */
export interface SpentOutput {
  readonly scriptPubKey: Uint8Array;
  /** The key a key-path signature verifies under, or the untweaked aggregate for script-path. */
  readonly signingKey: Uint8Array;
  /** Full taproot (cosigned and hash-locked transitions; absent for arkoor, which stores only the tweak). */
  readonly taproot: TaprootOutput | null;
  /** The script-path leaf used by hash-locked transitions. */
  readonly unlockLeaf: TapLeaf | null;
  /** x-only KeyAgg of the co-signers (untweaked). */
  readonly aggregateKey: Uint8Array;
  /** The TapTweak of the spent output (MuSig2 x-only tweak for key-path co-signing). */
  readonly tapTweak: Uint8Array;
}

/** hArk leaf policy spent by a hash-locked transition. */
export function hashLockedSpentPolicy(t: HashLockedTransition): HarkPolicy {
  return { type: t.kind === "hash-locked-cosigned-v1" ? "hark-leaf-v1" : "hark-leaf", userPubkey: t.userPubkey, unlockHash: unlockHash(t.unlock) };
}

/** Computes the output a transition spends (its script is fixed by the transition kind). */
export function transitionSpentOutput(t: Transition, ctx: PolicyContext): SpentOutput {
  switch (t.kind) {
    case "cosigned": {
      const agg = aggregateXOnly(t.pubkeys);
      const tr = taprootOutput(agg, clauseScript({ kind: "timelock-sign", key: ctx.serverPubkey.slice(1), height: ctx.expiryHeight }));
      return { scriptPubKey: tr.scriptPubKey, signingKey: tr.outputKey, taproot: tr, unlockLeaf: null, aggregateKey: agg, tapTweak: tr.tweak };
    }
    case "arkoor": {
      const agg = aggregateXOnly([...t.clientCosigners, ctx.serverPubkey]);
      const { outputKey } = tweakXOnly(agg, t.tapTweak);
      return { scriptPubKey: p2trScript(outputKey), signingKey: outputKey, taproot: null, unlockLeaf: null, aggregateKey: agg, tapTweak: t.tapTweak };
    }
    case "hash-locked-cosigned":
    case "hash-locked-cosigned-v1": {
      const policy = hashLockedSpentPolicy(t);
      const tr = policyTaproot(policy, ctx);
      const unlockClauseIndex = policyLeafClauses(policy, ctx).findIndex((c) => c.kind === "hash-sign");
      const agg = tr.internalKey;
      return { scriptPubKey: tr.scriptPubKey, signingKey: agg, taproot: tr, unlockLeaf: tr.leaves[unlockClauseIndex]!, aggregateKey: agg, tapTweak: tr.tweak };
    }
  }
}

/** Whether the transition carries everything its witness needs (signature, and preimage if hash-locked). */
export function transitionHasAllWitnesses(t: Transition): boolean {
  if (!t.signature) return false;
  return t.kind === "cosigned" || t.kind === "arkoor" || t.unlock.type === "preimage";
}

/** The witness stack a transition puts on its exit tx input (empty when incomplete). */
export function transitionWitness(t: Transition, spent: SpentOutput): Uint8Array[] {
  if (!t.signature) return [];
  if (t.kind === "cosigned" || t.kind === "arkoor") return [t.signature];
  if (t.unlock.type !== "preimage" || !spent.unlockLeaf) return [];
  return [t.signature, t.unlock.preimage, spent.unlockLeaf.script, spent.unlockLeaf.controlBlock];
}
