/**
 * Mempool acceptance of one transaction (Core's PreChecks → ReplacementChecks →
 * PolicyScriptChecks; Core's ConsensusScriptChecks cannot fail after it here, since the standard
 * script flags include the mandatory ones). `evaluate` decides without changing anything;
 * `commit` applies a positive verdict (evicting what it replaces).
 */
import { displayHex } from "../consensus/bytes.js";
import type { Coin } from "../node/chain-state.js";
import {
  ConsensusError,
  STANDARD_SCRIPT_VERIFY_FLAGS,
  checkTransaction,
  encodeTx,
  isCoinbase,
  isFinal,
  sequenceLocksOk,
  sigOps,
  txFacts,
  type Tx,
} from "../node/consensus-port.js";
import { COINBASE_MATURITY } from "../node/coinbase.js";
import type { Mempool, MempoolEntry, SpentCoin } from "./mempool.js";
import { allConflicts, checkReplacement } from "./rbf.js";
import {
  MAX_STANDARD_TX_SIGOPS_COST,
  checkInputsStandard,
  checkStandardTx,
  checkWitnessStandard,
  dustOutputs,
  type Refusal,
} from "./standard.js";
import { checkMempoolScripts, DEFAULT_SCRIPT_FAILURE_WORDING, type ScriptFailureWording } from "./script-failure.js";
import { checkTruc, TRUC_VERSION } from "./truc.js";

/** What acceptance needs to know about the chain. */
export interface ChainView {
  /** Tip height (the next block is `height + 1`). */
  readonly height: number;
  /** Median time past of the tip. */
  readonly tipMtp: number;
  mtpAt(height: number): number;
  coin(txid: string, vout: number): Coin | undefined;
  isConfirmed(txid: string): boolean;
  /** The node's clock, unix seconds. */
  now(): number;
}

/** Relay policy knobs (bitcoind defaults). */
export interface PolicySettings {
  readonly minRelaySatPerVb: number;
  readonly incrementalRelaySatPerVb: number;
  readonly fullRbf: boolean;
  readonly ancestorLimit: number;
  readonly ancestorSizeLimitVb: number;
  readonly descendantLimit: number;
  readonly descendantSizeLimitVb: number;
  /** How a script failure is worded (see {@link ScriptFailureWording}); Core master's by default. */
  readonly scriptFailureWording: ScriptFailureWording;
}

/** bitcoind's default policy. */
export const DEFAULT_POLICY: PolicySettings = {
  minRelaySatPerVb: 1,
  incrementalRelaySatPerVb: 1,
  fullRbf: true,
  ancestorLimit: 25,
  ancestorSizeLimitVb: 101_000,
  descendantLimit: 25,
  descendantSizeLimitVb: 101_000,
  scriptFailureWording: DEFAULT_SCRIPT_FAILURE_WORDING,
};

/** Per-call switches. */
export interface EvaluateOptions {
  /** Skip the minimum-fee check (a package will check its feerate as a whole). */
  readonly bypassFeeCheck?: boolean;
  /** Allow replacing mempool transactions (false in test packages, as bitcoind). */
  readonly allowReplacement?: boolean;
}

/** A refusal with what was learned about the transaction. */
export interface Rejected extends Refusal {
  readonly ok: false;
  readonly txid: string;
  readonly wtxid: string;
  /** True when only the feerate failed, so a package may still carry it. */
  readonly reconsiderable: boolean;
  readonly vsize: number;
  readonly fee?: bigint;
}

/** A positive verdict. */
export interface Accepted {
  readonly ok: true;
  readonly entry: MempoolEntry;
  /** Mempool txids to evict (conflicts, their descendants, an evicted TRUC sibling). */
  readonly replaces: ReadonlySet<string>;
}

export type Verdict = Accepted | Rejected;

/** Decides mempool acceptance against a chain view and the mempool. */
export class MempoolAcceptor {
  constructor(
    private readonly chain: ChainView,
    private readonly mempool: Mempool,
    private readonly settings: PolicySettings = DEFAULT_POLICY,
  ) {}

