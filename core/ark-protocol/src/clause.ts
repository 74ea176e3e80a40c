/**
 * Tapscript clauses of VTXO policies (bark's `ark::vtxo::policy::clause`): the five script
 * templates, in their v1 and `_v0` hash-lock variants, with the input sequence and locktime a
 * spend needs.
 *
 * Keys in clauses are x-only. Hashes are the 32-byte SHA-256 payment/unlock hashes; the script
 * checks `OP_HASH160 <RIPEMD160(hash)>`, which matches because `hash = SHA256(preimage)`.
 *
 * @example
 * ```ts
 * clauseScript({ kind: "delayed-sign", key: xonly, delta: 2016 });
 * // 02e007 b2 75 20 <key> ac
 * ```
 */
import { OP, pushData, pushNum, script } from "./script.js";
import { ripemd160Of } from "./hashes.js";

/** Hash-lock script generation: 0 = `_v0` (no size check), 1 = v1 (`OP_SIZE 32 OP_EQUALVERIFY`). */
export type HashLockVersion = 0 | 1;

/** A spending condition of one tapscript leaf. */
export type Clause =
  | { readonly kind: "delayed-sign"; readonly key: Uint8Array; readonly delta: number }
  | { readonly kind: "timelock-sign"; readonly key: Uint8Array; readonly height: number }
  | { readonly kind: "delayed-timelock-sign"; readonly key: Uint8Array; readonly height: number; readonly delta: number }
  | { readonly kind: "hash-delay-sign"; readonly key: Uint8Array; readonly hash: Uint8Array; readonly delta: number; readonly version: HashLockVersion }
  | { readonly kind: "hash-sign"; readonly key: Uint8Array; readonly hash: Uint8Array; readonly version: HashLockVersion };

function checkSig(key: Uint8Array): Uint8Array {
  if (key.length !== 32) throw new RangeError("clause keys are x-only (32 bytes)");
  return script(pushData(key), OP.OP_CHECKSIG);
}

function hashLock(hash: Uint8Array, version: HashLockVersion): Uint8Array {
  if (hash.length !== 32) throw new RangeError("hash-lock hash must be 32 bytes");
  const check = script(OP.OP_HASH160, pushData(ripemd160Of(hash)), OP.OP_EQUALVERIFY);
  return version === 1 ? script(OP.OP_SIZE, pushNum(32), OP.OP_EQUALVERIFY, check) : check;
}

const csv = (delta: number) => script(pushNum(delta), OP.OP_CHECKSEQUENCEVERIFY, OP.OP_DROP);
const cltv = (height: number) => script(pushNum(height), OP.OP_CHECKLOCKTIMEVERIFY, OP.OP_DROP);

/** The tapscript of a clause (v1 hash clauses check the preimage is 32 bytes, `_v0` ones do not). */
export function clauseScript(c: Clause): Uint8Array {
  switch (c.kind) {
    case "delayed-sign":
      return script(csv(c.delta), checkSig(c.key));
    case "timelock-sign":
      return script(cltv(c.height), checkSig(c.key));
    case "delayed-timelock-sign":
      return script(cltv(c.height), csv(c.delta), checkSig(c.key));
    case "hash-delay-sign":
      return script(csv(c.delta), hashLock(c.hash, c.version), checkSig(c.key));
    case "hash-sign":
      return script(hashLock(c.hash, c.version), checkSig(c.key));
  }
}

/** Input nSequence a spend of the clause needs (its CSV delta, else 0). */
export function clauseSequence(c: Clause): number {
  return c.kind === "delayed-sign" || c.kind === "delayed-timelock-sign" || c.kind === "hash-delay-sign" ? c.delta : 0;
}

/** Minimum transaction nLockTime of a spend of the clause (its CLTV height, else 0). */
export function clauseLocktime(c: Clause): number {
  return c.kind === "timelock-sign" || c.kind === "delayed-timelock-sign" ? c.height : 0;
}

/** Whether the witness needs a hash preimage (pushed after the signature). */
export function clauseNeedsPreimage(c: Clause): boolean {
  return c.kind === "hash-delay-sign" || c.kind === "hash-sign";
}
