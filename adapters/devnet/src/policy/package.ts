/**
 * Packages: bitcoind's `testmempoolaccept` over several transactions (each judged alone, in
 * order, on top of the earlier ones; nothing kept) and `submitpackage` (a child with its
 * parents; parents that only miss the minimum feerate are carried by the package feerate).
 */
import { displayHex } from "../consensus/bytes.js";
import { txFacts, type Tx } from "../node/consensus-port.js";
import type { AcceptFees, MempoolAcceptResult, PackageTxResult, SubmitPackageResult } from "../node/types.js";
import type { Accepted, MempoolAcceptor, PolicySettings, Verdict } from "./accept.js";
import type { Mempool, MempoolEntry } from "./mempool.js";
import { PolicyError } from "./policy-error.js";

export const MAX_PACKAGE_COUNT = 25;
export const MAX_PACKAGE_WEIGHT = 404_000;

/** Mempool changes made while judging a package, so they can be undone. */
export class Staging {
  readonly added: MempoolEntry[] = [];
  readonly removed: MempoolEntry[] = [];

  constructor(private readonly mempool: Mempool) {}

  /** Applies a verdict through the acceptor and records it. */
  apply(acceptor: MempoolAcceptor, verdict: Accepted): void {
    this.removed.push(...acceptor.commit(verdict));
    this.added.push(verdict.entry);
  }

  /** Restores the mempool as it was before the first apply. */
  rollback(): void {
    for (const e of [...this.added].reverse()) this.mempool.remove(e.txid);
    for (const e of this.removed) if (!this.mempool.has(e.txid)) this.mempool.add(e);
    this.added.length = 0;
    this.removed.length = 0;
  }
}

/** Core's IsWellFormedPackage: the reason a package is malformed, or undefined. */
export function packageShapeError(txs: readonly Tx[]): string | undefined {
  if (txs.length > MAX_PACKAGE_COUNT) return "package-too-many-transactions";
  const facts = txs.map(txFacts);
  if (facts.reduce((n, f) => n + f.weight, 0) > MAX_PACKAGE_WEIGHT) return "package-too-large";
  const ids = facts.map((f) => f.txid);
  if (new Set(ids).size !== ids.length) return "package-contains-duplicates";
  const later = new Set(ids);
  const spent = new Set<string>();
  for (let i = 0; i < txs.length; i++) {
    later.delete(ids[i]!);
    for (const input of txs[i]!.inputs) {
      const prev = displayHex(input.prevTxid);
      if (later.has(prev)) return "package-not-sorted";
      const key = `${prev}:${input.prevVout}`;
      if (spent.has(key)) return "conflict-in-package";
      spent.add(key);
    }
  }
  return undefined;
}

/** True when every transaction but the last is a parent of the last, and no parent spends another. */
export function isChildWithParents(txs: readonly Tx[]): boolean {
  if (txs.length < 2) return true;
  const ids = txs.map((t) => txFacts(t).txid);
  const child = txs[txs.length - 1]!;
  const childParents = new Set(child.inputs.map((i) => displayHex(i.prevTxid)));
  const parentIds = new Set(ids.slice(0, -1));
  for (const p of parentIds) if (!childParents.has(p)) return false;
  for (const parent of txs.slice(0, -1)) {
    if (parent.inputs.some((i) => parentIds.has(displayHex(i.prevTxid)))) return false;
  }
  return true;
}

function feerate(fee: bigint, vsize: number): number {
  return Number(fee) / vsize;
}

function ownFees(entry: MempoolEntry): AcceptFees {
  return { baseSat: entry.fee, effectiveFeerateSatPerVb: feerate(entry.fee, entry.vsize), effectiveIncludes: [entry.wtxid] };
}

function detail(v: { reason: string; debug?: string }): string {
  return v.debug ? `${v.reason}, ${v.debug}` : v.reason;
}

