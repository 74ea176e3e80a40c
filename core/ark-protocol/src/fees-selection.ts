/**
 * Fee-aware VTXO input selection (as bark's `bark::vtxo::selection`).
 *
 * Candidates are sorted by expiry height ascending, deeper exit depth first on ties; those at
 * or beyond `maxExitDepth` are dropped. Candidates are taken in order until the target is
 * covered; once `maxInputs` are selected, a candidate replaces the smallest selected one only
 * if it is larger. With a fee function the target is `amount + fee(selection)`, iterated
 * until the selection covers it (at most 100 rounds).
 */
import { FeeError } from "./fees.js";

/** A spendable VTXO offered to the selector. */
export interface SelectableVtxo {
  /** Caller's identifier (returned as-is). */
  id: string;
  amount: bigint;
  expiryHeight: number;
  exitDepth: number;
}

/** Not enough value among the candidates (barkd message format). */
export class InsufficientFundsError extends FeeError {
  constructor(
    readonly needed: bigint,
    readonly available: bigint,
    readonly maxInputs?: number,
  ) {
    super(
      maxInputs === undefined
        ? `Insufficient money available. Needed ${needed} but ${available} is available`
        : `Insufficient money available. Needed ${needed} but the best ${maxInputs} inputs only amount to ${available}`,
    );
  }
}

/** Options of {@link selectVtxos}. */
export interface SelectionOptions {
  /** Candidates with `exitDepth >= maxExitDepth` are never used. */
  maxExitDepth?: number;
  /** At most this many inputs. */
  maxInputs?: number;
  /** Fee as a function of the selection (Lightning send, send-onchain); absent = no fee. */
  fee?: (selected: readonly SelectableVtxo[]) => bigint;
}

/** The chosen inputs (soonest-expiring first) and the fee computed over them. */
export interface Selection<T extends SelectableVtxo> {
  selected: T[];
  total: bigint;
  fee: bigint;
}

const MAX_ROUNDS = 100;

/** Sorts candidates the way the reference does: expiry ascending, deeper first on ties. */
export function sortSelectionCandidates<T extends SelectableVtxo>(candidates: readonly T[]): T[] {
  return [...candidates].sort((a, b) => a.expiryHeight - b.expiryHeight || b.exitDepth - a.exitDepth);
}

interface Cover {
  /** Indices into the sorted candidates. */
  selected: number[];
  total: bigint;
}

function cover<T extends SelectableVtxo>(sorted: readonly T[], target: bigint, maxInputs: number | undefined): Cover {
  const selected: number[] = [];
  let total = 0n;
  for (let cursor = 0; cursor < sorted.length && total < target; cursor++) {
    const c = sorted[cursor] as T;
    if (maxInputs === undefined || selected.length < maxInputs) {
      selected.push(cursor);
      total += c.amount;
      continue;
    }
    // replace the smallest selected one (the latest-expiring on equal amounts) if c is larger
    let pos = 0;
    for (let i = 1; i < selected.length; i++) {
      const a = (sorted[selected[i]!] as T).amount;
      const b = (sorted[selected[pos]!] as T).amount;
      if (a < b || (a === b && selected[i]! > selected[pos]!)) pos = i;
    }
    const smallest = sorted[selected[pos]!] as T;
    if (c.amount > smallest.amount) {
      total += c.amount - smallest.amount;
      selected[pos] = cursor;
    }
  }
  return { selected, total };
}

/** Selects inputs covering `amount` (+ fee); throws {@link InsufficientFundsError}. */
export function selectVtxos<T extends SelectableVtxo>(candidates: readonly T[], amount: bigint, opts: SelectionOptions = {}): Selection<T> {
  if (amount < 0n) throw new FeeError("negative amount");
  if (opts.maxInputs !== undefined && opts.maxInputs < 1) throw new FeeError("maxInputs must be at least 1");
  const usable = candidates.filter((c) => opts.maxExitDepth === undefined || c.exitDepth < opts.maxExitDepth);
  const sorted = sortSelectionCandidates(usable);
  let fee = 0n;
  for (let round = 0; round < MAX_ROUNDS; round++) {
    const required = amount + fee;
    const r = cover(sorted, required, opts.maxInputs);
    if (r.total < required) {
      const best = opts.maxInputs !== undefined && sorted.length > opts.maxInputs ? opts.maxInputs : undefined;
      throw new InsufficientFundsError(required, r.total, best);
    }
    const selected = [...r.selected].sort((a, b) => a - b).map((i) => sorted[i] as T);
    if (!opts.fee) return { selected, total: r.total, fee: 0n };
    fee = opts.fee(selected);
    if (fee < 0n) throw new FeeError("negative fee");
    if (r.total >= amount + fee) return { selected, total: r.total, fee };
  }
  throw new FeeError(`input selection did not converge after ${MAX_ROUNDS} rounds`);
}
