/** Test-only signing helpers: deterministic keys, DER encoding, spend templates. */
import * as secp from "tiny-secp256k1";
import { concatBytes } from "../../src/consensus/bytes.js";
import { sha256 } from "../../src/consensus/hashes.js";
import type { SpentOutput, Tx } from "../../src/consensus/tx.js";

/** A key pair derived from a label (never use outside tests). */
export function testKey(label: string): { priv: Uint8Array; pub: Uint8Array; xonly: Uint8Array } {
  const priv = sha256(new TextEncoder().encode(label));
  return { priv, pub: secp.pointFromScalar(priv, true)!, xonly: secp.xOnlyPointFromScalar(priv) };
}

function derInt(x: Uint8Array): Uint8Array {
  let i = 0;
  while (i < x.length - 1 && x[i] === 0) i++;
  let v = x.subarray(i);
  if ((v[0]! & 0x80) !== 0) v = concatBytes(Uint8Array.of(0), v);
  return concatBytes(Uint8Array.of(0x02, v.length), v);
}

/** Strict-DER ECDSA signature (low S) with the hash-type byte appended. */
export function ecdsaSig(hash: Uint8Array, priv: Uint8Array, hashType = 1): Uint8Array {
  const compact = secp.sign(hash, priv);
  const body = concatBytes(derInt(compact.subarray(0, 32)), derInt(compact.subarray(32)));
  return concatBytes(Uint8Array.of(0x30, body.length), body, Uint8Array.of(hashType));
}

/** BIP-340 signature (zero aux randomness), with the hash-type byte appended unless it is SIGHASH_DEFAULT. */
export function schnorrSig(hash: Uint8Array, priv: Uint8Array, hashType = 0): Uint8Array {
  const sig = secp.signSchnorr(hash, priv, new Uint8Array(32));
  return hashType === 0 ? sig : concatBytes(sig, Uint8Array.of(hashType));
}

/** A one-input, one-output transaction spending `prev` (txid filled with a fixed pattern). */
export function spendingTx(prev: SpentOutput, opts: { version?: number; sequence?: number; locktime?: number } = {}): Tx {
  return {
    version: opts.version ?? 2,
    locktime: opts.locktime ?? 0,
    inputs: [{ prevTxid: new Uint8Array(32).fill(7), prevVout: 1, scriptSig: new Uint8Array(0), sequence: opts.sequence ?? 0xfffffffd, witness: [] }],
    outputs: [{ value: prev.amount - 1000n, scriptPubKey: Uint8Array.of(0x51) }],
  };
}
