/**
 * The two transactions an exit kit's runner signs itself: the CPFP child carrying each zero-fee
 * exit transaction (its anchor plus coins of a separate funding key, change back to that key),
 * and the claim of the VTXO outputs through the kit's clause once the delays have passed.
 *
 * The funding key is a plain secp256k1 key paid through a BIP-86 style P2TR output (key path,
 * no script tree), so any wallet importing `tr(<key>)` can also spend what is left on it.
 *
 * @example
 * ```ts
 * const funding = fundingKey(secret);
 * const child = signKitChild(step.tx, utxos, funding, 2_500n);         // submit [step.hex, child.hex]
 * const claim = signKitClaim([{ vtxo, secretKey }], script, tip, 750n);
 * ```
 */
import { ProtocolError } from "./errors.js";
import { bytesEqual, toHex, type OutPoint, type TxOut } from "./encoding.js";
import { pubkeyFromSecret, toXOnly } from "./keys.js";
import { taprootOutput } from "./taproot.js";
import { taprootSighash } from "./sighash.js";
import { signSchnorr, tweakSecretKey } from "./schnorr.js";
import { encodeTx, txidHex, type Transaction } from "./tx.js";
import { buildCpfpChild, type WalletUtxo } from "./exit-cpfp.js";
import { CLAIM_MIN_OUTPUT_SAT } from "./exit-claim.js";
import { feeForWeightCeil, txWeight } from "./exit-weight.js";
import type { KitVtxo } from "./exit-kit-parse.js";

/** A claim the kit cannot build (key mismatch, fee above the amount, timelock not reached). */
export class KitSpendError extends ProtocolError {}

/** The funding key of a runner: its P2TR key-path output. */
export interface FundingKey {
  /** The untweaked secret key (what the user backs up). */
  readonly secretKey: Uint8Array;
  readonly scriptPubKey: Uint8Array;
  /** x-only output key (for the address). */
  readonly outputKey: Uint8Array;
}

/** The BIP-86 style P2TR output of `secretKey`. */
export function fundingKey(secretKey: Uint8Array): FundingKey {
  const out = taprootOutput(toXOnly(pubkeyFromSecret(secretKey)));
  return { secretKey, scriptPubKey: out.scriptPubKey, outputKey: out.outputKey };
}

/** A signed transaction with its fee. */
export interface SignedKitTx {
  tx: Transaction;
  txid: string;
  hex: string;
  fee: bigint;
}

/**
 * The signed CPFP child of `parent` at `feeRateSatPerKwu` for the package, spending the anchor
 * and confirmed coins of `funding` (largest first), change back to `funding`.
 */
export function signKitChild(parent: Transaction, coins: readonly { outpoint: OutPoint; value: bigint }[], funding: FundingKey, feeRateSatPerKwu: bigint): SignedKitTx {
  const utxos: WalletUtxo[] = coins.map((c) => ({ outpoint: c.outpoint, txout: { value: c.value, script: funding.scriptPubKey } }));
  const child = buildCpfpChild({ parent, feeRateSatPerKwu, utxos, changeScript: funding.scriptPubKey });
  const tweaked = tweakSecretKey(funding.secretKey, null);
  const sigs = child.tx.inputs.map((_, i) => (i === 0 ? [] : [signSchnorr(taprootSighash(child.tx, i, child.prevouts), tweaked)]));
  const tx: Transaction = { ...child.tx, inputs: child.tx.inputs.map((inp, i) => ({ ...inp, witness: sigs[i]! })) };
  return { tx, txid: txidHex(tx), hex: toHex(encodeTx(tx)), fee: child.fee };
}

/** One VTXO output to claim with the secret key derived at its `key_path`. */
export interface KitClaimInput {
  vtxo: KitVtxo;
  secretKey: Uint8Array;
}

/**
 * The signed claim of `inputs` to `destinationScript`: version 2, nLockTime = `tipHeight`, each
 * input with nSequence = its CSV delta and the witness `[sig, leaf script, control block]`; the
 * fee is `feeRateSatPerKwu` × its weight, rounded up.
 */
export function signKitClaim(inputs: readonly KitClaimInput[], destinationScript: Uint8Array, tipHeight: number, feeRateSatPerKwu: bigint): SignedKitTx {
  if (inputs.length === 0) throw new KitSpendError("nothing to claim");
  for (const { vtxo, secretKey } of inputs) {
    if (!bytesEqual(pubkeyFromSecret(secretKey), vtxo.claim.pubkey)) {
      throw new KitSpendError(`the key derived at ${vtxo.claim.keyPath} is not the key of VTXO ${vtxo.id}: wrong seed?`);
    }
    if (vtxo.claim.cltvHeight > tipHeight) throw new KitSpendError(`VTXO ${vtxo.id} can be claimed from height ${vtxo.claim.cltvHeight}, the tip is ${tipHeight}`);
  }
  const prevouts: TxOut[] = inputs.map(({ vtxo }) => ({ value: vtxo.claim.amount, script: vtxo.claim.scriptPubKey }));
  const total = prevouts.reduce((t, p) => t + p.value, 0n);
  const build = (value: bigint, sigs: readonly Uint8Array[]): Transaction => ({
    version: 2,
    locktime: tipHeight,
    inputs: inputs.map(({ vtxo }, i) => ({
      prevout: vtxo.claim.outpoint, scriptSig: new Uint8Array(0), sequence: vtxo.claim.csvDelta,
      witness: [sigs[i]!, vtxo.claim.leafScript, vtxo.claim.controlBlock],
    })),
    outputs: [{ value, script: destinationScript }],
  });
  const placeholder = inputs.map(() => new Uint8Array(64));
  const fee = feeForWeightCeil(feeRateSatPerKwu, txWeight(build(total, placeholder)));
  if (fee + CLAIM_MIN_OUTPUT_SAT > total) throw new KitSpendError(`the claim fee ${fee} sat leaves less than ${CLAIM_MIN_OUTPUT_SAT} sat of ${total} sat`);
  const unsigned = build(total - fee, placeholder);
  const sigs = inputs.map(({ vtxo, secretKey }, i) => signSchnorr(taprootSighash(unsigned, i, prevouts, { leafHash: vtxo.claim.leafHash }), secretKey));
  const tx = build(total - fee, sigs);
  return { tx, txid: txidHex(tx), hex: toHex(encodeTx(tx)), fee };
}
