import type { OutputSpend } from "@tender/core";
import { outpointKey, type BlockReader } from "./compact-block.js";

/**
 * Finds, in best-chain blocks `fromHeight..toHeight`, the transactions spending the given
 * outputs of `txid`; returns the spends found by output index.
 */
export async function findConfirmedSpend(
  reader: BlockReader,
  txid: string,
  vouts: readonly number[],
  fromHeight: number,
  toHeight: number,
): Promise<Map<number, OutputSpend>> {
  const wanted = new Map(vouts.map((v) => [outpointKey(txid, v), v]));
  const found = new Map<number, OutputSpend>();
  for await (const block of reader.range(fromHeight, toHeight)) {
    for (const tx of block.txs) {
      tx.spends.forEach((s, vin) => {
        const v = wanted.get(s);
        if (v === undefined) return;
        found.set(v, { spent: true, txid: tx.txid, vin, status: { confirmed: true, block: { height: block.height, hash: block.hash }, blockTime: block.time } });
        wanted.delete(s);
      });
    }
    if (wanted.size === 0) break;
  }
  return found;
}
