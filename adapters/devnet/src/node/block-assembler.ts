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

/** Mempool entries for the next block, parents before children, best ancestor feerate first. */
export function selectTransactions(mempool: Mempool): MempoolEntry[] {
  const chosen: MempoolEntry[] = [];
  const inBlock = new Set<string>();
  const skipped = new Set<string>();
  let weight = COINBASE_RESERVED_WEIGHT;
  let sigops = COINBASE_RESERVED_SIGOPS;
  for (;;) {
    let best: { pkg: string[]; fee: bigint; vsize: number } | undefined;
    for (const entry of mempool.all()) {
      if (inBlock.has(entry.txid) || skipped.has(entry.txid)) continue;
      const pkg = mempool.topoSort([...mempool.ancestors(entry.txid), entry.txid].filter((t) => !inBlock.has(t)));
      let fee = 0n;
      let vsize = 0;
      for (const t of pkg) {
        const e = mempool.get(t)!;
        fee += e.fee;
        vsize += e.vsize;
      }
      // compare fee/vsize without rounding; ties keep the earlier entry
      if (!best || fee * BigInt(best.vsize) > best.fee * BigInt(vsize)) best = { pkg, fee, vsize };
    }
    if (!best) break;
    const entries = best.pkg.map((t) => mempool.get(t)!);
    const addWeight = entries.reduce((n, e) => n + e.weight, 0);
    const addSigops = entries.reduce((n, e) => n + e.sigopCost, 0);
    if (weight + addWeight > MAX_BLOCK_WEIGHT || sigops + addSigops > MAX_BLOCK_SIGOPS_COST) {
      skipped.add(best.pkg[best.pkg.length - 1]!);
      continue;
    }
    weight += addWeight;
    sigops += addSigops;
    for (const e of entries) {
      inBlock.add(e.txid);
      chosen.push(e);
    }
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
