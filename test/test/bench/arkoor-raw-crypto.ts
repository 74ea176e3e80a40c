/**
 * The raw cost of an arkoor payment's own crypto, in this process with no I/O: the sender builds
 * the package (checkpoint and output txs, sighashes, taproot tweaks), makes its nonces and signs
 * each part's attestation; the server checks the attestations and partially signs every sighash;
 * the sender verifies the partial signatures and completes them; the payee validates the VTXOs it
 * was sent (every exit-chain signature from the anchor). It is what a payment cannot go below, so
 * the bench compares `POST /wallet/send` with it — each send with a replay of its own shape
 * ({@link paymentRawCryptoCost}).
 */
import {
  arkoorPackageVtxos, arkoorPartAttestation, arkoorPubNonces, arkoorServerCosign, arkoorUserFinish, arkoorUserNonces,
  buildArkoorPackage, DEFAULT_CHANGE_SPLIT_FACTOR, forgetExitChainSteps, splitChange, forgetSchnorrVerifications, pubkeyFromSecret, signAttestation, toHex, validateVtxo, verifyAttestation, type Transaction, type Vtxo,
} from "@tender/ark-protocol";
import { randomBytes } from "node:crypto";

/** Milliseconds per call of `fn` (median of `rounds` after two warm-up calls). */
function medianMs(fn: () => unknown, rounds: number): number {
  fn(); fn();
  const t: number[] = [];
  for (let i = 0; i < rounds; i++) {
    const s = performance.now();
    fn();
    t.push(performance.now() - s);
  }
  return t.sort((a, b) => a - b)[Math.floor(rounds / 2)]!;
}

/** What one payment's crypto costs, by side, in ms. */
export interface RawCryptoCost { senderAndServerMs: number; receiverValidationMs: number; totalMs: number; signatures: number; exitDepth: number }

/** What one payment's own crypto depends on: its inputs, its outputs, and what the payee received. */
export interface PaymentCryptoShape {
  /** The VTXOs it spent, in the order the payment spent them (their chains' shapes are kept, their keys replaced). */
  readonly inputs: readonly Vtxo[];
  /** The payee's amount (the payee's output is the package's first). */
  readonly payeeAmount: bigint;
  /** The change pieces, after the payee's output. */
  readonly change: readonly bigint[];
  /** Every VTXO the payee received from it, each with its chain anchor. */
  readonly received: readonly { readonly vtxo: Vtxo; readonly anchor: Transaction }[];
}

/**
 * `spent` is a VTXO like the one a payment spends (its chain shape is kept, its keys replaced by
 * fresh ones this process holds); `received` a VTXO as the payee got it, with its chain anchor;
 * the change is split in `changeSplitFactor` pieces when it is larger than the payment, as the
 * daemon does: the crypto of a payment that spends one VTXO.
 */
export function arkoorRawCryptoCost(spent: Vtxo, received: Vtxo, anchor: Transaction, amount: bigint, rounds = 40, changeSplitFactor = DEFAULT_CHANGE_SPLIT_FACTOR): RawCryptoCost {
  return paymentRawCryptoCost({ inputs: [spent], payeeAmount: amount, change: splitChange(spent.amount - amount, amount, changeSplitFactor), received: [{ vtxo: received, anchor }] }, rounds);
}

/**
 * The raw crypto of one payment of the given shape: the same inputs (each under a fresh key of its
 * own), the same outputs in the same order — so the same parts, sighashes and signatures as the
 * daemon made — and the validation of exactly the VTXOs the payee received. Throws when the
 * package rebuilt here does not give as many outputs as the payment had (its shape was misread).
 */
