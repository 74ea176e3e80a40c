/**
 * The raw cost of one arkoor payment's own crypto, in this process with no I/O: the sender
 * builds the package (checkpoint and output txs, sighashes, taproot tweaks), makes its nonces and
 * signs the input attestation; the server checks the attestation and partially signs every
 * sighash; the sender verifies the partial signatures and completes them; the receiver validates
 * the VTXO it was sent (every exit-chain signature from the anchor). It is what a payment cannot
 * go below, so the bench compares `POST /wallet/send` with it.
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

/**
 * `spent` is a VTXO like the one a payment spends (its chain shape is kept, its keys replaced by
 * fresh ones this process holds); `received` a VTXO as the payee got it, with its chain anchor;
 * the change is split in `changeSplitFactor` pieces when it is larger than the payment, as the
 * daemon does.
 */
export function arkoorRawCryptoCost(spent: Vtxo, received: Vtxo, anchor: Transaction, amount: bigint, rounds = 40, changeSplitFactor = DEFAULT_CHANGE_SPLIT_FACTOR): RawCryptoCost {
  const [userSk, serverSk, payeeSk] = [0, 1, 2].map(() => new Uint8Array(randomBytes(32)));
  const [userPk, serverPk, payeePk] = [userSk!, serverSk!, payeeSk!].map(pubkeyFromSecret);
  const input: Vtxo = { ...spent, serverPubkey: serverPk!, policy: { type: "pubkey", userPubkey: userPk! } };
  const secrets = new Map([[toHex(userPk!), userSk!]]);
  const keyFor = (pk: Uint8Array): Uint8Array => secrets.get(toHex(pk))!;
  // the payment's own package: the payee's output and the change split as the daemon splits it
  // (its default `change_vtxo_split_factor`), so as many signatures as a payment of the bench needs
  const outputs = [
    { amount, policy: { type: "pubkey" as const, userPubkey: payeePk! } },
    ...splitChange(input.amount - amount, amount, changeSplitFactor).map((piece) => ({ amount: piece, policy: { type: "pubkey" as const, userPubkey: userPk! } })),
  ];
  let signatures = 0;
  const payment = (): number => {
    const pkg = buildArkoorPackage([input], outputs);
    const nonces = arkoorUserNonces(pkg, keyFor);
    for (const part of pkg.parts) {
      const att = arkoorPartAttestation(part);
      if (!verifyAttestation(signAttestation(att, userSk!), att, userPk!)) throw new Error("attestation does not verify");
    }
    const sigs = arkoorUserFinish(pkg, keyFor, nonces, arkoorServerCosign(pkg, serverSk!, arkoorPubNonces(nonces)));
    signatures = sigs.flat().filter((s) => s !== null).length;
    return arkoorPackageVtxos(pkg, sigs).length;
  };
  const senderAndServerMs = medianMs(payment, rounds);
  // every signature verified and every exit tx rebuilt afresh, as by a receiver seeing the chain
  // for the first time (a receiver remembers verified signatures and rebuilt steps, so later VTXOs
  // of one payer cost less)
  const receiverValidationMs = medianMs(() => {
    forgetSchnorrVerifications();
    forgetExitChainSteps();
    return validateVtxo(received, anchor);
  }, rounds);
  return { senderAndServerMs, receiverValidationMs, totalMs: senderAndServerMs + receiverValidationMs, signatures, exitDepth: received.genesis.length };
}
