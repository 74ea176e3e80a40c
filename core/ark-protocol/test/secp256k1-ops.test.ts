/**
 * The two builds of libsecp256k1 behind `secp256k1-ops.ts` (the native addon, tiny-secp256k1's
 * WASM) give the same answers: the same bytes, the same `null` for the point at infinity, and a
 * throw for the same bad inputs; BIP-340's verification written on the native point operations
 * passes the BIP's vectors; and the protocol's signing answers the same bytes on both.
 */
import { expect } from "chai";
import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { fromHex, toHex } from "../src/encoding.js";
import { bigIntTo32, bytesToBigInt } from "../src/scalar-bytes.js";
import { ecc, nativeSchnorrVerifiers, secp256k1Implementation, secp256k1Implementations, useSecp256k1, type Secp256k1Implementation, type Secp256k1Ops } from "../src/secp256k1-ops.js";
import { musigNonceGen, musigRespondCosignDeterministic } from "../src/musig.js";
import { forgetSchnorrVerifications, signSchnorr, verifySchnorr } from "../src/schnorr.js";

const N = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;
const P = 0xfffffffffffffffffffffffffffffffffffffffffffffffffffffffefffffc2fn;
const CSV = join(dirname(fileURLToPath(import.meta.url)), "../../../../test/vectors/bips/bip-0340/test-vectors.csv");

const rand = (n = 32) => new Uint8Array(randomBytes(n));
const scalar = () => bigIntTo32((bytesToBigInt(rand()) % (N - 1n)) + 1n);

/** What one call answered: its bytes (or structure), `null`, or that it threw. */
function outcome(f: () => unknown): string {
  try {
    const v = f();
    if (v === null) return "null";
    if (v instanceof Uint8Array) return toHex(v);
    if (typeof v === "object") return JSON.stringify(v, (_, x: unknown) => (x instanceof Uint8Array ? toHex(x) : x));
    return String(v);
  } catch {
    return "throws";
  }
}

function on<T>(impl: Secp256k1Implementation, f: () => T): T {
  const prev = useSecp256k1(impl);
  try {
    return f();
  } finally {
    useSecp256k1(prev);
  }
}