  /** Evaluates `tx` without changing the mempool. */
  evaluate(tx: Tx, opts: EvaluateOptions = {}): Verdict {
    const facts = txFacts(tx);
    const { txid, wtxid, vsize } = facts;
    const reject = (reason: string, debug?: string, extra: { fee?: bigint; reconsiderable?: boolean } = {}): Rejected => ({
      ok: false,
      reason,
      ...(debug === undefined ? {} : { debug }),
      txid,
      wtxid,
      vsize,
      reconsiderable: extra.reconsiderable ?? false,
      ...(extra.fee === undefined ? {} : { fee: extra.fee }),
    });
    try {
      checkTransaction(tx);
    } catch (err) {
      if (err instanceof ConsensusError) return reject(err.code, err.message === err.code ? undefined : err.message);
      throw err;
    }
    if (isCoinbase(tx)) return reject("coinbase");
    const std = checkStandardTx(tx, facts.weight, encodeTx(tx, false).length);
    if (std) return reject(std.reason, std.debug);
    const nextHeight = this.chain.height + 1;
    if (!isFinal(tx, nextHeight, this.chain.tipMtp)) return reject("non-final");
    if (this.mempool.txidOfWtxid(wtxid) !== undefined) return reject("txn-already-in-mempool");
    if (this.mempool.has(txid)) return reject("txn-same-nonwitness-data-in-mempool");

    // conflicts and coins
    const direct = new Set<string>();
    const spent: SpentCoin[] = [];
    const inputParents: (string | undefined)[] = [];
    for (const input of tx.inputs) {
      const prevTxid = displayHex(input.prevTxid);
      const conflict = this.mempool.spender(prevTxid, input.prevVout);
      if (conflict) direct.add(conflict.txid);
      const parent = this.mempool.get(prevTxid);
      const out = parent?.tx.outputs[input.prevVout];
      if (parent && out) {
        spent.push({ txid: prevTxid, vout: input.prevVout, value: out.value, scriptPubKey: out.scriptPubKey, coinbase: false });
        inputParents.push(prevTxid);
        continue;
      }
      const coin = this.chain.coin(prevTxid, input.prevVout);
      if (!coin) {
        if (this.chain.isConfirmed(txid)) return reject("txn-already-known");
        return reject("bad-txns-inputs-missingorspent");
      }
      spent.push(coin);
      inputParents.push(undefined);
    }
    if (direct.size > 0) {
      if (!opts.allowReplacement) return reject("bip125-replacement-disallowed");
      if (!this.settings.fullRbf) {
        for (const t of direct) {
          if (!this.signalsRbf(t)) return reject("txn-mempool-conflict");
        }
      }
    }
    const coinHeights = spent.map((c) => c.height ?? nextHeight);
    const mtpAt = (h: number): number => (h > this.chain.height ? this.chain.tipMtp : this.chain.mtpAt(h));
    if (!sequenceLocksOk(tx, coinHeights, nextHeight, this.chain.tipMtp, mtpAt)) return reject("non-BIP68-final");
    for (const c of spent) {
      if (c.coinbase && c.height !== undefined && nextHeight - c.height < COINBASE_MATURITY) {
        return reject("bad-txns-premature-spend-of-coinbase", `tried to spend coinbase at depth ${nextHeight - c.height}`);
      }
    }
    const valueIn = spent.reduce((n, c) => n + c.value, 0n);
    const valueOut = tx.outputs.reduce((n, o) => n + o.value, 0n);
    if (valueIn < valueOut) return reject("bad-txns-in-belowout", `value in (${valueIn}) < value out (${valueOut})`);
    const fee = valueIn - valueOut;
    const inputsStd = checkInputsStandard(tx, spent) ?? checkWitnessStandard(tx, spent);
    if (inputsStd) return reject(inputsStd.reason, inputsStd.debug, { fee });
    const spentOutputs = spent.map((c) => ({ amount: c.value, scriptPubKey: c.scriptPubKey }));
    const sigopCost = sigOps(tx, spentOutputs, STANDARD_SCRIPT_VERIFY_FLAGS);
    if (sigopCost > MAX_STANDARD_TX_SIGOPS_COST) return reject("bad-txns-too-many-sigops", `${sigopCost}`, { fee });
    if (dustOutputs(tx).length > 0 && fee !== 0n) return reject("dust", "tx with dust output must be 0-fee", { fee });
    if (!opts.bypassFeeCheck) {
      const required = BigInt(Math.ceil(this.settings.minRelaySatPerVb * vsize));
      if (fee < required) return reject("min relay fee not met", `${fee} < ${required}`, { fee, reconsiderable: true });
    }

    // ancestors, descendants, TRUC, replacement
    const parents = new Set(inputParents.filter((p): p is string => p !== undefined));
    const ancestors = this.mempool.ancestorsOfParents(parents);
    const limits = this.checkChainLimits(ancestors, vsize);
    if (limits) return reject(limits.reason, limits.debug, { fee });
    const replacing = allConflicts(this.mempool, direct);
    const truc = checkTruc({ txid, wtxid, version: tx.version, vsize, parents, replacing }, this.mempool);
    if (!truc.ok) return reject(truc.refusal.reason, truc.refusal.debug, { fee });
    let suffix = "";
    if (truc.siblingToEvict) {
      direct.add(truc.siblingToEvict);
      suffix = " (including sibling eviction)";
    }
    if (direct.size > 0) {
      const refusal = checkReplacement(
        this.mempool,
        { txid, fee, vsize, ancestors, inputParents },
        direct,
        this.settings.incrementalRelaySatPerVb,
        suffix,
      );
      if (refusal) return reject(refusal.reason, refusal.debug, { fee });
    }
    const ephemeral = this.checkEphemeralSpends(tx, parents, txid, wtxid);
    if (ephemeral) return reject(ephemeral.reason, ephemeral.debug, { fee });

    // scripts under the standard flags; a failure is worded as settings.scriptFailureWording says
    const scripts = checkMempoolScripts({ tx, txid, wtxid, spent }, this.settings.scriptFailureWording);
    if (scripts) return reject(scripts.reason, scripts.debug, { fee });

    const entry: MempoolEntry = {
      tx,
      raw: facts.raw,
      txid,
      wtxid,
      fee,
      vsize,
      weight: facts.weight,
      sigopCost,
      time: this.chain.now(),
      height: this.chain.height,
      spent,
      signalsRbf: tx.version === TRUC_VERSION || tx.inputs.some((i) => i.sequence >>> 0 < 0xfffffffe),
    };
    return { ok: true, entry, replaces: allConflicts(this.mempool, direct) };
  }

