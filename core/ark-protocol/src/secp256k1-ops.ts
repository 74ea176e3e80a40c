/**
 * The secp256k1 operations the core's MuSig2, Schnorr, taproot and key code use, with
 * `tiny-secp256k1`'s semantics (argument checks, `null` for the point at infinity), on one of two
 * builds of libsecp256k1:
 *
 * | implementation | what runs it |
 * |---|---|
 * | `native` (default when its addon loads) | the `secp256k1` package's N-API addon (prebuilt, no compiler): libsecp256k1 compiled for this CPU |
 * | `wasm` (the fallback) | `tiny-secp256k1`: libsecp256k1 compiled to WebAssembly |
 *
 * The native addon has no BIP-340 module, so BIP-340 is written here from its operations, step for
 * step after the BIP: `Verify` computes `R = s·G − e·P` in one ECDSA public key recovery (see
 * `nativeVerifySchnorr`) and checks that `R` has an even y and x `r`,
 * `Sign` with every step that touches a secret on libsecp256k1's constant-time code (`k·G`, the
 * negations, `k + e·d` as the addon's secret-key tweaks; JavaScript only hashes and XORs bytes
 * and never turns a secret into a number). Secret-key sums and negations alone stay on
 * tiny-secp256k1 (libsecp256k1 too, and faster for one scalar operation than a call into the
 * addon). Both implementations pass every BIP-340/327/341 vector, and a property test compares
 * them on random and edge inputs (`test/secp256k1-ops.test.ts`): the same signatures byte for
 * byte. The native one does the point operations 3–4× faster and signs about 3× faster
 * (`npm run bench`, protocol bench).
 */
import { createRequire } from "node:module";
import * as wasm from "tiny-secp256k1";
import { bytesEqualAt, concatBytes } from "./encoding.js";
import { taggedHash } from "./hashes.js";
import { belowCurveOrder, bigIntTo32, bytesToBigInt } from "./scalar-bytes.js";

/** The operations, as tiny-secp256k1 defines them. */
export interface Secp256k1Ops {
  isPoint(p: Uint8Array): boolean;
  isXOnlyPoint(p: Uint8Array): boolean;
  pointFromScalar(d: Uint8Array, compressed?: boolean): Uint8Array | null;
  pointAdd(a: Uint8Array, b: Uint8Array, compressed?: boolean): Uint8Array | null;
  /** `P + t·G` (BIP-32's public child derivation). */
  pointAddScalar(p: Uint8Array, tweak: Uint8Array, compressed?: boolean): Uint8Array | null;
  pointMultiply(p: Uint8Array, tweak: Uint8Array, compressed?: boolean): Uint8Array | null;
  xOnlyPointFromScalar(d: Uint8Array): Uint8Array;
  xOnlyPointAddTweak(p: Uint8Array, tweak: Uint8Array): { parity: 0 | 1; xOnlyPubkey: Uint8Array } | null;
  verifySchnorr(msg: Uint8Array, xOnlyPubkey: Uint8Array, signature: Uint8Array): boolean;
  signSchnorr(msg: Uint8Array, secretKey: Uint8Array, auxRand?: Uint8Array): Uint8Array;
  privateAdd(d: Uint8Array, tweak: Uint8Array): Uint8Array | null;
  privateNegate(d: Uint8Array): Uint8Array;
}

/** The two implementations. */
export type Secp256k1Implementation = "native" | "wasm";

/** The part of the `secp256k1` package's API used here (each call throws on bad input). */
interface NativeAddon {
  publicKeyVerify(p: Uint8Array): boolean;
  publicKeyCreate(d: Uint8Array, compressed: boolean): Uint8Array;
  publicKeyCombine(ps: Uint8Array[], compressed: boolean): Uint8Array;
  publicKeyTweakAdd(p: Uint8Array, tweak: Uint8Array, compressed: boolean): Uint8Array;
  publicKeyTweakMul(p: Uint8Array, tweak: Uint8Array, compressed: boolean): Uint8Array;
  /** Whether `0 < d < n`. */
  privateKeyVerify(d: Uint8Array): boolean;
  /** `d ← n − d`, in place. */
  privateKeyNegate(d: Uint8Array): Uint8Array;
  /** `d ← d + t mod n`, in place; throws when `t ≥ n` or the sum is zero. */
  privateKeyTweakAdd(d: Uint8Array, t: Uint8Array): Uint8Array;
  /** `d ← d · t mod n`, in place; throws when `t` is zero or `≥ n`. */
  privateKeyTweakMul(d: Uint8Array, t: Uint8Array): Uint8Array;
  /** ECDSA public key recovery (`recid` 0–3); throws when the signature does not parse or the key is the point at infinity. */
  ecdsaRecover(sig: Uint8Array, recid: number, msg32: Uint8Array, compressed: boolean): Uint8Array;
}