describe("secp256k1 operations: the native addon and tiny-secp256k1 (WASM) agree", () => {
  const impls = secp256k1Implementations();

  it("the native addon loads on this platform and is the default; TENDER_SECP256K1=wasm leaves it out", function () {
    if (process.env.TENDER_SECP256K1 === "wasm") {
      expect(impls).to.deep.equal(["wasm"]);
      expect(secp256k1Implementation()).to.equal("wasm");
      return;
    }
    if (process.platform !== "linux" || process.arch !== "x64") {
      console.log(`    native addon check skipped on ${process.platform}-${process.arch} (prebuilt for linux-x64 here)`);
      this.skip();
    }
    expect(impls).to.include("native");
    expect(secp256k1Implementation()).to.equal("native");
    // selecting one swaps its operations into `ecc` (else every comparison below compares one build with itself)
    const ops = impls.map((impl) => on(impl, () => ecc.pointAdd));
    expect(new Set(ops).size).to.equal(impls.length);
    expect(ecc.pointAdd).to.equal(ops[impls.indexOf("native")]);
  });

  /** Every case gives the same outcome on every implementation; answers how many did not throw. */
  const agree = (name: string, cases: ReadonlyArray<(o: Secp256k1Ops) => unknown>): number => {
    let answered = 0;
    cases.forEach((c, i) => {
      const seen = impls.map((impl) => on(impl, () => outcome(() => c(ecc))));
      expect(new Set(seen).size, `${name} case ${i}: ${impls.join(" / ")} answered ${seen.join(" / ")}`).to.equal(1);
      if (seen[0] !== "throws") answered++;
    });
    return answered;
  };

  const points = Array.from({ length: 24 }, () => ecc.pointFromScalar(scalar(), true)!);
  const uncompressed = points.slice(0, 6).map((p) => on("wasm", () => ecc.pointMultiply(p, bigIntTo32(1n), false)!));
  const notOnCurve = (() => {
    for (;;) {
      const c = Uint8Array.of(2, ...rand());
      if (!on("wasm", () => ecc.isPoint(c))) return c;
    }
  })();
  const xAboveP = Uint8Array.of(2, ...bigIntTo32(P + 1n));
  /** Hybrid encodings (06/07 and the y's parity) parse in libsecp256k1, so in both: one with the right and one with the wrong parity. */
  const hybrid = (u: Uint8Array, flip: boolean) => Uint8Array.of(((u[64]! & 1) === 1) !== flip ? 7 : 6, ...u.subarray(1));
  const badPoints = [notOnCurve, xAboveP, new Uint8Array(33), hybrid(uncompressed[0]!, false), hybrid(uncompressed[1]!, true), Uint8Array.of(4, ...points[0]!.subarray(1))];

  it("isPoint and isXOnlyPoint: valid, hybrid, off-curve, x ≥ p, wrong length", () => {
    agree("isPoint", [...points, ...uncompressed, ...badPoints, points[0]!.subarray(0, 32), rand(40)].map((p) => (o) => o.isPoint(p)));
    agree("isXOnlyPoint", [...points.map((p) => p.subarray(1)), notOnCurve.subarray(1), xAboveP.subarray(1), new Uint8Array(32), rand(33)].map((x) => (o) => o.isXOnlyPoint(x)));
  });

  it("pointFromScalar and xOnlyPointFromScalar: random, 1, n − 1; 0 and n throw", () => {
    const scalars = [...Array.from({ length: 16 }, scalar), bigIntTo32(1n), bigIntTo32(N - 1n), bigIntTo32(0n), bigIntTo32(N), rand(31)];
    expect(agree("pointFromScalar", scalars.flatMap((d) => [(o: Secp256k1Ops) => o.pointFromScalar(d, true), (o: Secp256k1Ops) => o.pointFromScalar(d, false)]))).to.equal(36);
    agree("xOnlyPointFromScalar", scalars.map((d) => (o) => o.xOnlyPointFromScalar(d)));
  });

  it("pointAdd: random sums in both encodings, P + (−P) is null, a bad point throws", () => {
    const cases: ((o: Secp256k1Ops) => unknown)[] = [];
    for (let i = 0; i + 1 < points.length; i += 2) cases.push((o) => o.pointAdd(points[i]!, points[i + 1]!, true), (o) => o.pointAdd(points[i]!, points[i + 1]!, false));
    const neg = Uint8Array.from(points[0]!);
    neg[0] = neg[0] === 2 ? 3 : 2;
    cases.push((o) => o.pointAdd(points[0]!, neg), (o) => o.pointAdd(points[1]!, points[1]!), (o) => o.pointAdd(uncompressed[1]!, points[2]!));
    for (const bad of badPoints) cases.push((o) => o.pointAdd(points[0]!, bad), (o) => o.pointAdd(bad, points[0]!));
    agree("pointAdd", cases);
    expect(on(impls[impls.length - 1]!, () => ecc.pointAdd(points[0]!, neg))).to.equal(null);
  });

  it("pointAddScalar: random, 0 (the point itself), n − 1; P + t·G at infinity is null; a tweak ≥ n or a bad point throws", () => {
    const tweaks = [...Array.from({ length: 8 }, scalar), bigIntTo32(0n), bigIntTo32(1n), bigIntTo32(N - 1n), bigIntTo32(N), bigIntTo32(N + 5n)];
    const cases: ((o: Secp256k1Ops) => unknown)[] = [];
    for (const [i, t] of tweaks.entries()) cases.push((o) => o.pointAddScalar(points[i]!, t, true), (o) => o.pointAddScalar(uncompressed[i % 6]!, t, false));
    // P = d·G, tweak n − d: the sum is the point at infinity
    const d = bytesToBigInt(scalar());
    const p = on("wasm", () => ecc.pointFromScalar(bigIntTo32(d), true)!);
    cases.push((o) => o.pointAddScalar(p, bigIntTo32(N - d)));
    for (const bad of badPoints) cases.push((o) => o.pointAddScalar(bad, tweaks[0]!));
    // answered: 11 in-range tweaks in both encodings, the sum at infinity (null), the hybrid point with the right parity
    expect(agree("pointAddScalar", cases)).to.equal(2 * 11 + 2);
    for (const impl of impls) expect(on(impl, () => ecc.pointAddScalar(p, bigIntTo32(N - d))), impl).to.equal(null);
  });

  it("pointMultiply: random, 1, n − 1; a zero tweak is null; a tweak ≥ n or a bad point throws", () => {
    const tweaks = [...Array.from({ length: 8 }, scalar), bigIntTo32(1n), bigIntTo32(N - 1n), bigIntTo32(0n), bigIntTo32(N), bigIntTo32(N + 5n)];
    const cases: ((o: Secp256k1Ops) => unknown)[] = [];
    for (const [i, t] of tweaks.entries()) cases.push((o) => o.pointMultiply(points[i]!, t, true), (o) => o.pointMultiply(uncompressed[i % 6]!, t, false));
    for (const bad of badPoints) cases.push((o) => o.pointMultiply(bad, tweaks[0]!));
    agree("pointMultiply", cases);
  });

  it("xOnlyPointAddTweak: parity and key; a tweak cancelling the key is null; a tweak ≥ n or a bad key throws", () => {
    const cases: ((o: Secp256k1Ops) => unknown)[] = points.map((p) => {
      const t = scalar();
      return (o) => o.xOnlyPointAddTweak(p.subarray(1), t);
    });
    // P = d·G with even y, tweak n − d: P + t·G is the point at infinity
    let d = bytesToBigInt(scalar());
    const p = on("wasm", () => ecc.pointFromScalar(bigIntTo32(d), true)!);
    if (p[0] === 3) d = N - d;
    const cancelling = bigIntTo32(N - d);
    cases.push((o) => o.xOnlyPointAddTweak(p.subarray(1), cancelling), (o) => o.xOnlyPointAddTweak(p.subarray(1), bigIntTo32(0n)));
    cases.push((o) => o.xOnlyPointAddTweak(p.subarray(1), bigIntTo32(N)), (o) => o.xOnlyPointAddTweak(notOnCurve.subarray(1), cancelling));
    agree("xOnlyPointAddTweak", cases);
    expect(on(impls[impls.length - 1]!, () => ecc.xOnlyPointAddTweak(p.subarray(1), cancelling))).to.equal(null);
  });

  it("verifySchnorr: every BIP-340 vector with a 32-byte message (15 of 19), on each implementation", () => {
    const rows = readFileSync(CSV, "utf8").trim().split(/\r?\n/).slice(1).map((l) => l.split(","));
    expect(rows).to.have.length(19);
    for (const impl of impls) {
      let compared = 0;
      for (const [index, , pk, , msg, sig, result] of rows) {
        // 32-byte messages only (the others go to noble in schnorr.ts); tiny-secp256k1 refuses a key
        // off the curve, and an r or s not below n, by throwing, where BIP-340 says "fail"
        if (msg!.length !== 64) continue;
        const got = on(impl, () => outcome(() => ecc.verifySchnorr(fromHex(msg!), fromHex(pk!), fromHex(sig!))));
        expect(got === "true", `${impl}: row ${index}`).to.equal(result === "TRUE");
        compared++;
      }
      expect(compared, `${impl}: rows compared`).to.equal(15);
    }
  });

  it("verifySchnorr: random signatures verify; a flipped bit, s ≥ n, r ≥ p, another key or message fail, alike on both", () => {
    const cases: ((o: Secp256k1Ops) => unknown)[] = [];
    for (let i = 0; i < 24; i++) {
      const sk = scalar();
      const msg = rand();
      const x = ecc.xOnlyPointFromScalar(sk);
      const sig = on("wasm", () => ecc.signSchnorr(msg, sk, rand()));
      const flipped = Uint8Array.from(sig);
      flipped[i % 64]! ^= 1 << (i % 8);
      const highS = Uint8Array.from(sig);
      highS.set(bigIntTo32(N + BigInt(i)), 32);
      const highR = Uint8Array.from(sig);
      highR.set(bigIntTo32(P + 1n), 0);
      cases.push((o) => o.verifySchnorr(msg, x, sig), (o) => o.verifySchnorr(msg, x, flipped), (o) => o.verifySchnorr(msg, x, highS), (o) => o.verifySchnorr(msg, x, highR));
      cases.push((o) => o.verifySchnorr(rand(), x, sig), (o) => o.verifySchnorr(msg, points[i]!.subarray(1), sig), (o) => o.verifySchnorr(msg, x, new Uint8Array(64)));
    }
    agree("verifySchnorr", cases);
    const sk = scalar();
    const msg = rand();
    for (const impl of impls) expect(on(impl, () => ecc.verifySchnorr(msg, ecc.xOnlyPointFromScalar(sk), ecc.signSchnorr(msg, sk, rand()))), impl).to.equal(true);
  });

  it("native verifySchnorr's two ways (ECDSA key recovery, the point sum for the 2^-128 cases) each pass the BIP-340 vectors and agree with WASM on random signatures", function () {
    const ways = nativeSchnorrVerifiers();
    if (!ways) {
      console.log("    native verification paths not checked: the addon did not load here");
      this.skip();
    }
    const rows = readFileSync(CSV, "utf8").trim().split(/\r?\n/).slice(1).map((l) => l.split(","));
    let compared = 0;
    for (const [index, , pk, , msg, sig, result] of rows) {
      // the inputs the checks before the two ways let through (a 32-byte message, a key on the curve, r and s below n)
      if (msg!.length !== 64 || outcome(() => on("wasm", () => ecc.verifySchnorr(fromHex(msg!), fromHex(pk!), fromHex(sig!)))) === "throws") continue;
      for (const [way, verify] of Object.entries(ways!)) expect(verify(fromHex(msg!), fromHex(pk!), fromHex(sig!)), `${way}: row ${index}`).to.equal(result === "TRUE");
      compared++;
    }
    expect(compared, "rows compared").to.equal(11);
    for (let i = 0; i < 32; i++) {
      const sk = scalar();
      const msg = rand();
      const x = on("wasm", () => ecc.xOnlyPointFromScalar(sk));
      const sig = on("wasm", () => ecc.signSchnorr(msg, sk, rand()));
      const bad = Uint8Array.from(sig);
      bad[i]! ^= 1;
      const zeroS = Uint8Array.from(sig);
      zeroS.fill(0, 32);
      for (const [m, k, sg] of [[msg, x, sig], [msg, x, bad], [rand(), x, sig], [msg, x, zeroS]] as const) {
        const want = on("wasm", () => ecc.verifySchnorr(m, k, sg));
        for (const [way, verify] of Object.entries(ways!)) expect(verify(m, k, sg), `${way}: case ${i}`).to.equal(want);
      }
      expect(ways!.recovery(msg, x, sig)).to.equal(true);
    }
  });

  it("verifySchnorr with a key whose x is at or above n (the recovery cannot take it: the point sum does) answers as WASM", () => {
    // the first x-only keys in [n, p) on the curve: no signature is known for them, so every one fails, alike
    const keys: Uint8Array[] = [];
    for (let x = N; keys.length < 3; x++) if (on("wasm", () => ecc.isXOnlyPoint(bigIntTo32(x)))) keys.push(bigIntTo32(x));
    const cases: ((o: Secp256k1Ops) => unknown)[] = [];
    for (const k of keys) {
      const sig = on("wasm", () => ecc.signSchnorr(rand(), scalar(), rand()));
      cases.push((o) => o.verifySchnorr(rand(), k, sig));
    }
    agree("verifySchnorr, x ≥ n", cases);
    for (const c of cases) for (const impl of impls) expect(on(impl, () => c(ecc)), impl).to.equal(false);
  });

  it("signSchnorr: every BIP-340 signing vector with a 32-byte message, on each implementation", () => {
    const rows = readFileSync(CSV, "utf8").trim().split(/\r?\n/).slice(1).map((l) => l.split(","));
    for (const impl of impls) {
      let compared = 0;
      for (const [index, sk, , aux, msg, sig] of rows) {
        if (!sk || msg!.length !== 64) continue;
        expect(on(impl, () => toHex(ecc.signSchnorr(fromHex(msg!), fromHex(sk), fromHex(aux!)))), `${impl}: row ${index}`).to.equal(sig!.toLowerCase());
        compared++;
      }
      expect(compared, `${impl}: rows compared`).to.equal(4);
    }
  });

  it("signSchnorr, privateAdd and privateNegate: the same bytes on both for random and edge inputs, the same throws, and the caller's bytes left as they were", () => {
    const one = bigIntTo32(1n);
    const top = bigIntTo32(N - 1n);
    const keys = [...Array.from({ length: 24 }, scalar), one, top];
    const sign: ((o: Secp256k1Ops) => unknown)[] = keys.flatMap((sk) => {
      const msg = rand();
      const aux = rand();
      return [(o: Secp256k1Ops) => o.signSchnorr(msg, sk, aux), (o: Secp256k1Ops) => o.signSchnorr(msg, sk), (o: Secp256k1Ops) => o.signSchnorr(msg, sk, new Uint8Array(32))];
    });
    const [m, a, k] = [rand(), rand(), scalar()];
    sign.push((o) => o.signSchnorr(m, bigIntTo32(0n), a), (o) => o.signSchnorr(m, bigIntTo32(N), a), (o) => o.signSchnorr(m.subarray(1), k, a), (o) => o.signSchnorr(m, k, a.subarray(1)));
    expect(agree("signSchnorr", sign), "signatures made").to.equal(keys.length * 3);
    const add: ((o: Secp256k1Ops) => unknown)[] = keys.map((d) => [d, scalar()] as const).flatMap(([d, t]) => [
      (o: Secp256k1Ops) => o.privateAdd(d, t), (o: Secp256k1Ops) => o.privateAdd(d, bigIntTo32(0n)),
      (o: Secp256k1Ops) => o.privateAdd(d, bigIntTo32(N - bytesToBigInt(d))), (o: Secp256k1Ops) => o.privateAdd(d, bigIntTo32(N)),
    ]);
    add.push((o) => o.privateAdd(bigIntTo32(0n), k), (o) => o.privateAdd(bigIntTo32(N), k), (o) => o.privateAdd(m.subarray(1), k));
    expect(agree("privateAdd", add), "sums made (the zero sums are null)").to.equal(keys.length * 3);
    const negate = [...keys, bigIntTo32(0n), bigIntTo32(N), rand(33)].map((d) => (o: Secp256k1Ops) => o.privateNegate(d));
    expect(agree("privateNegate", negate)).to.equal(keys.length);
    for (const impl of impls) {
      const d = scalar();
      const before = toHex(d);
      const tweak = scalar();
      on(impl, () => [ecc.signSchnorr(rand(), d, rand()), ecc.privateAdd(d, tweak), ecc.privateNegate(d)]);
      expect(toHex(d), `${impl}: the secret key after use`).to.equal(before);
    }
  });

  it("the protocol's signing gives the same bytes on both: BIP-340 with given randomness, MuSig2 deterministic co-signing", () => {
    for (let i = 0; i < 8; i++) {
      const sk = scalar();
      const msg = rand();
      const aux = rand();
      const userSk = scalar();
      const userPk = ecc.pointFromScalar(userSk, true)!;
      const serverSk = scalar();
      const otherPubNonce = musigNonceGen({ pubkey: userPk, secretKey: userSk, message: msg }).pubNonce;
      const answers = impls.map((impl) => on(impl, () => {
        forgetSchnorrVerifications();
        const sig = signSchnorr(msg, sk, aux);
        const cosign = musigRespondCosignDeterministic({ secretKey: serverSk, pubkey: ecc.pointFromScalar(serverSk, true)!, otherPubkey: userPk, otherPubNonce, message: msg, tweak: rand().fill(i) });
        return [toHex(sig), String(verifySchnorr(sig, msg, ecc.xOnlyPointFromScalar(sk))), toHex(cosign.pubNonce), toHex(cosign.partialSig)].join(" ");
      }));
      expect(new Set(answers).size, answers.join(" | ")).to.equal(1);
    }
  });
});
