/**
 * CPFP children for exit transactions (as in bark's `bark::exit`). Bitcoin Core (≥ 28) relays a
 * zero-fee v3 exit tx only in a 1-parent-1-child package: the child spends the parent's P2A
 * anchor plus confirmed wallet UTXOs and pays one change output; its fee covers both weights.
 *
 * | Property | Value |
 * |---|---|
 * | version | 3 (TRUC); the child must stay ≤ 1000 vB |
 * | inputs | the parent's P2A output (empty witness, 1 WU) + confirmed wallet UTXOs |
 * | outputs | one change output, kept above its dust limit |
 * | fee | `(parent weight + child weight) × feerate`; replacing a child: at least current package fee + 1 sat/vB × (parent weight) + 1 sat/vB × (child weight) |
 *
 * The child comes back unsigned (wallet inputs have empty witnesses); its weight is estimated
 * with the witness weight each UTXO declares (default: taproot key path).
 *
 * @example
 * ```ts
 * const child = buildCpfpChild({ parent: exitTx, feeRateSatPerKwu: 2_500n, utxos, changeScript });
 * // sign child.tx inputs 1.. with the wallet (prevouts: child.prevouts), then submitpackage([exitTx, child])
 * ```
 */
import { ProtocolError } from "./errors.js";
import { bytesEqual, type OutPoint, type TxOut } from "./encoding.js";
import { P2A_SCRIPT, classifyScript } from "./script.js";
import { txid, type Transaction } from "./tx.js";
import { DUST_LIMITS } from "./vtxo-validate.js";
import { FEE_ANCHOR_SPEND_WITNESS_WU, TAPROOT_KEYSPEND_WITNESS_WU } from "./constants.js";
import { SAT_PER_VB_IN_KWU, TXIN_BASE_WU, feeForWeightCeil, txOutWeight, txWeight } from "./exit-weight.js";

/** Maximum virtual size of a TRUC child with an unconfirmed parent. */
export const TRUC_CHILD_MAX_VSIZE = 1000;
/** nSequence of the child's inputs (signals replaceability). */
export const CPFP_INPUT_SEQUENCE = 0xfffffffd;

/** The child cannot be built (no anchor, not enough funds, too large). */
export class CpfpError extends ProtocolError {}

/** A confirmed on-chain wallet coin. */
export interface WalletUtxo {
  outpoint: OutPoint;
  txout: TxOut;
  /** Witness weight of spending it (default 66, taproot key path). */
  witnessWeight?: number;
}

/** Inputs of {@link buildCpfpChild}. */
export interface CpfpParams {
  /** The exit tx to bump (as it will be broadcast). */
  parent: Transaction;
  /** Target package feerate. */
  feeRateSatPerKwu: bigint;
  /** Confirmed wallet UTXOs (the caller excludes unconfirmed ones). */
  utxos: readonly WalletUtxo[];
  /** Script of the fresh change address. */
  changeScript: Uint8Array;
  /** An existing child being replaced: its package fee (the new one must beat it by 1 sat/vB). */
  replacing?: { packageFee: bigint };
}

/** A built (unsigned) child with its fee accounting. */
export interface CpfpChild {
  tx: Transaction;
  /** Spent outputs in input order (anchor first), for signing. */
  prevouts: TxOut[];
  fee: bigint;
  /** Estimated weight of the signed child. */
  weight: number;
  packageWeight: number;
}

/** Dust limit of a change script (Bitcoin Core's per-type limits; 330 for unknown kinds). */
export function changeDustLimit(script: Uint8Array): bigint {
  const kind = classifyScript(script);
  return kind in DUST_LIMITS ? DUST_LIMITS[kind as keyof typeof DUST_LIMITS] : 330n;
}

/** Finds the P2A anchor output of an exit tx. */
export function findAnchor(parent: Transaction): { vout: number; value: bigint } {
  const vout = parent.outputs.findIndex((o) => bytesEqual(o.script, P2A_SCRIPT));
  if (vout < 0) throw new CpfpError("parent has no P2A anchor output");
  return { vout, value: parent.outputs[vout]!.value };
}

/**
 * Builds the CPFP child of `parent`, adding wallet UTXOs (largest first) until they cover the
 * package fee plus a change output above dust.
 */
export function buildCpfpChild(p: CpfpParams): CpfpChild {
  if (p.feeRateSatPerKwu < 0n) throw new CpfpError("negative fee rate");
  const anchor = findAnchor(p.parent);
  const parentId = txid(p.parent);
  const parentWeight = txWeight(p.parent);
  const dust = changeDustLimit(p.changeScript);
  const pool = [...p.utxos].sort((a, b) => (a.txout.value > b.txout.value ? -1 : a.txout.value < b.txout.value ? 1 : 0));
  const selected: WalletUtxo[] = [];
  // version + locktime + input/output counts (1 byte each while small) + segwit marker/flag
  const fixed = (4 + 4 + 1 + 1) * 4 + 2 + txOutWeight(p.changeScript.length) + TXIN_BASE_WU + FEE_ANCHOR_SPEND_WITNESS_WU;
  for (;;) {
    const weight = fixed + selected.reduce((w, u) => w + TXIN_BASE_WU + (u.witnessWeight ?? TAPROOT_KEYSPEND_WITNESS_WU), 0);
    const packageWeight = parentWeight + weight;
    let fee = feeForWeightCeil(p.feeRateSatPerKwu, packageWeight);
    if (p.replacing) {
      // current package fee + 1 sat/vB on the parent + 1 sat/vB on the new child (each rounded up)
      const bump = p.replacing.packageFee + feeForWeightCeil(SAT_PER_VB_IN_KWU, parentWeight) + feeForWeightCeil(SAT_PER_VB_IN_KWU, weight);
      if (bump > fee) fee = bump;
    }
    const available = anchor.value + selected.reduce((s, u) => s + u.txout.value, 0n);
    if (available >= fee + dust) {
      if (Math.ceil(weight / 4) > TRUC_CHILD_MAX_VSIZE) throw new CpfpError("CPFP child exceeds the TRUC child size limit");
      const tx: Transaction = {
        version: 3,
        locktime: 0,
        inputs: [
          { prevout: { txid: parentId, vout: anchor.vout }, scriptSig: new Uint8Array(0), sequence: CPFP_INPUT_SEQUENCE, witness: [] },
          ...selected.map((u) => ({ prevout: u.outpoint, scriptSig: new Uint8Array(0), sequence: CPFP_INPUT_SEQUENCE, witness: [] as Uint8Array[] })),
        ],
        outputs: [{ value: available - fee, script: p.changeScript }],
      };
      return { tx, prevouts: [p.parent.outputs[anchor.vout]!, ...selected.map((u) => u.txout)], fee, weight, packageWeight };
    }
    const next = pool.shift();
    if (!next) throw new CpfpError(`insufficient confirmed funds for the CPFP child: need ${fee + dust}, have ${available}`);
    selected.push(next);
  }
}

/** Whether replacing a child at `currentFeeRateSatPerKwu` with `targetSatPerKwu` is attempted (strictly higher only). */
export function shouldReplaceChild(currentFeeRateSatPerKwu: bigint, targetSatPerKwu: bigint): boolean {
  return targetSatPerKwu > currentFeeRateSatPerKwu;
}
