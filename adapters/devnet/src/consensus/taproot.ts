/** BIP-341 output construction: tweaking an internal key by a script-tree merkle root, control blocks. */
import * as secp from "tiny-secp256k1";
import { concatBytes } from "./bytes.js";
import { ConsensusError } from "./errors.js";
import { tapTweakHash } from "./sighash.js";

/** A tweaked taproot output key and the parity bit its control blocks carry. */
export interface TaprootOutput {
  outputKey: Uint8Array;
  parity: 0 | 1;
  tweak: Uint8Array;
}

/** Tweaks the 32-byte x-only `internalKey` by `merkleRoot` (omit for a key-path-only output, as BIP-86). */
export function taprootOutputKey(internalKey: Uint8Array, merkleRoot?: Uint8Array): TaprootOutput {
  const tweak = tapTweakHash(internalKey, merkleRoot);
  let r: ReturnType<typeof secp.xOnlyPointAddTweak>;
  try {
    r = secp.xOnlyPointAddTweak(internalKey, tweak);
  } catch {
    r = null;
  }
  if (r === null) throw new ConsensusError("TAPROOT_BAD_KEY", "internal key or tweak is invalid");
  return { outputKey: r.xOnlyPubkey, parity: r.parity, tweak };
}

/** `OP_1 <32-byte output key>`. */
export function taprootScriptPubKey(outputKey: Uint8Array): Uint8Array {
  return concatBytes(Uint8Array.of(0x51, 0x20), outputKey);
}

/** Control block for a leaf: (leafVersion | parity) ‖ internal key ‖ merkle path (sibling hashes, leaf upwards). */
export function controlBlock(leafVersion: number, parity: 0 | 1, internalKey: Uint8Array, path: readonly Uint8Array[]): Uint8Array {
  return concatBytes(Uint8Array.of((leafVersion & 0xfe) | parity), internalKey, ...path);
}
