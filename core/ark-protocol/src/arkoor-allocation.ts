/**
 * Amount-level arkoor package rules (bark's `ark::arkoor::package` and `ark::arkoor`): splitting
 * outputs over inputs, per-input dust isolation, the server's output checks, and the wallet's
 * change split. Generic over the destination's policy type so the same algorithm serves the
 * wallet (real policies) and tests (labels).
 */
import { ProtocolError } from "./errors.js";

/** VTXO / P2TR dust limit in sats. */
export const VTXO_DUST_SAT = 330n;
/** Maximum normal (and, separately, isolated) outputs per input. */
export const MAX_ARKOOR_OUTPUTS_PER_LIST = 255;
/** captaind's default `max_arkoor_fanout`: outputs (normal + isolated) per input. */
export const DEFAULT_MAX_ARKOOR_FANOUT = 4;
/** captaind's default `max_vtxo_exit_depth`. */
export const DEFAULT_MAX_VTXO_EXIT_DEPTH = 100;

const U64_MAX = (1n << 64n) - 1n;

/** Why an arkoor package was refused. */
export type ArkoorErrorKind =
  | "unbalanced"
  | "no-outputs"
  | "overflow"
  | "invalid-amount"
  | "too-many-outputs"
  | "isolated-below-dust"
  | "fanout"
  | "exit-depth"
  | "dust-mix"
  | "input-policy"
  | "signature";

/** A refused arkoor package (allocation, isolation, server checks or co-signing). */
export class ArkoorError extends ProtocolError {
  constructor(
    readonly kind: ArkoorErrorKind,
    message: string,
  ) {
    super(message);
  }
}

/** An amount sent to a policy. */
export interface ArkoorDestination<P> {
  amount: bigint;
  policy: P;
}

/** One input's outputs after dust isolation. */
export interface IsolatedOutputs<P> {
  /** Outputs that each get a checkpoint output and an arkoor tx. */
  normal: ArkoorDestination<P>[];
  /** Dust outputs grouped behind one checkpoint output and a fan-out tx (empty = no isolation). */
  isolated: ArkoorDestination<P>[];
}

function sum(values: readonly bigint[], what: string): bigint {
  let s = 0n;
  for (const v of values) {
    if (v < 0n || v > U64_MAX) throw new ArkoorError("overflow", `${what} amount out of range`);
    s += v;
    if (s > U64_MAX) throw new ArkoorError("overflow", "Overflow");
  }
  return s;
}

/**
 * Splits `outputs` over the inputs in order: each input takes as much of the current output as
 * it still has; an output may continue into the next input. Totals must balance (arkoor has no
 * fee). Returns one destination list per input.
 */
export function allocateArkoorOutputs<P>(inputAmounts: readonly bigint[], outputs: readonly ArkoorDestination<P>[]): ArkoorDestination<P>[][] {
  if (outputs.length === 0) throw new ArkoorError("no-outputs", "NoOutputs");
  const input = sum(inputAmounts, "input");
  const output = sum(
    outputs.map((o) => o.amount),
    "output",
  );
  if (input !== output) throw new ArkoorError("unbalanced", `Unbalanced { input: ${input}, output: ${output} }`);
  const result: ArkoorDestination<P>[][] = [];
  let oi = 0;
  let outLeft = (outputs[0] as ArkoorDestination<P>).amount;
  for (const inAmount of inputAmounts) {
    const parts: ArkoorDestination<P>[] = [];
    let inLeft = inAmount;
    while (inLeft > 0n) {
      while (outLeft === 0n) {
        oi++;
        outLeft = (outputs[oi] as ArkoorDestination<P>).amount;
      }
      const take = inLeft < outLeft ? inLeft : outLeft;
      parts.push({ amount: take, policy: (outputs[oi] as ArkoorDestination<P>).policy });
      inLeft -= take;
      outLeft -= take;
    }
    result.push(parts);
  }
  return result;
}

/**
 * Per-input dust isolation (dust limit 330): outputs below dust move to their own fan-out tx
 * when together they reach 330, or when a piece cut from the first large-enough output tops
 * them up to 330. That piece keeps its output's policy and goes first among the isolated ones.
 */
