/**
 * Block templates: picks mempool transactions by ancestor feerate (Core's BlockAssembler
 * without the package-update optimisations), builds the coinbase with BIP-34 height and
 * witness commitment, and grinds the nonce for regtest's target.
 */
import type { Mempool, MempoolEntry } from "../policy/mempool.js";
import { REGTEST_BITS, encodeBlock, grindNonce, merkleRoot, witnessCommitmentScript, type BlockHeader } from "./block.js";
import { sha256d, internalFromDisplay } from "./bytes.js";
import { blockSubsidy, buildCoinbase } from "./coinbase.js";
import { encodeTx, type Tx } from "./consensus-port.js";
import { MAX_BLOCK_SIGOPS_COST, MAX_BLOCK_WEIGHT } from "./block-validator.js";

/** Weight and sigops kept free for the coinbase, as Core's miner does. */
const COINBASE_RESERVED_WEIGHT = 4000;
const COINBASE_RESERVED_SIGOPS = 400;

/** Block header version our miner signals (BIP-9 top bits, no deployments). */
export const MINER_BLOCK_VERSION = 0x20000000;

/** A candidate package: an entry with its not-yet-chosen ancestors. */
interface Candidate {
  readonly txid: string;
  readonly seq: number;
  readonly fee: bigint;
  readonly vsize: number;
  /** Bumped on rescoring; stale heap items are skipped. */
  readonly version: number;
}

/** Max-heap on ancestor feerate, ties to the earlier entry. */
class CandidateHeap {
  private readonly items: Candidate[] = [];

  get size(): number {
    return this.items.length;
  }

  private better(a: Candidate, b: Candidate): boolean {
    const l = a.fee * BigInt(b.vsize);
    const r = b.fee * BigInt(a.vsize);
    return l > r || (l === r && a.seq < b.seq);
  }

  push(c: Candidate): void {
    const it = this.items;
    it.push(c);
    let i = it.length - 1;
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (!this.better(it[i]!, it[p]!)) break;
      [it[i], it[p]] = [it[p]!, it[i]!];
      i = p;
    }
  }

  pop(): Candidate | undefined {
    const it = this.items;
    const top = it[0];
    const last = it.pop();
    if (it.length > 0 && last) {
      it[0] = last;
      let i = 0;
      for (;;) {
        const l = 2 * i + 1;
        const r = l + 1;
        let m = i;
        if (l < it.length && this.better(it[l]!, it[m]!)) m = l;
        if (r < it.length && this.better(it[r]!, it[m]!)) m = r;
        if (m === i) break;
        [it[i], it[m]] = [it[m]!, it[i]!];
        i = m;
      }
    }
    return top;
  }
}

/** Mempool entries for the next block, parents before children, best ancestor feerate first. */
export function selectTransactions(mempool: Mempool): MempoolEntry[] {
  const chosen: MempoolEntry[] = [];
  const inBlock = new Set<string>();
  const skipped = new Set<string>();
  const versions = new Map<string, number>();
  const heap = new CandidateHeap();
  let weight = COINBASE_RESERVED_WEIGHT;
  let sigops = COINBASE_RESERVED_SIGOPS;

  const pending = (txid: string): string[] => [...mempool.ancestors(txid), txid].filter((t) => !inBlock.has(t));
  const score = (txid: string): void => {
    let fee = 0n;
    let vsize = 0;
    for (const t of pending(txid)) {
      const e = mempool.get(t)!;
      fee += e.fee;
      vsize += e.vsize;
    }
    const version = (versions.get(txid) ?? 0) + 1;
    versions.set(txid, version);
    heap.push({ txid, seq: mempool.sequenceOf(txid)!, fee, vsize, version });
  };
  for (const e of mempool.all()) score(e.txid);

  while (heap.size > 0) {
    const best = heap.pop()!;
    if (best.version !== versions.get(best.txid) || inBlock.has(best.txid) || skipped.has(best.txid)) continue;
    const entries = mempool.topoSort(pending(best.txid)).map((t) => mempool.get(t)!);
    const addWeight = entries.reduce((n, e) => n + e.weight, 0);
    const addSigops = entries.reduce((n, e) => n + e.sigopCost, 0);
    if (weight + addWeight > MAX_BLOCK_WEIGHT || sigops + addSigops > MAX_BLOCK_SIGOPS_COST) {
      skipped.add(best.txid);
      continue;
    }
    weight += addWeight;
    sigops += addSigops;
    const touched = new Set<string>();
    for (const e of entries) {
      inBlock.add(e.txid);
      chosen.push(e);
      for (const d of mempool.descendants(e.txid)) touched.add(d);
    }
    // descendants of what was just taken now carry fewer ancestors: rescore them
    for (const d of touched) if (!inBlock.has(d) && !skipped.has(d)) score(d);
  }
  return chosen;
}

/** Everything needed to assemble a block on top of the tip. */
export interface BlockTemplate {
  readonly prevHash: string;
  readonly height: number;
  readonly time: number;
  readonly payout: Uint8Array;
  /** Transactions after the coinbase, in block order, with the fees they pay. */
  readonly txs: readonly { tx: Tx; fee: bigint }[];
}

/** Builds and grinds a block; returns its raw bytes. */
export function assembleBlock(t: BlockTemplate): Uint8Array {
  const fees = t.txs.reduce((n, x) => n + x.fee, 0n);
  const body = t.txs.map((x) => x.tx);
  const wtxids = [new Uint8Array(32), ...body.map((tx) => sha256d(encodeTx(tx, true)))];
  const commitment = witnessCommitmentScript(wtxids, new Uint8Array(32));
  const coinbase = buildCoinbase(t.height, t.payout, blockSubsidy(t.height) + fees, commitment);
  const all = [coinbase, ...body];
  const header: BlockHeader = grindNonce({
    version: MINER_BLOCK_VERSION,
    prevHash: internalFromDisplay(t.prevHash),
    merkleRoot: merkleRoot(all.map((tx) => sha256d(encodeTx(tx, false)))),
    time: t.time,
    bits: REGTEST_BITS,
    nonce: 0,
  });
  return encodeBlock(header, all.map((tx) => encodeTx(tx, true)));
}
