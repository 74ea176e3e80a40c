/**
 * BIP-327 MuSig2 with every point operation in libsecp256k1 (`secp256k1-ops.ts`): the
 * default backend of `musig.ts`. The BIP's steps (tagged hashes, coefficients, scalar arithmetic
 * mod n) are written here, step for step after the BIP's algorithms; KeyAgg itself is the core's
 * memoised one (`keys.ts`). Checked against every BIP-327 vector and against `musig-scure.ts`.
 *
 * Points travel as 33-byte compressed encodings, `null` being the point at infinity; the nonces
 * this module computes also keep their points as libsecp256k1 returned them (uncompressed), for
 * the next step to use without parsing them again (`computedNonces`). Secret values
 * only meet `pointFromScalar` (libsecp256k1's constant-time generator multiplication);
 * `pointMultiply` only sees public scalars (coefficients, challenges).
 *
 * Every libsecp256k1 call parses its points, and parsing a 33-byte encoding is exactly BIP-327's
 * `cpoint` check (prefix 2 or 3, x below p, on the curve). So an externally supplied point that
 * goes into `pointAdd` or `pointMultiply` is validated by that call, and is checked on its own
 * (`isCPoint`) only when no call touches it; a rejection is turned into the BIP's error, blaming
 * the same contribution the explicit checks would. Each such check costs a square root.
 */
import { ecc } from "./secp256k1-ops.js";
import { bytesEqual, concatBytes, toHex } from "./encoding.js";
import { taggedHash } from "./hashes.js";
import { bigIntTo32, bytesToBigInt, CURVE_ORDER, keyAggUnsorted, negateCompressed } from "./keys.js";
import { MusigError, MusigInvalidContributionError, type MusigBackend, type MusigBackendNonce, type MusigBackendSession } from "./musig-backend.js";

const N = CURVE_ORDER;
const G = ecc.pointFromScalar(bigIntTo32(1n), true) as Uint8Array;
const INFINITY_BYTES = new Uint8Array(33);

const mod = (a: bigint): bigint => ((a % N) + N) % N;
const hashInt = (tag: string, ...parts: Uint8Array[]): bigint => mod(bytesToBigInt(taggedHash(tag, ...parts)));
const hasEvenY = (p: Uint8Array): boolean => p[0] === 2;
const xbytes = (p: Uint8Array): Uint8Array => p.subarray(1, 33);
const u8 = (v: number): Uint8Array => Uint8Array.of(v);
/** Big-endian `size`-byte encoding of a length. */
const be = (v: number, size: 4 | 8): Uint8Array => {
  const out = new Uint8Array(size);
  for (let i = size - 1, x = BigInt(v); i >= 0; i--, x >>= 8n) out[i] = Number(x & 0xffn);
  return out;
};

/** BIP-327 `cpoint`: a valid compressed point. */
function isCPoint(p: Uint8Array): boolean {
  return p.length === 33 && (p[0] === 2 || p[0] === 3) && ecc.isPoint(p);
}

/** `cpoint_ext`'s infinity: 33 zero bytes are the point at infinity (null); other bytes unchecked. */
function infinityOr(p: Uint8Array): Uint8Array | null {
  return bytesEqual(p, INFINITY_BYTES) ? null : p;
}

/**
 * `A + k·B` for public `k` and points (null = infinity), every non-null input checked as a
 * `cpoint`: `pointMultiply` parses B and `pointAdd` parses A, so only an input that neither call
 * takes (k = 0, or nothing to add) is checked on its own. Throws on an invalid point. `k·B` goes
 * to `pointAdd` uncompressed: parsing it then needs no square root.
 */
function addMul(a: Uint8Array | null, b: Uint8Array | null, k: bigint): Uint8Array | null {
  if (!b || k === 0n) {
    if (b && !isCPoint(b)) throw new MusigError("invalid point");
    if (a && !isCPoint(a)) throw new MusigError("invalid point");
    return a;
  }
  // B valid and 0 < k < n: k·B is never infinity
  if (!a) return ecc.pointMultiply(b, bigIntTo32(k), true);
  return ecc.pointAdd(a, ecc.pointMultiply(b, bigIntTo32(k), false) as Uint8Array, true);
}

