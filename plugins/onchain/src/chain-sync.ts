import { ChainSourceRejectedError, type ChainSource, type Logger, type TxStatus } from "@tender/core";
import { Transaction } from "bitcoinjs-lib";
import { mapLimited } from "./concurrency.js";
import type { Bip86Keychain } from "./keychain.js";
import type { OnchainStore, StoredTx } from "./persistence/stored-tx.js";
import { prevTxid, type GraphTx, type WalletTxGraph } from "./tx-graph.js";
import { P2A_SCRIPT_HEX } from "./tx-size.js";

/** Unused addresses scanned past the last used or revealed one (restores find their funds). */
export const ADDRESS_GAP = 20;
/** An unconfirmed wallet transaction missing from the mempool is re-broadcast after this long. */
export const REBROADCAST_GRACE_MS = 30_000;
/** Chain source calls in flight during a sync. */
const PARALLEL = 8;

/** What a sync found and did. */
export interface SyncReport {
  readonly tipHeight: number;
  readonly newTxs: number;
  readonly updatedTxs: number;
  readonly rebroadcast: string[];
  readonly conflicted: string[];
  /** Highest index with history + 1 (may exceed the revealed count after a restore). */
  readonly usedIndexes: number;
}

/** What {@link syncWallet} works on. */
export interface SyncContext {
  readonly source: ChainSource;
  readonly keychain: Bip86Keychain;
  readonly graph: WalletTxGraph;
  readonly store: OnchainStore;
  readonly logger: Logger;
  /** Revealed external indexes (`next_index`). */
  readonly revealed: number;
  readonly now: () => number;
  readonly rebroadcastGraceMs: number;
}

function blockOf(status: TxStatus): StoredTx["block"] {
  return status.confirmed ? { height: status.block.height, hash: status.block.hash, time: status.blockTime } : null;
}

function sameStatus(t: StoredTx, status: TxStatus): boolean {
  if (!status.confirmed) return t.state === "pending";
  return t.state === "confirmed" && t.block?.hash === status.block.hash;
}

/**
 * One full sync of the on-chain wallet with its chain source:
 * 1. the history of every revealed address plus {@link ADDRESS_GAP} more (extending the gap
 *    past any used one);
 * 2. new transactions are fetched, with the previous transactions of foreign inputs so the fee
 *    and P2A spends are known; known ones get their new status (mined, reorged out, back from a
 *    conflict);
 * 3. a wallet transaction that is neither mined nor in the mempool is marked `conflicted`, with
 *    its descendants, as soon as another transaction in a block or in the mempool spends one of
 *    its inputs (see {@link findConflict}); a conflicted one whose inputs are free again (its
 *    conflict was reorged out) becomes pending again (see {@link revivable});
 * 4. the remaining unconfirmed transactions the source does not have are re-broadcast: the
 *    wallet's own that no node has accepted yet at once, others once `rebroadcastGraceMs` passed
 *    since their last broadcast; one the source refuses because an input was spent meanwhile
 *    becomes `conflicted` too.
 * Changes are persisted together at the end.
 */
