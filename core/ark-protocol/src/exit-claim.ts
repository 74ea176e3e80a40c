/**
 * The claim (drain) transaction of matured exits (as in bark's `bark::exit`): every claimable VTXO is
 * spent through the first exit clause the wallet can sign, into one output.
 *
 * | Property | Value |
 * |---|---|
 * | version / locktime | 2 / the current tip height |
 * | inputs | each VTXO outpoint, nSequence = CSV of the clause (0 if none) |
 * | witness | `[sig, (preimage), script, control block]`; BIP-341 script path, SIGHASH_DEFAULT, all prevouts |
 * | output | Σ amounts − fee to the destination |
 * | fee | feerate × weight of the signed tx (rounded up); refused if fee + 330 > Σ amounts |
 *
 * @example
 * ```ts
 * const { tx, fee } = buildClaimTx({ inputs: [{ vtxo, secretKey }], destinationScript, tipHeight, feeRateSatPerKwu: 750n });
 * ```
 */
import { ProtocolError } from "./errors.js";
import { bytesEqual, type TxOut } from "./encoding.js";
import { toXOnly, pubkeyFromSecret } from "./keys.js";
import { clauseLocktime, clauseNeedsPreimage, clauseScript, clauseSequence, type Clause } from "./clause.js";
import { exitClauses, policyTaproot, type VtxoPolicy } from "./policy.js";
import type { TapLeaf } from "./taproot.js";
import { taprootSighash } from "./sighash.js";
import { signSchnorr } from "./schnorr.js";
import { sha256 } from "./hashes.js";
import type { Transaction } from "./tx.js";
import { vtxoPolicyContext, type BareVtxo } from "./vtxo.js";
import { feeForWeightCeil, txWeight } from "./exit-weight.js";

/** Minimum value left after the claim fee. */
export const CLAIM_MIN_OUTPUT_SAT = 330n;

/** A claim that cannot be built. */
export class ClaimError extends ProtocolError {}

/** One exited VTXO to claim and what the wallet has to sign for it. */
export interface ClaimInput {
  vtxo: BareVtxo<VtxoPolicy>;
  /** Secret key of the wallet key in the clause. */
  secretKey: Uint8Array;
  /** Preimage for hash clauses (HTLC receive). */
  preimage?: Uint8Array;
}

/** The clause a claim input will use, with its leaf. */
export interface ClaimSpend {
  clause: Clause;
  leaf: TapLeaf;
  prevout: TxOut;
  sequence: number;
}

/**
 * The first wallet-signable exit clause of a VTXO, in the policy's clause order: a user clause whose
 * key is `secretKey`'s and, for hash clauses, whose preimage is known.
 */
export function claimSpend(input: ClaimInput): ClaimSpend {
  const { vtxo } = input;
  const ctx = vtxoPolicyContext(vtxo);
  const tr = policyTaproot(vtxo.policy, ctx);
  const myKey = toXOnly(pubkeyFromSecret(input.secretKey));
  for (const { clause, signer } of exitClauses(vtxo.policy, ctx)) {
    if (signer !== "user" || !bytesEqual(clause.key, myKey)) continue;
    if (clauseNeedsPreimage(clause)) {
      if (!input.preimage || !("hash" in clause) || !bytesEqual(sha256(input.preimage), clause.hash)) continue;
    }
    const script = clauseScript(clause);
    const leaf = tr.leaves.find((l) => bytesEqual(l.script, script));
    if (!leaf) throw new ClaimError("clause leaf missing from the policy taproot");
    return { clause, leaf, prevout: { value: vtxo.amount, script: tr.scriptPubKey }, sequence: clauseSequence(clause) };
  }
  throw new ClaimError("no exit clause of this VTXO can be signed by the wallet");
}

/** Parameters of {@link buildClaimTx}. */
export interface ClaimParams {
  inputs: readonly ClaimInput[];
  destinationScript: Uint8Array;
  tipHeight: number;
  feeRateSatPerKwu: bigint;
  /** 32-byte BIP-340 aux randomness (tests pass zeros); random when absent. */
  auxRand?: Uint8Array;
}

/** A signed claim tx. */
export interface ClaimTx {
  tx: Transaction;
  fee: bigint;
  weight: number;
  prevouts: TxOut[];
}

/** Builds and signs the claim tx. */
export function buildClaimTx(p: ClaimParams): ClaimTx {
  if (p.inputs.length === 0) throw new ClaimError("nothing to claim");
  const spends = p.inputs.map(claimSpend);
  for (const s of spends) {
    if (clauseLocktime(s.clause) > p.tipHeight) throw new ClaimError(`clause needs height ${clauseLocktime(s.clause)}, tip is ${p.tipHeight}`);
  }
  const total = spends.reduce((t, s) => t + s.prevout.value, 0n);
  const prevouts = spends.map((s) => s.prevout);
  const build = (value: bigint, sigs: Uint8Array[]): Transaction => ({
    version: 2,
    locktime: p.tipHeight,
    inputs: p.inputs.map((inp, i) => {
      const s = spends[i]!;
      const witness = [sigs[i]!, ...(clauseNeedsPreimage(s.clause) ? [inp.preimage!] : []), s.leaf.script, s.leaf.controlBlock];
      return { prevout: inp.vtxo.point, scriptSig: new Uint8Array(0), sequence: s.sequence, witness };
    }),
    outputs: [{ value, script: p.destinationScript }],
  });
  const placeholder = p.inputs.map(() => new Uint8Array(64));
  const weight = txWeight(build(total, placeholder));
  const fee = feeForWeightCeil(p.feeRateSatPerKwu, weight);
  if (fee + CLAIM_MIN_OUTPUT_SAT > total) throw new ClaimError(`claim fee ${fee} leaves less than ${CLAIM_MIN_OUTPUT_SAT} sat of ${total}`);
  const unsigned = build(total - fee, placeholder);
  const sigs = spends.map((s, i) => signSchnorr(taprootSighash(unsigned, i, prevouts, { leafHash: s.leaf.leafHash }), p.inputs[i]!.secretKey, p.auxRand));
  return { tx: build(total - fee, sigs), fee, weight, prevouts };
}