const N = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;

function loadAddon(): NativeAddon | undefined {
  if (process.env.TENDER_SECP256K1 === "wasm") return undefined;
  try {
    // `secp256k1/bindings` is the addon alone; the package's main entry would fall back to a pure-JS build
    return createRequire(import.meta.url)("secp256k1/bindings") as NativeAddon;
  } catch {
    return undefined;
  }
}
const addon = loadAddon();

const fail = (what: string): never => {
  throw new TypeError(`Expected ${what}`);
};
const isScalar = (d: Uint8Array): boolean => belowCurveOrder(d);
const checkPrivate = (d: Uint8Array): void => {
  if (!isScalar(d) || d.every((b) => b === 0)) fail("Private");
};
const checkTweak = (t: Uint8Array): void => {
  if (!isScalar(t)) fail("Tweak");
};
const isZero = (t: Uint8Array): boolean => t.every((b) => b === 0);
/** A 33- or 65-byte encoding libsecp256k1 parses (as tiny-secp256k1 checks it: the same parser). */
const nativeIsPoint = (a: NativeAddon, p: Uint8Array): boolean => (p.length === 33 || p.length === 65) && a.publicKeyVerify(p);
const evenPoint = (x: Uint8Array): Uint8Array => concatBytes(Uint8Array.of(2), x);
const nativeIsXOnly = (a: NativeAddon, x: Uint8Array): boolean => x.length === 32 && a.publicKeyVerify(evenPoint(x));
/** A sum that is the point at infinity: libsecp256k1 reports it as an invalid result. */
const orInfinity = (f: () => Uint8Array): Uint8Array | null => {
  try {
    return f();
  } catch {
    return null;
  }
};

/**
 * BIP-340 `Sign` on the addon (32-byte messages; no aux is 32 zero bytes, as libsecp256k1 takes a
 * missing one). Secrets stay bytes handed to libsecp256k1; the copies made here are zeroed. The
 * cases the BIP leaves to chance (a nonce of zero or ≥ n, `e` of zero, `s` of zero: about 2^-128
 * each) are signed on WASM instead, which gives the same signature.
 */
function nativeSignSchnorr(a: NativeAddon, msg: Uint8Array, secretKey: Uint8Array, aux?: Uint8Array): Uint8Array {
  if (msg.length !== 32) fail("Hash");
  if (secretKey.length !== 32 || !a.privateKeyVerify(secretKey)) fail("Private");
  if (aux !== undefined && aux.length !== 32) fail("Extra Data (32 bytes)");
  const d = Uint8Array.from(secretKey);
  const k = new Uint8Array(32);
  try {
    const pub = a.publicKeyCreate(d, true);
    // d such that d·G has an even y (the public key is public: branching on it leaks nothing)
    if (pub[0] === 3) a.privateKeyNegate(d);
    const px = pub.subarray(1);
    const mask = taggedHash("BIP0340/aux", aux ?? new Uint8Array(32));
    const t = new Uint8Array(32);
    for (let i = 0; i < 32; i++) t[i] = d[i]! ^ mask[i]!;
    k.set(taggedHash("BIP0340/nonce", t, px, msg));
    t.fill(0);
    if (!a.privateKeyVerify(k)) return wasm.signSchnorr(msg, secretKey, aux);
    const r = a.publicKeyCreate(k, true);
    if (r[0] === 3) a.privateKeyNegate(k);
    const rx = r.subarray(1);
    const e = bytesToBigInt(taggedHash("BIP0340/challenge", rx, px, msg)) % N;
    if (e === 0n) return wasm.signSchnorr(msg, secretKey, aux);
    // s = k + e·d mod n: d ← e·d, then k ← k + d
    a.privateKeyTweakMul(d, bigIntTo32(e));
    const s = orInfinity(() => a.privateKeyTweakAdd(k, d));
    if (!s) return wasm.signSchnorr(msg, secretKey, aux);
    return concatBytes(rx, s);
  } finally {
    d.fill(0);
    k.fill(0);
  }
}

/** `R` of BIP-340 Verify is a valid signature's: not infinity, even y, `x(R) = r` (`R` compressed). */
function isSignatureR(R: Uint8Array | null, r: Uint8Array): boolean {
  return R !== null && R[0] === 2 && bytesEqualAt(R, 1, r);
}