/** `A + k·B` (compressed) for valid points this module computed, in any encoding (null = infinity). */
function addMulComputed(a: Uint8Array | null, b: Uint8Array | null, k: bigint): Uint8Array | null {
  const kb = b && k !== 0n ? ecc.pointMultiply(b, bigIntTo32(k), false) : null;
  if (!a) return kb && compressed(kb);
  if (!kb) return compressed(a);
  return ecc.pointAdd(a, kb, true);
}

/** The session's `R1 + b·R2` from an aggregated nonce's halves; `onInvalid()` for an invalid half. */
function nonceR(R1: Uint8Array | null, R2: Uint8Array | null, b: bigint, onInvalid: () => Error): Uint8Array | null {
  try {
    return addMul(R1, R2, b);
  } catch {
    throw onInvalid();
  }
}

function scalar(bytes: Uint8Array, what: string): bigint {
  if (bytes.length !== 32) throw new MusigError(`${what} must be 32 bytes`);
  return bytesToBigInt(bytes);
}

/** KeyAgg + ApplyTweak state (BIP-327 keygen context) plus what the coefficients need. */
interface KeyAggContext {
  pubkeys: readonly Uint8Array[];
  Q: Uint8Array;
  gacc: bigint;
  tacc: bigint;
  list: Uint8Array;
  second: Uint8Array | undefined;
}

// The same key lists and tweaks come back for every sighash of an output and every rebuilt exit
// chain: contexts are memoised (bounded; public data only, never mutated once built).
const CONTEXT_CACHE_MAX = 4096;
const contextCache = new Map<string, KeyAggContext>();

function keyAggContext(pubkeys: readonly Uint8Array[], tweaks: readonly Uint8Array[], isXonly: readonly boolean[]): KeyAggContext {
  const cacheKey = `${pubkeys.map(toHex).join("")}/${tweaks.map((t, i) => `${toHex(t)}${isXonly[i] === true ? "x" : "p"}`).join("")}`;
  const cached = contextCache.get(cacheKey);
  if (cached && tweaks.length === isXonly.length) return cached;
  const ctx = buildKeyAggContext(pubkeys.map((k) => Uint8Array.from(k)), tweaks, isXonly);
  if (contextCache.size >= CONTEXT_CACHE_MAX) contextCache.clear();
  contextCache.set(cacheKey, ctx);
  return ctx;
}

function buildKeyAggContext(pubkeys: readonly Uint8Array[], tweaks: readonly Uint8Array[], isXonly: readonly boolean[]): KeyAggContext {
  if (pubkeys.length === 0) throw new MusigError("key aggregation needs at least one key");
  if (tweaks.length !== isXonly.length) throw new MusigError("one x-only flag per tweak");
  // keyAggUnsorted checks every key as a compressed point (memoised per key: the same few keys
  // come back for every output); the BIP's culprit is only looked for when it refuses one.
  let Q: Uint8Array;
  try {
    Q = keyAggUnsorted(pubkeys);
  } catch (e) {
    const culprit = pubkeys.findIndex((pk) => !isCPoint(pk));
    if (culprit >= 0) throw new MusigInvalidContributionError(culprit, "pubkey");
    throw new MusigError(`key aggregation: ${e instanceof Error ? e.message : String(e)}`);
  }
  let gacc = 1n;
  let tacc = 0n;
  tweaks.forEach((tweak, i) => {
    const t = scalar(tweak, "tweak");
    if (t >= N) throw new MusigError("The tweak must be less than n.");
    const negateQ = isXonly[i] === true && !hasEvenY(Q);
    const base = negateQ ? negateCompressed(Q) : Q;
    // g·Q + t·G as t·G (generator multiplication, t is public) plus one addition: cheaper in
    // libsecp256k1 than pointAddScalar's multiplication; t·G uncompressed needs no square root to parse.
    const next = t === 0n ? base : ecc.pointAdd(base, ecc.pointFromScalar(tweak, false) as Uint8Array, true);
    if (!next) throw new MusigError("The result of tweaking cannot be infinity.");
    Q = next;
    gacc = negateQ ? mod(-gacc) : gacc;
    tacc = mod(t + (negateQ ? -tacc : tacc));
  });
  const second = pubkeys.find((k) => !bytesEqual(k, pubkeys[0]!));
  return { pubkeys, Q, gacc, tacc, list: taggedHash("KeyAgg list", concatBytes(...pubkeys)), second };
}

