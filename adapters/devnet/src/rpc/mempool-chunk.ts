import type { DevnetNode } from "../node/devnet-node.js";
import type { MempoolEntryInfo } from "../node/types.js";
import type { MempoolChunk } from "./core-json.js";

const rate = (fee: bigint, vsize: number): number => Number(fee) / Math.max(1, vsize);

/**
 * An approximation of the chunk Core 31's cluster mempool puts `e` in: its ancestor set, or
 * the ancestor set of a direct child that pays a higher feerate for it (CPFP). Exact for
 * lone transactions and 1-parent-1-child packages, the shapes our tests and exits produce.
 */
export function chunkOf(node: DevnetNode, e: MempoolEntryInfo): MempoolChunk {
  let best: MempoolChunk = { feeSat: e.ancestorFeesSat, vsize: e.ancestorVsize };
  for (const childId of e.spentBy) {
    const child = node.getMempoolEntry(childId);
    if (child && rate(child.ancestorFeesSat, child.ancestorVsize) > rate(best.feeSat, best.vsize)) {
      best = { feeSat: child.ancestorFeesSat, vsize: child.ancestorVsize };
    }
  }
  return best;
}