/**
 * BIP-340 Verify (inputs already checked: `x` a valid x-only key, `r` and `s` below n):
 * P = lift_x(x) (even y); e = H_challenge(r ‖ x ‖ m) mod n; R = s·G − e·P; valid iff R is not
 * infinity, has an even y and x(R) = r.
 *
 * The addon has no BIP-340 module, and `s·G` plus `−e·P` as two of its operations costs two
 * constant-time multiplications (≈ 80 µs; verification needs no constant time, its inputs are
 * public). ECDSA public key recovery computes `u1·G + u2·R'` in one variable-time double
 * multiplication, for a point `R'` given by its x (`r'`) and the parity of its y (`recid`):
 * `Q = r'⁻¹·(s'·R' − z·G)`. With `R' = P` (`r' = x`, even y: `recid` 0), `s' = −e·x` and
 * `z = −s·x` (mod n) it gives `Q = x⁻¹·(−e·x·P + s·x·G) = s·G − e·P = R` (the recovery ≈ 56 µs).
 * Recovery needs `0 < r' < n` and `s' ≠ 0`: an x of P at or above n, or an `e` of zero (each about
 * 2^-128 for a key or a hash nobody chose), takes the two-operation sum instead. A recovered point
 * at infinity throws: not a valid signature.
 */
function nativeVerifySchnorr(a: NativeAddon, msg: Uint8Array, x: Uint8Array, sig: Uint8Array): boolean {
  const c = challenge(msg, x, sig);
  return verifyByRecovery(a, x, c) ?? verifyByPointSum(a, x, c);
}

/** What both ways of {@link nativeVerifySchnorr} start from: `r`, `s` (bytes and number) and `e`. */
interface Challenge {
  readonly r: Uint8Array;
  readonly sBytes: Uint8Array;
  readonly s: bigint;
  readonly e: bigint;
}

function challenge(msg: Uint8Array, x: Uint8Array, sig: Uint8Array): Challenge {
  const r = sig.subarray(0, 32);
  const sBytes = sig.subarray(32);
  return { r, sBytes, s: bytesToBigInt(sBytes), e: bytesToBigInt(taggedHash("BIP0340/challenge", r, x, msg)) % N };
}

/** `R` by one ECDSA public key recovery; `undefined` when recovery cannot take it (x ≥ n or e = 0). */
function verifyByRecovery(a: NativeAddon, x: Uint8Array, { r, s, e }: Challenge): boolean | undefined {
  const xn = bytesToBigInt(x);
  if (e === 0n || xn >= N) return undefined;
  const ecdsaSig = new Uint8Array(64);
  ecdsaSig.set(x, 0);
  ecdsaSig.set(bigIntTo32((N - ((e * xn) % N)) % N), 32);
  const z = bigIntTo32((N - ((s * xn) % N)) % N);
  return isSignatureR(orInfinity(() => a.ecdsaRecover(ecdsaSig, 0, z, true)), r);
}

/** `R = s·G − e·P` as two of the addon's operations and a sum. */
function verifyByPointSum(a: NativeAddon, x: Uint8Array, { r, sBytes, s, e }: Challenge): boolean {
  const terms: Uint8Array[] = [];
  if (s !== 0n) terms.push(a.publicKeyCreate(sBytes, false));
  if (e !== 0n) terms.push(a.publicKeyTweakMul(evenPoint(x), bigIntTo32(N - e), false));
  if (terms.length === 0) return false;
  return isSignatureR(orInfinity(() => a.publicKeyCombine(terms, true)), r);
}

/**
 * The two ways the native implementation verifies a BIP-340 signature, each alone (tests check
 * each against the vectors: recovery serves nearly every signature and answers `undefined` for
 * the 2^-128 cases, which the point sum serves). Inputs as {@link Secp256k1Ops.verifySchnorr}
 * after its checks; `undefined` without the addon.
 */
export function nativeSchnorrVerifiers(): { recovery: (msg: Uint8Array, x: Uint8Array, sig: Uint8Array) => boolean | undefined; pointSum: (msg: Uint8Array, x: Uint8Array, sig: Uint8Array) => boolean } | undefined {
  if (!addon) return undefined;
  const a = addon;
  return {
    recovery: (msg, x, sig) => verifyByRecovery(a, x, challenge(msg, x, sig)),
    pointSum: (msg, x, sig) => verifyByPointSum(a, x, challenge(msg, x, sig)),
  };
}