/** GetSessionKeyAggCoeff: fails if `pk` is not one of the session's keys. */
function keyAggCoeff(ctx: KeyAggContext, pk: Uint8Array): bigint {
  if (!ctx.pubkeys.some((k) => bytesEqual(k, pk))) throw new MusigError("The signer's pubkey must be included in the list of pubkeys.");
  if (ctx.second && bytesEqual(pk, ctx.second)) return 1n;
  return hashInt("KeyAgg coefficient", ctx.list, pk);
}

function nonceAgg(pubNonces: readonly Uint8Array[]): Uint8Array {
  if (pubNonces.length === 0) throw new MusigError("nonce aggregation needs at least one nonce");
  let sums: Uint8Array | undefined;
  try {
    sums = nonceSums(pubNonces);
  } catch {
    sums = undefined; // some nonce is invalid: the checking pass below names it
  }
  return sums ?? nonceAggChecked(pubNonces);
}

/**
 * Nonces this module computed (public nonces of NonceGen and DeterministicSign, aggregated nonces
 * of NonceAgg), by the array it returned: a copy of its bytes and its two points as libsecp256k1
 * produced them (uncompressed; null = infinity). NonceAgg and the session take these points
 * instead of parsing the bytes again (a square root each), and know them valid. Used only while
 * the array still holds those bytes. Public data, dropped with the array.
 */
type NoncePoints = [Uint8Array | null, Uint8Array | null];
const computedNonces = new WeakMap<Uint8Array, { bytes: Uint8Array; points: NoncePoints }>();

function rememberNonce(bytes: Uint8Array, points: NoncePoints): Uint8Array {
  computedNonces.set(bytes, { bytes: bytes.slice(), points });
  return bytes;
}

/** The points of a nonce this module computed, if `nonce` is that array and still holds its bytes. */
function computedPoints(nonce: Uint8Array): NoncePoints | undefined {
  const known = computedNonces.get(nonce);
  return known && bytesEqual(known.bytes, nonce) ? known.points : undefined;
}

/** Compressed encoding of a point given compressed or uncompressed. */
function compressed(p: Uint8Array): Uint8Array {
  if (p.length === 33) return p;
  const out = p.slice(0, 33);
  out[0] = (p[64]! & 1) === 1 ? 3 : 2;
  return out;
}

/**
 * NonceAgg's sums, each point validated by the `pointAdd` that takes it in; a point no addition
 * takes (a single nonce, or the first after a partial sum at infinity) is checked on its own.
 * Returns undefined (or libsecp256k1 throws) when a nonce is invalid.
 */
function nonceSums(pubNonces: readonly Uint8Array[]): Uint8Array | undefined {
  for (const nonce of pubNonces) if (nonce.length !== 66) return undefined;
  const known = pubNonces.map(computedPoints);
  const out = new Uint8Array(66);
  const halves: NoncePoints = [null, null];
  for (let half = 0; half < 2; half++) {
    let sum: Uint8Array | null = null;
    let unchecked = false; // `sum` is a nonce's point that no libsecp256k1 call has parsed yet
    for (let i = 0; i < pubNonces.length; i++) {
      // a point we computed is valid (infinity is not: a public nonce's half is then its bytes, refused)
      const ours = known[i]?.[half];
      const R = ours ?? pubNonces[i]!.subarray(33 * half, 33 * half + 33);
      if (sum === null) {
        sum = R; // infinity + R = R
        unchecked = !ours;
      } else {
        sum = ecc.pointAdd(sum, R, false); // parses both: throws on an invalid point; null = infinity
        unchecked = false;
      }
    }
    if (sum && unchecked && !isCPoint(sum)) return undefined;
    if (sum) out.set(compressed(sum), 33 * half); // infinity stays 33 zero bytes
    halves[half] = sum;
  }
  return rememberNonce(out, halves);
}