/** bitcoind's testmempoolaccept verdict for a refusal (`missing-inputs` replaces the missing-coin reason there). */
function refusedResult(txid: string, wtxid: string, v: { reason: string; debug?: string }): MempoolAcceptResult {
  if (v.reason === "bad-txns-inputs-missingorspent") return { txid, wtxid, allowed: false, rejectReason: "missing-inputs" };
  return { txid, wtxid, allowed: false, rejectReason: v.reason, rejectDetails: detail(v) };
}

/**
 * `testmempoolaccept`: judges each transaction on top of the earlier ones and keeps nothing.
 * As bitcoind: when one is refused, only that one carries a verdict (the others come back with
 * ids only); when all pass, the first above `maxFeeRateSatPerVb` is refused with
 * `max-fee-exceeded` and those after it come back with ids only.
 */
export function testAccept(
  acceptor: MempoolAcceptor,
  mempool: Mempool,
  txs: readonly Tx[],
  maxFeeRateSatPerVb: number,
): MempoolAcceptResult[] {
  const facts = txs.map(txFacts);
  const blank = (): MempoolAcceptResult[] => facts.map((f) => ({ txid: f.txid, wtxid: f.wtxid }));
  if (txs.length > 1) {
    const shape = packageShapeError(txs);
    if (shape) return facts.map((f) => ({ txid: f.txid, wtxid: f.wtxid, packageError: shape }));
  }
  const staging = new Staging(mempool);
  const accepted: MempoolEntry[] = [];
  try {
    for (const [i, tx] of txs.entries()) {
      const v = acceptor.evaluate(tx, { allowReplacement: txs.length === 1 });
      if (!v.ok) {
        const results = blank();
        results[i] = refusedResult(v.txid, v.wtxid, v);
        return results;
      }
      accepted.push(v.entry);
      staging.apply(acceptor, v);
    }
  } finally {
    staging.rollback();
  }
  const results = blank();
  for (const [i, e] of accepted.entries()) {
    if (maxFeeRateSatPerVb > 0 && feerate(e.fee, e.vsize) > maxFeeRateSatPerVb) {
      results[i] = { txid: e.txid, wtxid: e.wtxid, allowed: false, rejectReason: "max-fee-exceeded" };
      break;
    }
    results[i] = { txid: e.txid, wtxid: e.wtxid, allowed: true, vsize: e.vsize, fees: ownFees(e) };
  }
  return results;
}

/** Outcome of {@link submitPackage}: the RPC-shaped result and the mempool changes it made. */
export interface PackageSubmission {
  readonly result: SubmitPackageResult;
  readonly added: readonly MempoolEntry[];
  readonly removed: readonly MempoolEntry[];
}

/**
 * `submitpackage`, following Bitcoin Core's AcceptPackage: each transaction is first tried on
 * its own (valid ones stay). If one fails for a reason other than its feerate or a missing
 * (in-package) parent, the package stops there: `transaction failed`. Otherwise those that failed
 * for feerate or missing inputs are judged again together, without the individual fee check, and
 * kept when their package feerate meets the minimum relay feerate (else `package-fee-too-low`);
 * a child leaving its parent's dust unspent gives `unspent-dust`; a TRUC rule broken inside the
 * package fails it with the rule's message as the package message. A transaction without a result
 * from the joint judgement reports its individual refusal.
 * A malformed package (too many or too large, conflicting parents) comes back as `packageMsg`
 * with every transaction `unevaluated`, as bitcoind answers.
 * @throws PolicyError when the package is not a child with its parents (bitcoind throws there too)
 */