export function isolateDust<P>(outputs: readonly ArkoorDestination<P>[]): IsolatedOutputs<P> {
  const copy = (d: ArkoorDestination<P>): ArkoorDestination<P> => ({ amount: d.amount, policy: d.policy });
  const dust = outputs.filter((o) => o.amount < VTXO_DUST_SAT).map(copy);
  const nonDust = outputs.filter((o) => o.amount >= VTXO_DUST_SAT).map(copy);
  if (dust.length === 0 || nonDust.length === 0) return { normal: outputs.map(copy), isolated: [] };
  const dustSum = sum(
    dust.map((d) => d.amount),
    "output",
  );
  if (dustSum >= VTXO_DUST_SAT) return { normal: nonDust, isolated: dust };
  const nonDustSum = sum(
    nonDust.map((d) => d.amount),
    "output",
  );
  if (nonDustSum < 2n * VTXO_DUST_SAT) return { normal: outputs.map(copy), isolated: [] };
  const deficit = VTXO_DUST_SAT - dustSum;
  const donor = nonDust.find((d) => d.amount - deficit >= VTXO_DUST_SAT);
  if (!donor) return { normal: [...nonDust, ...dust], isolated: [] };
  donor.amount -= deficit;
  return { normal: nonDust, isolated: [{ amount: deficit, policy: donor.policy }, ...dust] };
}

/**
 * The structural checks every built part must pass (and that captaind applies to a
 * request): list sizes, isolated sum ≥ dust, fan-out, no "unnecessary" dust mix.
 */
export function checkArkoorOutputs<P>(
  part: IsolatedOutputs<P>,
  opts: { maxFanout?: number; inputExitDepth?: number; maxExitDepth?: number } = {},
): void {
  const { normal, isolated } = part;
  if (normal.length === 0 && isolated.length === 0) throw new ArkoorError("no-outputs", "NoOutputs");
  if (normal.length > MAX_ARKOOR_OUTPUTS_PER_LIST || isolated.length > MAX_ARKOOR_OUTPUTS_PER_LIST) {
    throw new ArkoorError("too-many-outputs", "too many arkoor outputs");
  }
  if (isolated.length > 0) {
    const s = sum(
      isolated.map((d) => d.amount),
      "output",
    );
    if (s < VTXO_DUST_SAT) throw new ArkoorError("isolated-below-dust", `isolated outputs sum to ${s}, below dust`);
  }
  for (const d of [...normal, ...isolated]) if (d.amount <= 0n) throw new ArkoorError("invalid-amount", "zero-value arkoor output");
  const fanout = opts.maxFanout ?? DEFAULT_MAX_ARKOOR_FANOUT;
  if (normal.length + isolated.length > fanout) throw new ArkoorError("fanout", `more than ${fanout} outputs for one input`);
  const maxDepth = opts.maxExitDepth ?? DEFAULT_MAX_VTXO_EXIT_DEPTH;
  if (opts.inputExitDepth !== undefined && opts.inputExitDepth >= maxDepth) {
    throw new ArkoorError("exit-depth", `input exit depth ${opts.inputExitDepth} reaches the maximum ${maxDepth}`);
  }
  for (const list of [normal, isolated]) {
    const hasDust = list.some((d) => d.amount < VTXO_DUST_SAT);
    const hasLarge = list.some((d) => d.amount >= 2n * VTXO_DUST_SAT);
    if (hasDust && hasLarge) throw new ArkoorError("dust-mix", "unnecessary mix of dust and non-dust outputs");
  }
}

/** Wallet default `change_vtxo_split_factor`. */
export const DEFAULT_CHANGE_SPLIT_FACTOR = 2;

/**
 * Change pieces (bark's `change_vtxo_split_factor`): change greater than the payment is split
 * into `splitFactor` pieces (1..3; each `change / n`, the last takes the remainder); otherwise
 * one piece; zero change gives none.
 */
export function splitChange(change: bigint, payment: bigint, splitFactor: number = DEFAULT_CHANGE_SPLIT_FACTOR): bigint[] {
  if (!Number.isInteger(splitFactor) || splitFactor < 1 || splitFactor > 3) throw new ArkoorError("invalid-amount", "change split factor must be 1..3");
  if (change < 0n || payment < 0n) throw new ArkoorError("invalid-amount", "negative amount");
  if (change === 0n) return [];
  if (change <= payment || splitFactor === 1) return [change];
  const n = BigInt(splitFactor);
  const base = change / n;
  const pieces: bigint[] = Array.from({ length: splitFactor - 1 }, () => base);
  pieces.push(change - base * (n - 1n));
  return pieces;
}
