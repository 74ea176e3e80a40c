/** Signature and public key encoding rules (BIP-66 strict DER, LOW_S, STRICTENC hash types and key types). */
import { ScriptError } from "./errors.js";
import { ScriptFlags, hasFlag } from "./flags.js";
import { parseDerLax } from "./ecdsa.js";

const HALF_ORDER = 0x7fffffffffffffffffffffffffffffff5d576e7357a4501ddfe92f46681b20a0n;

/** BIP-66 strict DER check of a signature including its trailing hash-type byte (Core's `IsValidSignatureEncoding`). */
export function isValidSignatureEncoding(sig: Uint8Array): boolean {
  const n = sig.length;
  if (n < 9 || n > 73) return false;
  if (sig[0] !== 0x30 || sig[1] !== n - 3) return false;
  const lenR = sig[3]!;
  if (5 + lenR >= n) return false;
  const lenS = sig[5 + lenR]!;
  if (lenR + lenS + 7 !== n) return false;
  if (sig[2] !== 0x02 || lenR === 0 || (sig[4]! & 0x80) !== 0) return false;
  if (lenR > 1 && sig[4] === 0x00 && (sig[5]! & 0x80) === 0) return false;
  if (sig[lenR + 4] !== 0x02 || lenS === 0 || (sig[lenR + 6]! & 0x80) !== 0) return false;
  if (lenS > 1 && sig[lenR + 6] === 0x00 && (sig[lenR + 7]! & 0x80) === 0) return false;
  return true;
}

/** Whether the DER signature (without hash type) lax-parses and has S ≤ n/2 (Core's `CPubKey::CheckLowS`). */
export function hasLowS(derSig: Uint8Array): boolean {
  const compact = parseDerLax(derSig);
  if (compact === undefined) return false;
  let s = 0n;
  for (let i = 32; i < 64; i++) s = (s << 8n) | BigInt(compact[i]!);
  return s <= HALF_ORDER;
}

function isDefinedHashtype(sig: Uint8Array): boolean {
  if (sig.length === 0) return false;
  const t = sig[sig.length - 1]! & ~0x80;
  return t >= 1 && t <= 3;
}

/** Core's `CheckSignatureEncoding` for ECDSA signatures; throws the matching ScriptError. Empty signatures pass. */
export function checkSignatureEncoding(sig: Uint8Array, flags: number): void {
  if (sig.length === 0) return;
  if ((flags & (ScriptFlags.DERSIG | ScriptFlags.LOW_S | ScriptFlags.STRICTENC)) !== 0 && !isValidSignatureEncoding(sig)) {
    throw new ScriptError("SIG_DER");
  }
  if (hasFlag(flags, ScriptFlags.LOW_S) && !hasLowS(sig.subarray(0, sig.length - 1))) throw new ScriptError("SIG_HIGH_S");
  if (hasFlag(flags, ScriptFlags.STRICTENC) && !isDefinedHashtype(sig)) throw new ScriptError("SIG_HASHTYPE");
}

/** 33-byte 02/03 or 65-byte 04 key. */
export function isCompressedOrUncompressedPubKey(key: Uint8Array): boolean {
  if (key.length < 33) return false;
  if (key[0] === 0x04) return key.length === 65;
  if (key[0] === 0x02 || key[0] === 0x03) return key.length === 33;
  return false;
}

/** 33-byte 02/03 key. */
export function isCompressedPubKey(key: Uint8Array): boolean {
  return key.length === 33 && (key[0] === 0x02 || key[0] === 0x03);
}

/** Core's `CheckPubKeyEncoding`; `witnessV0` selects the WITNESS_PUBKEYTYPE rule. */
export function checkPubKeyEncoding(key: Uint8Array, flags: number, witnessV0: boolean): void {
  if (hasFlag(flags, ScriptFlags.STRICTENC) && !isCompressedOrUncompressedPubKey(key)) throw new ScriptError("PUBKEYTYPE");
  if (hasFlag(flags, ScriptFlags.WITNESS_PUBKEYTYPE) && witnessV0 && !isCompressedPubKey(key)) {
    throw new ScriptError("WITNESS_PUBKEYTYPE");
  }
}