export async function syncWallet(c: SyncContext): Promise<SyncReport> {
  const { source, keychain, graph } = c;
  const tip = await source.getTip();
  const seen = new Map<string, TxStatus>();
  let used = 0;
  for (let start = 0; start < Math.max(c.revealed, used) + ADDRESS_GAP; ) {
    const end = Math.max(c.revealed, used) + ADDRESS_GAP;
    const indexes = Array.from({ length: end - start }, (_, i) => start + i);
    const histories = await mapLimited(indexes, PARALLEL, (i) => source.getScriptHistory({ scriptPubKeyHex: keychain.key(i).scriptHex }));
    histories.forEach((h, k) => {
      if (h.length > 0) used = Math.max(used, indexes[k]! + 1);
      for (const e of h) seen.set(e.txid, e.status);
    });
    start = end;
  }

  const changed = new Map<string, StoredTx>();
  const now = c.now();
  const fresh = [...seen.keys()].filter((txid) => !graph.has(txid));
  const fetched = await mapLimited(fresh, PARALLEL, (txid) => source.getTx(txid));
  const added: StoredTx[] = [];
  for (const t of fetched) {
    if (!t) continue;
    const status = seen.get(t.txid) ?? t.status;
    const stored: StoredTx = {
      txid: t.txid, hex: t.hex, origin: "external", state: status.confirmed ? "confirmed" : "pending",
      block: blockOf(status), feeSat: null, isCpfp: false, firstSeenMs: now, lastBroadcastMs: null, held: false,
    };
    graph.put(stored);
    added.push(stored);
  }
  await describeInputs(c, added);
  for (const s of added) changed.set(s.txid, s);

  for (const [txid, status] of seen) {
    const g = graph.get(txid);
    if (!g || changed.has(txid) || (sameStatus(g.stored, status) && !g.stored.held)) continue;
    // Seen on chain: a held transaction was broadcast by the plugin that holds it; a conflicted
    // one is back (the block or mempool transaction that conflicted with it is gone).
    g.stored = { ...g.stored, state: status.confirmed ? "confirmed" : "pending", block: blockOf(status), held: false };
    changed.set(txid, g.stored);
  }

  // Transactions the source has, mined or in its mempool.
  const present = new Set(seen.keys());
  const byDepth = (list: GraphTx[]) => list.map((g) => ({ g, depth: graph.unconfirmedAncestry(g.stored.txid) }))
    .sort((a, b) => a.depth - b.depth || a.g.stored.firstSeenMs - b.g.stored.firstSeenMs)
    .map((x) => x.g);
  // Parents before children, so a conflict marks the descendants and a re-broadcast child finds its parent.
  const unseen = byDepth(graph.all().filter((g) => !seen.has(g.stored.txid) && g.stored.state !== "conflicted" && !g.stored.held));
  const missing: GraphTx[] = [];
  for (const g of unseen) {
    const status = await source.getTxStatus(g.stored.txid);
    if (status) {
      present.add(g.stored.txid);
      if (!sameStatus(g.stored, status)) {
        g.stored = { ...g.stored, state: status.confirmed ? "confirmed" : "pending", block: blockOf(status) };
        changed.set(g.stored.txid, g.stored);
      }
      continue;
    }
    // Neither mined nor in the mempool: reorged out, evicted, replaced, or never accepted.
    if (g.stored.state === "confirmed") {
      g.stored = { ...g.stored, state: "pending", block: null };
      changed.set(g.stored.txid, g.stored);
    }
    missing.push(g);
  }

  const conflicted: string[] = [];
  const markWithDescendants = (txid: string, reason: string) => {
    for (const id of markConflicted(graph, txid)) {
      changed.set(id, graph.get(id)!.stored);
      conflicted.push(id);
    }
    c.logger.info(`wallet transaction ${txid} is conflicted: ${reason}`);
  };
  const live = spendersOf(graph, present);
  for (const g of missing) {
    if (g.stored.state === "conflicted") continue; // a descendant of one marked just before
    const conflict = await findConflict(source, graph, g, live);
    if (conflict) markWithDescendants(g.stored.txid, conflict);
  }

  const candidates = missing.filter((g) => g.stored.state !== "conflicted");
  for (const g of graph.all()) {
    if (g.stored.state !== "conflicted" || g.stored.held || present.has(g.stored.txid) || !(await revivable(source, graph, g))) continue;
    g.stored = { ...g.stored, state: "pending", block: null };
    changed.set(g.stored.txid, g.stored);
    candidates.push(g);
    c.logger.info(`wallet transaction ${g.stored.txid} is no longer conflicted: its inputs are unspent again`);
  }

  const rebroadcast: string[] = [];
  for (const g of byDepth(candidates)) {
    if (g.stored.state === "conflicted") continue;
    // The wallet's own transaction that no node is known to have accepted goes out at once;
    // others wait for the grace (a source may not show a fresh transaction yet).
    const neverAccepted = g.stored.origin === "wallet" && g.stored.lastBroadcastMs === null;
    const last = g.stored.lastBroadcastMs ?? g.stored.firstSeenMs;
    if (!neverAccepted && now - last < c.rebroadcastGraceMs) continue;
    try {
      await source.broadcast(g.stored.hex);
      g.stored = { ...g.stored, lastBroadcastMs: now };
      changed.set(g.stored.txid, g.stored);
      rebroadcast.push(g.stored.txid);
      c.logger.info(`re-broadcast unconfirmed transaction ${g.stored.txid}`);
    } catch (e) {
      if (!(e instanceof ChainSourceRejectedError)) throw e;
      const spender = await spentElsewhere(source, g.tx, g.stored.txid);
      if (spender) markWithDescendants(g.stored.txid, `input spent by ${spender}`);
      else c.logger.warn(`re-broadcast of ${g.stored.txid} refused: ${e.reason}`);
    }
  }

  await c.store.saveTxs([...changed.values()]);
  return {
    tipHeight: tip.height, newTxs: added.length, updatedTxs: changed.size - added.length, rebroadcast, conflicted, usedIndexes: used,
  };
}