/** NonceAgg checking each nonce before adding it: blames the first invalid one (BIP-327 order). */
function nonceAggChecked(pubNonces: readonly Uint8Array[]): Uint8Array {
  const out = new Uint8Array(66);
  for (const half of [0, 1]) {
    let sum: Uint8Array | null = null;
    for (let i = 0; i < pubNonces.length; i++) {
      const nonce = pubNonces[i]!;
      const R = nonce.subarray(33 * half, 33 * half + 33);
      if (nonce.length !== 66 || !isCPoint(R)) throw new MusigInvalidContributionError(i, "pubnonce");
      // null is the point at infinity: infinity + R = R
      sum = sum ? ecc.pointAdd(sum, R, true) : R;
    }
    if (sum) out.set(sum, 33 * half); // infinity stays 33 zero bytes
  }
  return out;
}

/** The public nonce `k1·G ‖ k2·G` (constant-time generator multiplications of the secret scalars). */
function nonceFromScalars(k1: Uint8Array, k2: Uint8Array): Uint8Array {
  const R1 = ecc.pointFromScalar(k1, false) as Uint8Array;
  const R2 = ecc.pointFromScalar(k2, false) as Uint8Array;
  return rememberNonce(concatBytes(compressed(R1), compressed(R2)), [R1, R2]);
}

class LibsecpSession implements MusigBackendSession {
  private readonly ctx: KeyAggContext;
  private readonly aggNonce: Uint8Array;
  private readonly b: bigint;
  private readonly R: Uint8Array;
  private readonly e: bigint;

  constructor(aggNonce: Uint8Array, pubkeys: readonly Uint8Array[], message: Uint8Array, tweaks: readonly Uint8Array[], isXonly: readonly boolean[]) {
    this.ctx = keyAggContext(pubkeys, tweaks, isXonly);
    const invalid = (): Error => new MusigInvalidContributionError(null, "aggnonce");
    if (aggNonce.length !== 66) throw invalid();
    this.aggNonce = Uint8Array.from(aggNonce);
    const Qx = xbytes(this.ctx.Q);
    this.b = hashInt("MuSig/noncecoef", this.aggNonce, Qx, message);
    const ours = computedPoints(aggNonce);
    if (ours) {
      this.R = addMulComputed(ours[0], ours[1], this.b) ?? G;
    } else {
      this.R = nonceR(infinityOr(this.aggNonce.subarray(0, 33)), infinityOr(this.aggNonce.subarray(33)), this.b, invalid) ?? G;
    }
    this.e = hashInt("BIP0340/challenge", xbytes(this.R), Qx, message);
  }

  sign(secNonce: Uint8Array, secretKey: Uint8Array, ownCheckBy?: "aggregate"): Uint8Array {
    return this.signWith(secNonce, secretKey, ownCheckBy === "aggregate" ? "aggregate" : "own");
  }

  /**
   * Sign. With `check` "own" (BIP-327's Sign), the secret key must be the nonce's key
   * (`d·G = pk`) and the partial signature is checked with PartialSigVerifyInternal before it is
   * returned. With "aggregate" the caller never releases the partial signature and verifies the
   * final signature under the aggregate key, which fails unless the partial is right for the
   * nonce's key: both checks move there (the coefficient is the nonce key's, so a secret key of
   * another key, or a faulty result, gives a final signature that does not verify).
   * `known`: the signer's key and public nonce, computed by the caller from these very secrets
   * (deterministic signing), so not computed again.
   */
  signWith(secNonce: Uint8Array, secretKey: Uint8Array, check: "own" | "aggregate", known?: { pk: Uint8Array; pubNonce: Uint8Array }): Uint8Array {
    if (secNonce.length !== 97) throw new MusigError("secret nonce must be 97 bytes");
    const k1Bytes = secNonce.slice(0, 32);
    const k2Bytes = secNonce.slice(32, 64);
    const noncePk = secNonce.slice(64);
    secNonce.fill(0, 0, 64); // never usable again, even if signing fails below
    try {
      const k1p = bytesToBigInt(k1Bytes);
      const k2p = bytesToBigInt(k2Bytes);
      if (k1p === 0n || k1p >= N) throw new MusigError("first secnonce value is out of range.");
      if (k2p === 0n || k2p >= N) throw new MusigError("second secnonce value is out of range.");
      const d0 = scalar(secretKey, "secret key");
      if (d0 === 0n || d0 >= N) throw new MusigError("secret key is out of range");
      let P: Uint8Array = noncePk;
      if (check === "own") {
        P = known?.pk ?? (ecc.pointFromScalar(secretKey, true) as Uint8Array);
        if (!bytesEqual(P, noncePk)) throw new MusigError("the secret nonce belongs to another key");
      }
      const { ctx, b, e } = this;
      const a = keyAggCoeff(ctx, P);
      const evenR = hasEvenY(this.R);
      const k1 = evenR ? k1p : N - k1p;
      const k2 = evenR ? k2p : N - k2p;
      const g = hasEvenY(ctx.Q) ? 1n : N - 1n;
      const d = mod(g * ctx.gacc * d0);
      const psig = bigIntTo32(mod(k1 + b * k2 + e * a * d));
      // BIP-327 checks its own partial signature before releasing it (guards against faults).
      if (check === "own" && !this.verifyInternal(psig, known?.pubNonce ?? nonceFromScalars(k1Bytes, k2Bytes), P)) throw new MusigError("own partial signature does not verify");
      return psig;
    } finally {
      k1Bytes.fill(0);
      k2Bytes.fill(0);
    }
  }

