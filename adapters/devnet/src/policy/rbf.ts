/**
 * Replacement rules (BIP-125 as Bitcoin Core 28 applies them, full RBF by default): a
 * replacement pays a higher feerate than each transaction it directly conflicts with, at
 * least their total fees plus the incremental relay fee for its own size, adds no new
 * unconfirmed inputs, does not spend what it replaces, and evicts at most 100 transactions.
 */
import type { Mempool } from "./mempool.js";
import type { Refusal } from "./standard.js";

export const MAX_REPLACEMENT_CANDIDATES = 100;

/** The replacement under test. */
export interface ReplacementCandidate {
  readonly txid: string;
  readonly fee: bigint;
  readonly vsize: number;
  /** Its in-mempool ancestors. */
  readonly ancestors: ReadonlySet<string>;
  /** Txids of the mempool transactions creating each input's coin (undefined when confirmed). */
  readonly inputParents: readonly (string | undefined)[];
}

/** Every transaction a replacement would evict: the direct conflicts and their descendants. */
export function allConflicts(mempool: Mempool, direct: ReadonlySet<string>): Set<string> {
  const out = new Set<string>();
  for (const t of direct) {
    out.add(t);
    for (const d of mempool.descendants(t)) out.add(d);
  }
  return out;
}

/** Core's FormatMoney: BTC with trailing zeros trimmed down to two decimals. */
export function formatMoney(sat: bigint): string {
  const neg = sat < 0n;
  const abs = neg ? -sat : sat;
  let text = `${abs / 100_000_000n}.${(abs % 100_000_000n).toString().padStart(8, "0")}`;
  while (text.endsWith("0") && text.length - text.indexOf(".") > 3) text = text.slice(0, -1);
  return (neg ? "-" : "") + text;
}

function feerateText(fee: bigint, vsize: number): string {
  return `${((Number(fee) * 1000) / vsize / 1e8).toFixed(8)} BTC/kvB`;
}

/** Core's ReplacementChecks; `incrementalSatPerVb` is `-incrementalrelayfee` (1 sat/vB). */
export function checkReplacement(
  mempool: Mempool,
  c: ReplacementCandidate,
  direct: ReadonlySet<string>,
  incrementalSatPerVb: number,
  reasonSuffix = "",
): Refusal | undefined {
  const evicted = allConflicts(mempool, direct);
  if (evicted.size > MAX_REPLACEMENT_CANDIDATES) {
    return {
      reason: "too many potential replacements",
      debug: `rejecting replacement ${c.txid}; too many potential replacements (${evicted.size} > ${MAX_REPLACEMENT_CANDIDATES})`,
    };
  }
  for (const a of c.ancestors) {
    if (direct.has(a)) return { reason: "bad-txns-spends-conflicting-tx", debug: `${c.txid} spends conflicting transaction ${a}` };
  }
  const conflictParents = new Set<string>();
  for (const t of direct) for (const p of mempool.parents(t)) conflictParents.add(p);
  for (let i = 0; i < c.inputParents.length; i++) {
    const p = c.inputParents[i];
    if (p !== undefined && !conflictParents.has(p)) {
      return { reason: "replacement-adds-unconfirmed", debug: `replacement ${c.txid} adds unconfirmed input, idx ${i}` };
    }
  }
  for (const t of direct) {
    const old = mempool.get(t)!;
    // new feerate must beat the old one: fee/vsize > oldFee/oldVsize
    if (c.fee * BigInt(old.vsize) <= old.fee * BigInt(c.vsize)) {
      return {
        reason: `insufficient fee${reasonSuffix}`,
        debug: `rejecting replacement ${c.txid}; new feerate ${feerateText(c.fee, c.vsize)} <= old feerate ${feerateText(old.fee, old.vsize)}`,
      };
    }
  }
  let conflictFees = 0n;
  for (const t of evicted) conflictFees += mempool.get(t)!.fee;
  if (c.fee < conflictFees) {
    return { reason: `insufficient fee${reasonSuffix}`, debug: `rejecting replacement ${c.txid}, less fees than conflicting txs; ${formatMoney(c.fee)} < ${formatMoney(conflictFees)}` };
  }
  const required = BigInt(Math.ceil(incrementalSatPerVb * c.vsize));
  if (c.fee - conflictFees < required) {
    return {
      reason: `insufficient fee${reasonSuffix}`,
      debug: `rejecting replacement ${c.txid}, not enough additional fees to relay; ${formatMoney(c.fee - conflictFees)} < ${formatMoney(required)}`,
    };
  }
  return undefined;
}