/** `txid:vout` of an input's previous output. */
const outpointOf = (i: { hash: Uint8Array; index: number }): string => `${prevTxid(i)}:${i.index}`;

/** Which transaction spends each outpoint, among the graph's live transactions the source has (`present`). */
function spendersOf(graph: WalletTxGraph, present: ReadonlySet<string>): Map<string, string> {
  const spenders = new Map<string, string>();
  for (const g of graph.all()) {
    if (g.isCoinbase || g.stored.state === "conflicted" || !present.has(g.stored.txid)) continue;
    for (const i of g.tx.ins) spenders.set(outpointOf(i), g.stored.txid);
  }
  return spenders;
}

/**
 * Why `g`, which is neither mined nor in the mempool, can no longer be valid, or `null`: a
 * coinbase out of the best chain; a parent that is conflicted; an input spent by another
 * transaction the source has in a block or its mempool — one of the wallet's (`live`), else as
 * the source reports the input's spender.
 */
async function findConflict(source: ChainSource, graph: WalletTxGraph, g: GraphTx, live: ReadonlyMap<string, string>): Promise<string | null> {
  if (g.isCoinbase) return "its block left the best chain";
  for (const i of g.tx.ins) {
    const parent = graph.get(prevTxid(i));
    if (parent?.stored.state === "conflicted") return `its parent ${parent.stored.txid} is conflicted`;
    const spender = live.get(outpointOf(i));
    if (spender !== undefined && spender !== g.stored.txid) return `input ${outpointOf(i)} spent by ${spender}`;
  }
  const spender = await spentElsewhere(source, g.tx, g.stored.txid);
  return spender ? `input spent by ${spender}` : null;
}

/**
 * Whether a conflicted transaction of this wallet that the source does not have may be valid
 * again: every input is an output of a live wallet transaction, no live wallet transaction spends
 * it (held ones included), and the source knows no spender of it. Only transactions spending
 * wallet coins alone come back; a payment from someone else comes back when it is seen again.
 */
async function revivable(source: ChainSource, graph: WalletTxGraph, g: GraphTx): Promise<boolean> {
  if (g.isCoinbase || g.stored.origin !== "wallet") return false;
  const inputs = new Set(g.tx.ins.map(outpointOf));
  for (const i of g.tx.ins) {
    const parent = graph.get(prevTxid(i));
    if (!parent || parent.stored.state === "conflicted") return false;
  }
  for (const other of graph.all()) {
    if (other === g || other.stored.state === "conflicted" || other.isCoinbase) continue;
    if (other.tx.ins.some((i) => inputs.has(outpointOf(i)))) return false;
  }
  return (await spentElsewhere(source, g.tx, g.stored.txid)) === null;
}

/** What {@link refreshUnspentStatus} works on. */
export interface RefreshContext {
  readonly source: ChainSource;
  readonly graph: WalletTxGraph;
  readonly store: OnchainStore;
}