function nativeOps(a: NativeAddon): Secp256k1Ops {
  return {
    isPoint: (p) => nativeIsPoint(a, p),
    isXOnlyPoint: (x) => nativeIsXOnly(a, x),
    pointFromScalar: (d, compressed = true) => {
      checkPrivate(d);
      return a.publicKeyCreate(d, compressed);
    },
    pointAdd: (p, q, compressed = true) => {
      if (!nativeIsPoint(a, p) || !nativeIsPoint(a, q)) fail("Point");
      return orInfinity(() => a.publicKeyCombine([p, q], compressed));
    },
    pointAddScalar: (p, tweak, compressed = true) => {
      if (!nativeIsPoint(a, p)) fail("Point");
      checkTweak(tweak);
      return orInfinity(() => a.publicKeyTweakAdd(p, tweak, compressed));
    },
    pointMultiply: (p, tweak, compressed = true) => {
      if (!nativeIsPoint(a, p)) fail("Point");
      checkTweak(tweak);
      return isZero(tweak) ? null : a.publicKeyTweakMul(p, tweak, compressed);
    },
    xOnlyPointFromScalar: (d) => {
      checkPrivate(d);
      return a.publicKeyCreate(d, true).slice(1);
    },
    xOnlyPointAddTweak: (x, tweak) => {
      if (!nativeIsXOnly(a, x)) fail("Point");
      checkTweak(tweak);
      const r = orInfinity(() => a.publicKeyTweakAdd(evenPoint(x), tweak, true));
      return r && { parity: r[0] === 3 ? 1 : 0, xOnlyPubkey: r.slice(1) };
    },
    verifySchnorr: (msg, x, sig) => {
      if (msg.length !== 32) fail("Hash");
      if (!nativeIsXOnly(a, x)) fail("Point");
      // as tiny-secp256k1: r and s must be below n (BIP-340 would only fail r ≥ p and s ≥ n; an r in
      // [n, p) of a valid signature has a chance of about 2^-128)
      if (sig.length !== 64 || !isScalar(sig.subarray(0, 32)) || !isScalar(sig.subarray(32))) fail("Signature");
      return nativeVerifySchnorr(a, msg, x, sig);
    },
    // secret-dependent: libsecp256k1's constant-time code in both implementations
    signSchnorr: (msg, d, aux) => nativeSignSchnorr(a, msg, d, aux),
    // one scalar operation: the call into the addon costs more than WASM's (1.5 against 0.5 µs)
    privateAdd: (d, tweak) => wasm.privateAdd(d, tweak),
    privateNegate: (d) => wasm.privateNegate(d),
  };
}

const wasmOps: Secp256k1Ops = {
  isPoint: (p) => wasm.isPoint(p),
  isXOnlyPoint: (x) => wasm.isXOnlyPoint(x),
  pointFromScalar: (d, compressed = true) => wasm.pointFromScalar(d, compressed),
  pointAdd: (p, q, compressed = true) => wasm.pointAdd(p, q, compressed),
  pointAddScalar: (p, tweak, compressed = true) => wasm.pointAddScalar(p, tweak, compressed),
  pointMultiply: (p, tweak, compressed = true) => wasm.pointMultiply(p, tweak, compressed),
  xOnlyPointFromScalar: (d) => wasm.xOnlyPointFromScalar(d),
  xOnlyPointAddTweak: (x, tweak) => wasm.xOnlyPointAddTweak(x, tweak),
  verifySchnorr: (msg, x, sig) => wasm.verifySchnorr(msg, x, sig),
  signSchnorr: (msg, d, aux) => wasm.signSchnorr(msg, d, aux),
  privateAdd: (d, tweak) => wasm.privateAdd(d, tweak),
  privateNegate: (d) => wasm.privateNegate(d),
};

const implementations: Partial<Record<Secp256k1Implementation, Secp256k1Ops>> = { wasm: wasmOps, ...(addon ? { native: nativeOps(addon) } : {}) };

/**
 * The operations of the selected implementation: one object whose methods {@link useSecp256k1}
 * replaces, so callers keep this reference and each call goes straight to the implementation.
 */
export const ecc: Secp256k1Ops = { ...(implementations.native ?? wasmOps) };
let currentName: Secp256k1Implementation = addon ? "native" : "wasm";

/** Which implementation runs the operations. */
export function secp256k1Implementation(): Secp256k1Implementation {
  return currentName;
}

/** The implementations this process can use (`wasm` always; `native` when its addon loaded). */
export function secp256k1Implementations(): Secp256k1Implementation[] {
  return Object.keys(implementations) as Secp256k1Implementation[];
}

/** Selects an implementation (tests and benches compare them); returns the previous one. Throws when it is not available. */
export function useSecp256k1(name: Secp256k1Implementation): Secp256k1Implementation {
  const ops = implementations[name];
  if (!ops) throw new Error(`the ${name} secp256k1 implementation is not available here`);
  const prev = currentName;
  Object.assign(ecc, ops);
  currentName = name;
  return prev;
}
