import { InsufficientFundsError } from "./errors.js";
import type { WalletUtxo } from "./tx-graph.js";
import { P2TR_KEYPATH_INPUT_WEIGHT, dustLimitSat, feeFor, outputWeight, overheadWeight } from "./tx-size.js";

/** What a spend must pay besides the wallet's own inputs. */
export interface SpendTarget {
  /** Outputs to pay, with their scripts. */
  readonly outputs: readonly { readonly script: Uint8Array; readonly valueSat: bigint }[];
  /** The fee rate in sat/vB (paid with sat/kvB precision, see `feeFor`). */
  readonly satPerVb: number;
  /** Script of the change output, if one is made. */
  readonly changeScript: Uint8Array;
  /** Weight of inputs that are not the wallet's (e.g. a P2A anchor) and their value. */
  readonly extraInputs?: { readonly weight: number; readonly valueSat: bigint; readonly count: number };
  /** Fee the transaction must pay on top of its own size (e.g. a CPFP parent's shortfall). */
  readonly extraFeeSat?: bigint;
  /** Only accept selections with a change output (a CPFP child has no other output). */
  readonly requireChange?: boolean;
}

/** The chosen inputs, the change (0 when none) and the fee. */
export interface Selection {
  readonly inputs: WalletUtxo[];
  readonly changeSat: bigint;
  readonly feeSat: bigint;
  readonly weight: number;
}

/** Weight of a transaction with `walletInputs` key-path inputs, the target's outputs, with or without change. */
export function spendWeight(target: SpendTarget, walletInputs: number, withChange: boolean): number {
  const extra = target.extraInputs ?? { weight: 0, count: 0, valueSat: 0n };
  const outs = target.outputs.length + (withChange ? 1 : 0);
  let w = overheadWeight(walletInputs + extra.count, outs) + walletInputs * P2TR_KEYPATH_INPUT_WEIGHT + extra.weight;
  for (const o of target.outputs) w += outputWeight(o.script.length);
  if (withChange) w += outputWeight(target.changeScript.length);
  return w;
}

/**
 * Picks wallet coins for a spend: confirmed coins first, then unconfirmed change of the wallet's
 * own transactions, largest first within each group, until amounts and fee are covered. Change
 * is made only when it is above its dust limit; otherwise the excess (less than a dust output
 * plus its cost) goes to the fee. Throws {@link InsufficientFundsError}, having changed nothing.
 */
export function selectCoins(candidates: readonly WalletUtxo[], target: SpendTarget): Selection {
  const ordered = [...candidates].sort((a, b) =>
    Number(b.confirmationHeight !== null) - Number(a.confirmationHeight !== null) || (b.valueSat > a.valueSat ? 1 : b.valueSat < a.valueSat ? -1 : 0));
  const pay = target.outputs.reduce((s, o) => s + o.valueSat, 0n);
  const extraValue = target.extraInputs?.valueSat ?? 0n;
  const extraFee = target.extraFeeSat ?? 0n;
  const changeDust = dustLimitSat(target.changeScript);
  const chosen: WalletUtxo[] = [];
  let total = extraValue;
  const trySettle = (): Selection | null => {
    const wChange = spendWeight(target, chosen.length, true);
    const feeChange = feeFor(wChange, target.satPerVb) + extraFee;
    const change = total - pay - feeChange;
    if (change >= changeDust) return { inputs: [...chosen], changeSat: change, feeSat: feeChange, weight: wChange };
    if (target.requireChange) return null;
    const wNo = spendWeight(target, chosen.length, false);
    const feeNo = feeFor(wNo, target.satPerVb) + extraFee;
    if (total - pay >= feeNo) return { inputs: [...chosen], changeSat: 0n, feeSat: total - pay, weight: wNo };
    return null;
  };
  if (chosen.length === 0 && extraValue > 0n) {
    const s = trySettle();
    if (s) return s;
  }
  for (const u of ordered) {
    chosen.push(u);
    total += u.valueSat;
    const s = trySettle();
    if (s) return s;
  }
  const needed = pay + feeFor(spendWeight(target, Math.max(1, chosen.length), !!target.requireChange), target.satPerVb) + extraFee
    + (target.requireChange ? changeDust : 0n);
  throw new InsufficientFundsError(needed, total);
}