export function paymentRawCryptoCost(shape: PaymentCryptoShape, rounds = 40): RawCryptoCost {
  const serverSk = new Uint8Array(randomBytes(32));
  const serverPk = pubkeyFromSecret(serverSk);
  const payeePk = pubkeyFromSecret(new Uint8Array(randomBytes(32)));
  const secrets = new Map<string, Uint8Array>();
  const inputs: Vtxo[] = shape.inputs.map((spent) => {
    const sk = new Uint8Array(randomBytes(32));
    const pk = pubkeyFromSecret(sk);
    secrets.set(toHex(pk), sk);
    return { ...spent, serverPubkey: serverPk, policy: { type: "pubkey", userPubkey: pk } };
  });
  const keyFor = (pk: Uint8Array): Uint8Array => secrets.get(toHex(pk))!;
  // a fresh key for each change piece, as the daemon reserves them
  const outputs = [
    { amount: shape.payeeAmount, policy: { type: "pubkey" as const, userPubkey: payeePk } },
    ...shape.change.map((piece) => ({ amount: piece, policy: { type: "pubkey" as const, userPubkey: pubkeyFromSecret(new Uint8Array(randomBytes(32))) } })),
  ];
  let signatures = 0;
  let made = 0;
  const payment = (): number => {
    const pkg = buildArkoorPackage(inputs, outputs);
    const nonces = arkoorUserNonces(pkg, keyFor);
    for (const part of pkg.parts) {
      const att = arkoorPartAttestation(part);
      const sk = keyFor(part.signers[0]);
      if (!verifyAttestation(signAttestation(att, sk), att, part.signers[0])) throw new Error("attestation does not verify");
    }
    const sigs = arkoorUserFinish(pkg, keyFor, nonces, arkoorServerCosign(pkg, serverSk, arkoorPubNonces(nonces)));
    signatures = sigs.flat().filter((s) => s !== null).length;
    made = arkoorPackageVtxos(pkg, sigs).length;
    return made;
  };
  const senderAndServerMs = medianMs(payment, rounds);
  if (made !== shape.change.length + shape.received.length) {
    throw new Error(`the rebuilt package made ${made} outputs, the payment ${shape.change.length} change and ${shape.received.length} received`);
  }
  // every signature verified and every exit tx rebuilt afresh, as by a receiver seeing the chain
  // for the first time (a receiver remembers verified signatures and rebuilt steps, so later VTXOs
  // of one payer cost less)
  const receiverValidationMs = medianMs(() => {
    forgetSchnorrVerifications();
    forgetExitChainSteps();
    for (const r of shape.received) validateVtxo(r.vtxo, r.anchor);
  }, rounds);
  const exitDepth = Math.max(0, ...shape.received.map((r) => r.vtxo.genesis.length));
  return { senderAndServerMs, receiverValidationMs, totalMs: senderAndServerMs + receiverValidationMs, signatures, exitDepth };
}

/** The raw crypto of the sends of a phase, against each send's time. */
export interface SendsRawCrypto {
  /** The send at the median of the raw costs (its figures, all of one send). */
  readonly median: RawCryptoCost;
  /** The median of each send's time over its own raw crypto. */
  readonly medianRatio: number;
  /** Fewest and most signatures a send needed. */
  readonly signatures: readonly [number, number];
}

/** `paymentRawCryptoCost` of each shape (`rounds` each), with `latencies` the sends' times in the same order (ms). */
export function rawCryptoOfSends(shapes: readonly PaymentCryptoShape[], latencies: readonly number[], rounds = 7): SendsRawCrypto {
  if (shapes.length === 0 || shapes.length !== latencies.length) throw new Error(`${shapes.length} send shapes for ${latencies.length} send times`);
  const perSend = shapes.map((s) => paymentRawCryptoCost(s, rounds));
  const byCost = [...perSend].sort((a, b) => a.totalMs - b.totalMs);
  const ratios = perSend.map((c, i) => latencies[i]! / c.totalMs).sort((a, b) => a - b);
  const sigs = perSend.map((c) => c.signatures);
  return {
    median: byCost[Math.floor(byCost.length / 2)]!,
    medianRatio: ratios[Math.floor(ratios.length / 2)]!,
    signatures: [Math.min(...sigs), Math.max(...sigs)],
  };
}