  /** Applies an accepted verdict; returns the evicted txids. */
  commit(verdict: Accepted): MempoolEntry[] {
    const removed: MempoolEntry[] = [];
    for (const t of this.mempool.topoSort(verdict.replaces)) {
      if (this.mempool.has(t)) removed.push(...this.mempool.removeWithDescendants(t));
    }
    this.mempool.add(verdict.entry);
    return removed;
  }

  /** True when an entry or one of its ancestors signals BIP-125 (bitcoind's `bip125-replaceable`). */
  signalsRbf(txid: string): boolean {
    const entry = this.mempool.get(txid);
    if (!entry) return false;
    if (entry.signalsRbf) return true;
    return [...this.mempool.ancestors(txid)].some((a) => this.mempool.get(a)!.signalsRbf);
  }

  private checkChainLimits(ancestors: ReadonlySet<string>, vsize: number): Refusal | undefined {
    const s = this.settings;
    if (ancestors.size + 1 > s.ancestorLimit) {
      return { reason: "too-long-mempool-chain", debug: `too many unconfirmed ancestors [limit: ${s.ancestorLimit}]` };
    }
    let ancestorVsize = vsize;
    for (const a of ancestors) ancestorVsize += this.mempool.get(a)!.vsize;
    if (ancestorVsize > s.ancestorSizeLimitVb) {
      return { reason: "too-long-mempool-chain", debug: `exceeds ancestor size limit [limit: ${s.ancestorSizeLimitVb}]` };
    }
    for (const a of ancestors) {
      const d = this.mempool.descendantStats(a);
      if (d.count + 1 > s.descendantLimit) {
        return { reason: "too-long-mempool-chain", debug: `too many descendants for tx ${a} [limit: ${s.descendantLimit}]` };
      }
      if (d.vsize + vsize > s.descendantSizeLimitVb) {
        return { reason: "too-long-mempool-chain", debug: `exceeds descendant size limit for tx ${a} [limit: ${s.descendantSizeLimitVb}]` };
      }
    }
    return undefined;
  }

  /** Core's CheckEphemeralSpends: every child must itself spend every dust output of each unconfirmed parent. */
  private checkEphemeralSpends(tx: Tx, parents: ReadonlySet<string>, txid: string, wtxid: string): Refusal | undefined {
    const spends = new Set(tx.inputs.map((i) => `${displayHex(i.prevTxid)}:${i.prevVout}`));
    for (const p of parents) {
      const parent = this.mempool.get(p)!;
      for (const vout of dustOutputs(parent.tx)) {
        if (!spends.has(`${p}:${vout}`)) {
          return { reason: "missing-ephemeral-spends", debug: `tx ${txid} (wtxid=${wtxid}) did not spend parent's ephemeral dust` };
        }
      }
    }
    return undefined;
  }
}