export function submitPackage(
  acceptor: MempoolAcceptor,
  mempool: Mempool,
  txs: readonly Tx[],
  settings: PolicySettings,
): PackageSubmission {
  if (!isChildWithParents(txs)) {
    throw new PolicyError("package topology disallowed. not child-with-parents or parents depend on each other.");
  }
  const facts = txs.map(txFacts);
  const shape = packageShapeError(txs);
  if (shape) {
    const txResults = Object.fromEntries(facts.map((f) => [f.wtxid, { txid: f.txid, error: "unevaluated" }]));
    return { result: { packageMsg: shape, txResults, replacedTransactions: [] }, added: [], removed: [] };
  }
  const final = new Map<number, PackageTxResult>();
  const individualErrors = new Map<number, PackageTxResult>();
  const individual = new Staging(mempool);
  const retry: number[] = [];
  let quitEarly = false;

  for (const [i, tx] of txs.entries()) {
    const f = facts[i]!;
    const existing = mempool.txidOfWtxid(f.wtxid) ?? (mempool.has(f.txid) ? f.txid : undefined);
    if (existing) {
      const e = mempool.get(existing)!;
      final.set(i, { txid: f.txid, ...(e.wtxid !== f.wtxid ? { otherWtxid: e.wtxid } : {}), vsize: e.vsize, fees: ownFees(e) });
      continue;
    }
    const v = acceptor.evaluate(tx, { allowReplacement: true });
    if (v.ok) {
      individual.apply(acceptor, v);
      final.set(i, { txid: f.txid, vsize: v.entry.vsize, fees: ownFees(v.entry) });
      continue;
    }
    individualErrors.set(i, { txid: f.txid, vsize: v.vsize, error: detail(v) });
    if (txs.length > 1 && (v.reconsiderable || v.reason === "bad-txns-inputs-missingorspent")) retry.push(i);
    else quitEarly = true;
  }

  let packageMsg = quitEarly ? "transaction failed" : "success";
  const together = new Staging(mempool);
  if (!quitEarly && retry.length > 0) {
    const joint = judgeTogether(acceptor, together, retry.map((i) => txs[i]!), settings);
    if (joint.ok) {
      const effective: AcceptFees = {
        baseSat: 0n,
        effectiveFeerateSatPerVb: joint.feerate,
        effectiveIncludes: together.added.map((e) => e.wtxid),
      };
      for (const e of together.added) {
        const i = facts.findIndex((f) => f.txid === e.txid);
        final.set(i, { txid: e.txid, vsize: e.vsize, fees: { ...effective, baseSat: e.fee } });
      }
    } else {
      together.rollback();
      packageMsg = joint.packageMsg;
      if (joint.failedIndex !== undefined) {
        const i = retry[joint.failedIndex]!;
        final.set(i, { txid: facts[i]!.txid, vsize: joint.failure!.vsize, error: detail(joint.failure!) });
      }
    }
  }
  const txResults: Record<string, PackageTxResult> = {};
  facts.forEach((f, i) => {
    txResults[f.wtxid] = final.get(i) ?? individualErrors.get(i) ?? { txid: f.txid, error: "unevaluated" };
  });
  const removed = [...individual.removed, ...together.removed];
  const added = [...individual.added, ...together.added];
  return { result: { packageMsg, txResults, replacedTransactions: removed.map((e) => e.txid) }, added, removed };
}

/** Outcome of judging the retried transactions together. */
type JointVerdict =
  | { ok: true; feerate: number }
  | { ok: false; packageMsg: string; failedIndex?: number; failure?: { reason: string; debug?: string; vsize: number } };

/** Judges transactions together without individual fee checks, then checks their package feerate. */
function judgeTogether(acceptor: MempoolAcceptor, staging: Staging, txs: readonly Tx[], settings: PolicySettings): JointVerdict {
  for (const [i, tx] of txs.entries()) {
    const v = acceptor.evaluate(tx, { bypassFeeCheck: true, allowReplacement: false });
    if (!v.ok) {
      // Core checks the TRUC rules for the package as a whole: the package fails with their
      // message and each transaction keeps its own result.
      if (v.reason === "TRUC-violation") return { ok: false, packageMsg: detail(v) };
      const packageMsg = v.reason === "missing-ephemeral-spends" ? "unspent-dust" : "transaction failed";
      return { ok: false, packageMsg, failedIndex: i, failure: v };
    }
    staging.apply(acceptor, v);
  }
  const fees = staging.added.reduce((n, e) => n + e.fee, 0n);
  const vsize = staging.added.reduce((n, e) => n + e.vsize, 0);
  if (fees < BigInt(Math.ceil(settings.minRelaySatPerVb * vsize))) return { ok: false, packageMsg: "package-fee-too-low" };
  return { ok: true, feerate: feerate(fees, vsize) };
}