  /**
   * PartialSigVerifyInternal. `pubNonce`'s points are checked by the `addMul` that takes them
   * (throws on an invalid one), unless this module computed that nonce (then its points are
   * taken as computed); `pk` must be one of the session's keys (so a valid point; the coefficient
   * lookup refuses any other).
   */
  private verifyInternal(psig: Uint8Array, pubNonce: Uint8Array, pk: Uint8Array): boolean {
    if (psig.length !== 32) return false;
    const s = bytesToBigInt(psig);
    if (s >= N) return false;
    const { ctx, b, e } = this;
    const a = keyAggCoeff(ctx, pk);
    const ours = computedPoints(pubNonce);
    const ReP = ours ? addMulComputed(ours[0], ours[1], b) : addMul(pubNonce.subarray(0, 33), pubNonce.subarray(33, 66), b);
    const Re = ReP && !hasEvenY(this.R) ? negateCompressed(ReP) : ReP;
    const g = mod((hasEvenY(ctx.Q) ? 1n : N - 1n) * ctx.gacc);
    const right = addMul(Re, pk, mod(e * a * g));
    const left = s === 0n ? null : ecc.pointFromScalar(psig, true);
    return left === null || right === null ? left === right : bytesEqual(left, right);
  }

  partialSigVerify(partialSig: Uint8Array, pubNonces: readonly Uint8Array[], index: number): boolean {
    const pks = this.ctx.pubkeys;
    if (pubNonces.length !== pks.length) throw new MusigError("one public nonce per participant");
    if (!Number.isInteger(index) || index < 0 || index >= pks.length) throw new MusigError("signer index outside the session");
    if (!bytesEqual(nonceAgg(pubNonces), this.aggNonce)) return false;
    return this.verifyInternal(partialSig, pubNonces[index]!, pks[index]!);
  }

  partialSigVerifyInternal(partialSig: Uint8Array, pubNonce: Uint8Array, index: number): boolean {
    const pks = this.ctx.pubkeys;
    if (!Number.isInteger(index) || index < 0 || index >= pks.length) throw new MusigError("signer index outside the session");
    if (pubNonce.length !== 66) return false;
    try {
      return this.verifyInternal(partialSig, pubNonce, pks[index]!); // its addMul parses (checks) both nonce points
    } catch {
      return false;
    }
  }

  partialSigAgg(partialSigs: readonly Uint8Array[]): Uint8Array {
    if (partialSigs.length !== this.ctx.pubkeys.length) throw new MusigError("one partial signature per participant");
    let s = 0n;
    partialSigs.forEach((p, i) => {
      const si = p.length === 32 ? bytesToBigInt(p) : N;
      if (si >= N) throw new MusigInvalidContributionError(i, "psig");
      s += si;
    });
    const g = hasEvenY(this.ctx.Q) ? 1n : N - 1n;
    return concatBytes(xbytes(this.R), bigIntTo32(mod(s + this.e * g * this.ctx.tacc)));
  }
}

function checkLength(bytes: Uint8Array | undefined, sizes: readonly number[], what: string): void {
  if (bytes !== undefined && !sizes.includes(bytes.length)) throw new MusigError(`${what} must be ${sizes.join(" or ")} bytes`);
}

