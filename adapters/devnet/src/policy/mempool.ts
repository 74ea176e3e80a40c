/**
 * The mempool's storage: entries with their in-mempool parents and children, the outpoints
 * they spend, and ancestor/descendant walks. Policy decisions live elsewhere (see accept.ts);
 * this class only keeps the graph consistent.
 */
import type { Tx } from "../consensus/index.js";

/** A coin a mempool transaction spends (confirmed or from a mempool parent). */
export interface SpentCoin {
  readonly txid: string;
  readonly vout: number;
  readonly value: bigint;
  readonly scriptPubKey: Uint8Array;
  /** Confirmation height, or undefined when created by a mempool transaction. */
  readonly height?: number;
  readonly coinbase: boolean;
}

/** One transaction in the mempool. */
export interface MempoolEntry {
  readonly tx: Tx;
  readonly raw: Uint8Array;
  readonly txid: string;
  readonly wtxid: string;
  readonly fee: bigint;
  readonly vsize: number;
  readonly weight: number;
  readonly sigopCost: number;
  /** Entry time on the node's clock. */
  readonly time: number;
  /** Tip height at entry. */
  readonly height: number;
  readonly spent: readonly SpentCoin[];
  /** Signals BIP-125 replaceability itself (an input sequence < 0xfffffffe) or is v3. */
  readonly signalsRbf: boolean;
}

function key(txid: string, vout: number): string {
  return `${txid}:${vout}`;
}

/** Transactions waiting for a block, with their dependency graph. */
export class Mempool {
  private readonly entries = new Map<string, MempoolEntry>();
  private readonly byWtxid = new Map<string, string>();
  private readonly spenders = new Map<string, { txid: string; vin: number }>();
  private readonly parentsOf = new Map<string, Set<string>>();
  private readonly childrenOf = new Map<string, Set<string>>();
  /** Entry sequence numbers: parents always have smaller ones than their children. */
  private readonly seq = new Map<string, number>();
  private nextSeq = 0;

  /** Number of entries. */
  get size(): number {
    return this.entries.size;
  }

  /** Entries in insertion order. */
  all(): MempoolEntry[] {
    return [...this.entries.values()];
  }

  /** Entry by txid. */
  get(txid: string): MempoolEntry | undefined {
    return this.entries.get(txid);
  }

  /** Txid of the entry with this wtxid. */
  txidOfWtxid(wtxid: string): string | undefined {
    return this.byWtxid.get(wtxid);
  }

  has(txid: string): boolean {
    return this.entries.has(txid);
  }

  /** The mempool transaction spending an outpoint. */
  spender(txid: string, vout: number): { txid: string; vin: number } | undefined {
    return this.spenders.get(key(txid, vout));
  }

  /** In-mempool parents of an entry. */
  parents(txid: string): ReadonlySet<string> {
    return this.parentsOf.get(txid) ?? new Set();
  }

  /** In-mempool children of an entry. */
  children(txid: string): ReadonlySet<string> {
    return this.childrenOf.get(txid) ?? new Set();
  }

  /** All in-mempool ancestors of the given parents (the parents included). */
  ancestorsOfParents(parents: Iterable<string>): Set<string> {
    const out = new Set<string>();
    const stack = [...parents];
    while (stack.length > 0) {
      const t = stack.pop()!;
      if (out.has(t) || !this.entries.has(t)) continue;
      out.add(t);
      stack.push(...this.parents(t));
    }
    return out;
  }

  /** Ancestors of an entry (itself excluded). */
  ancestors(txid: string): Set<string> {
    return this.ancestorsOfParents(this.parents(txid));
  }

  /** Descendants of an entry (itself excluded). */
  descendants(txid: string): Set<string> {
    const out = new Set<string>();
    const stack = [...this.children(txid)];
    while (stack.length > 0) {
      const t = stack.pop()!;
      if (out.has(t)) continue;
      out.add(t);
      stack.push(...this.children(t));
    }
    return out;
  }

  /** Adds an entry whose inputs are all available (confirmed or in the mempool) and unspent in the mempool. */
  add(entry: MempoolEntry): void {
    const parents = new Set<string>();
    entry.tx.inputs.forEach((_, vin) => {
      const coin = entry.spent[vin]!;
      this.spenders.set(key(coin.txid, coin.vout), { txid: entry.txid, vin });
      if (this.entries.has(coin.txid)) parents.add(coin.txid);
    });
    this.entries.set(entry.txid, entry);
    this.seq.set(entry.txid, this.nextSeq++);
    this.byWtxid.set(entry.wtxid, entry.txid);
    this.parentsOf.set(entry.txid, parents);
    this.childrenOf.set(entry.txid, this.childrenOf.get(entry.txid) ?? new Set());
    for (const p of parents) this.childrenOf.get(p)!.add(entry.txid);
  }

  /** Removes one entry (callers remove descendants first or with it). */
  remove(txid: string): MempoolEntry | undefined {
    const entry = this.entries.get(txid);
    if (!entry) return undefined;
    for (const coin of entry.spent) {
      const k = key(coin.txid, coin.vout);
      if (this.spenders.get(k)?.txid === txid) this.spenders.delete(k);
    }
    for (const p of this.parents(txid)) this.childrenOf.get(p)?.delete(txid);
    for (const c of this.children(txid)) this.parentsOf.get(c)?.delete(txid);
    this.entries.delete(txid);
    this.seq.delete(txid);
    this.byWtxid.delete(entry.wtxid);
    this.parentsOf.delete(txid);
    this.childrenOf.delete(txid);
    return entry;
  }

  /** Removes an entry and all its descendants; returns the removed entries, descendants last. */
  removeWithDescendants(txid: string): MempoolEntry[] {
    if (!this.entries.has(txid)) return [];
    const order = [txid, ...this.topoSort(this.descendants(txid))];
    const removed: MempoolEntry[] = [];
    for (const t of [...order].reverse()) {
      const e = this.remove(t);
      if (e) removed.unshift(e);
    }
    return removed;
  }

  /** Sorts mempool txids so parents come before children (entry order is topological); drops unknown ones. */
  topoSort(txids: Iterable<string>): string[] {
    return [...new Set(txids)].filter((t) => this.seq.has(t)).sort((a, b) => this.seq.get(a)! - this.seq.get(b)!);
  }

  /** Entry order of a txid (smaller = earlier); undefined when absent. */
  sequenceOf(txid: string): number | undefined {
    return this.seq.get(txid);
  }

  /** Ancestor totals of an entry, itself included. */
  ancestorStats(txid: string): { count: number; vsize: number; fees: bigint } {
    return this.stats([txid, ...this.ancestors(txid)]);
  }

  /** Descendant totals of an entry, itself included. */
  descendantStats(txid: string): { count: number; vsize: number; fees: bigint } {
    return this.stats([txid, ...this.descendants(txid)]);
  }

  private stats(txids: string[]): { count: number; vsize: number; fees: bigint } {
    let vsize = 0;
    let fees = 0n;
    for (const t of txids) {
      const e = this.entries.get(t)!;
      vsize += e.vsize;
      fees += e.fee;
    }
    return { count: txids.length, vsize, fees };
  }
}