/**
 * The light refresh a spend runs right before it selects coins, as barkd's wallet brings its
 * coins up to date before it builds a transaction: the tip, and the status of every unconfirmed
 * transaction that holds an unspent wallet output. Coin selection takes unconfirmed coins only
 * from the wallet's own transactions, so without it a payment from someone else that the last
 * sync saw in the mempool, and that has been mined since, would stay unspendable until the next
 * sync while the balance already counts it. A transaction found mined (or back in the mempool)
 * gets its new status, persisted; one the source does not know is left as it is for the next
 * full sync (re-broadcast, conflicts). Nothing changes when a call fails. Answers the tip height.
 */
export async function refreshUnspentStatus(c: RefreshContext): Promise<number> {
  const tip = await c.source.getTip();
  const unconfirmed = [...new Set(c.graph.utxos().filter((u) => u.confirmationHeight === null).map((u) => u.txid))];
  const statuses = await mapLimited(unconfirmed, PARALLEL, (txid) => c.source.getTxStatus(txid));
  const changed: StoredTx[] = [];
  unconfirmed.forEach((txid, k) => {
    const status = statuses[k];
    const g = c.graph.get(txid);
    if (!status || !g || sameStatus(g.stored, status)) return;
    g.stored = { ...g.stored, state: status.confirmed ? "confirmed" : "pending", block: blockOf(status) };
    changed.push(g.stored);
  });
  if (changed.length > 0) await c.store.saveTxs(changed);
  return tip.height;
}

/** Fills fee, origin and `isCpfp` of newly found transactions, fetching foreign previous transactions. */
async function describeInputs(c: SyncContext, added: StoredTx[]): Promise<void> {
  const foreign = new Set<string>();
  const decoded = added.map((s) => Transaction.fromHex(s.hex));
  decoded.forEach((tx) => {
    if (tx.isCoinbase()) return;
    for (const i of tx.ins) if (!c.graph.has(prevTxid(i))) foreign.add(prevTxid(i));
  });
  const parents = new Map<string, Transaction>();
  const got = await mapLimited([...foreign], PARALLEL, (txid) => c.source.getTx(txid));
  for (const p of got) if (p) parents.set(p.txid, Transaction.fromHex(p.hex));
  added.forEach((s, k) => {
    const tx = decoded[k]!;
    if (tx.isCoinbase()) return;
    let inSum = 0n;
    let known = true;
    let allOwn = true;
    for (const i of tx.ins) {
      const id = prevTxid(i);
      const out = c.graph.prevout(id, i.index) ?? (() => {
        const o = parents.get(id)?.outs[i.index];
        return o ? { valueSat: o.value, script: o.script } : undefined;
      })();
      if (!out) {
        known = false;
        allOwn = false;
        continue;
      }
      inSum += out.valueSat;
      const hex = Buffer.from(out.script).toString("hex");
      if (hex === P2A_SCRIPT_HEX) s.isCpfp = true;
      else if (c.keychain.indexOfScript(hex) === undefined) allOwn = false;
    }
    if (known) s.feeSat = inSum - tx.outs.reduce((sum, o) => sum + o.value, 0n);
    if (allOwn) s.origin = "wallet";
    c.graph.put(s);
  });
}

/** The txid of another transaction (mempool or chain) that spends an input of `tx`, or `null`. */
async function spentElsewhere(source: ChainSource, tx: Transaction, txid: string): Promise<string | null> {
  for (const i of tx.ins) {
    const spend = await source.getOutspend(prevTxid(i), i.index);
    if (spend.spent && spend.txid !== txid) return spend.txid;
  }
  return null;
}

/** Marks `txid` and every wallet transaction descending from it conflicted; returns their txids. */
export function markConflicted(graph: WalletTxGraph, txid: string): string[] {
  const marked: string[] = [];
  const queue = [txid];
  while (queue.length) {
    const id = queue.shift()!;
    const g = graph.get(id);
    if (!g || g.stored.state === "conflicted") continue;
    g.stored = { ...g.stored, state: "conflicted", block: null };
    marked.push(id);
    for (const other of graph.all()) {
      if (other.stored.state !== "conflicted" && other.tx.ins.some((i) => prevTxid(i) === id)) queue.push(other.stored.txid);
    }
  }
  return marked;
}