/** `sk XOR hash_MuSig/aux(rand)`. */
function blind(secretKey: Uint8Array, rand: Uint8Array): Uint8Array {
  const h = taggedHash("MuSig/aux", rand);
  for (let i = 0; i < 32; i++) h[i] = (h[i] as number) ^ (secretKey[i] as number);
  return h;
}

/** The two nonce scalars `hash_tag(parts ‖ bytes(1, i))` mod n, i = 0, 1. */
function nonceScalars(tag: string, parts: readonly Uint8Array[]): [Uint8Array, Uint8Array] {
  const ks = [0, 1].map((i) => {
    const k = hashInt(tag, ...parts, u8(i));
    if (k === 0n) throw new MusigError("nonce scalar is zero");
    return bigIntTo32(k);
  });
  return [ks[0]!, ks[1]!];
}

/** BIP-327 on libsecp256k1. */
export const libsecpMusig: MusigBackend = {
  keyAgg(pubkeys, tweaks, isXonly) {
    return Uint8Array.from(keyAggContext(pubkeys, tweaks, isXonly).Q);
  },

  nonceGen(pubkey, secretKey, aggPubkeyXOnly, message, extraIn, rand): MusigBackendNonce {
    checkLength(pubkey, [33], "pubkey");
    checkLength(secretKey, [32], "secret key");
    checkLength(aggPubkeyXOnly, [0, 32], "aggregate key");
    checkLength(rand, [32], "randomness");
    const extra = extraIn ?? new Uint8Array(0);
    if (extra.length > 0xffffffff) throw new MusigError("extra input too long");
    const aggpk = aggPubkeyXOnly ?? new Uint8Array(0);
    const seed = secretKey ? blind(secretKey, rand) : rand;
    const msgPrefixed = message === undefined ? [u8(0)] : [u8(1), be(message.length, 8), message];
    const [k1, k2] = nonceScalars("MuSig/nonce", [seed, u8(pubkey.length), pubkey, u8(aggpk.length), aggpk, ...msgPrefixed, be(extra.length, 4), extra]);
    if (secretKey) seed.fill(0);
    const out = { secNonce: concatBytes(k1, k2, pubkey), pubNonce: nonceFromScalars(k1, k2) };
    k1.fill(0);
    k2.fill(0);
    return out;
  },

  nonceAgg,

  session(aggNonce, pubkeys, message, tweaks, isXonly) {
    return new LibsecpSession(aggNonce, pubkeys, message, tweaks, isXonly);
  },

  deterministicSign(secretKey, aggOtherNonce, pubkeys, message, tweaks, isXonly, rand) {
    checkLength(secretKey, [32], "secret key");
    checkLength(rand, [32], "randomness");
    const seed = rand ? blind(secretKey, rand) : Uint8Array.from(secretKey);
    const Qx = xbytes(keyAggContext(pubkeys, tweaks, isXonly).Q);
    if (aggOtherNonce.length !== 66) throw new MusigInvalidContributionError(null, "aggothernonce");
    const [k1, k2] = nonceScalars("MuSig/deterministic/nonce", [seed, aggOtherNonce, Qx, be(message.length, 8), message]);
    seed.fill(0);
    const d = scalar(secretKey, "secret key");
    if (d === 0n || d >= N) throw new MusigError("secret key is out of range");
    const pubNonce = nonceFromScalars(k1, k2);
    const pk = ecc.pointFromScalar(secretKey, true) as Uint8Array;
    const secNonce = concatBytes(k1, k2, pk);
    k1.fill(0);
    k2.fill(0);
    let aggNonce: Uint8Array;
    try {
      aggNonce = nonceAgg([pubNonce, aggOtherNonce]);
    } catch (e) {
      secNonce.fill(0);
      if (e instanceof MusigInvalidContributionError) throw new MusigInvalidContributionError(null, "aggothernonce");
      throw e;
    }
    try {
      return { pubNonce, partialSig: new LibsecpSession(aggNonce, pubkeys, message, tweaks, isXonly).signWith(secNonce, secretKey, "own", { pk, pubNonce }) };
    } finally {
      secNonce.fill(0);
    }
  },
};
