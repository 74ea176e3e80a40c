import type { ScriptTx, ScriptUtxo, TxStatus } from "@tender/core";
import { outpointKey, type BlockReader, type CompactTx } from "./compact-block.js";

/** What a scan found for one script. */
export interface ScriptScanResult {
  /** Mempool transactions first, then confirmed ones newest first. */
  readonly history: ScriptTx[];
  readonly utxos: ScriptUtxo[];
}

/**
 * Walks blocks `fromHeight..tipHeight`, then the mempool, collecting every transaction that
 * pays to `scriptHex` or spends an output that did, and the outputs left unspent. Outputs
 * created before `fromHeight` are not seen (the wallet's birthday bounds the scan).
 */
export async function scanScript(
  reader: BlockReader,
  scriptHex: string,
  fromHeight: number,
  tipHeight: number,
  mempool: readonly CompactTx[],
): Promise<ScriptScanResult> {
  const script = scriptHex.toLowerCase();
  const funded = new Map<string, ScriptUtxo>();
  const spent = new Set<string>();
  const confirmed: ScriptTx[] = [];
  const visit = (tx: CompactTx, status: TxStatus, pass: "outs" | "spends" | "both"): boolean => {
    let hit = false;
    if (pass !== "outs") {
      for (const s of tx.spends) {
        if (funded.has(s)) {
          spent.add(s);
          hit = true;
        }
      }
    }
    if (pass !== "spends") {
      tx.outs.forEach((o, vout) => {
        if (o.scriptHex === script) {
          funded.set(outpointKey(tx.txid, vout), { txid: tx.txid, vout, valueSat: o.valueSat, status });
          hit = true;
        }
      });
    }
    return hit;
  };
  for await (const block of reader.range(fromHeight, tipHeight)) {
    const status: TxStatus = { confirmed: true, block: { height: block.height, hash: block.hash }, blockTime: block.time };
    for (const tx of block.txs) if (visit(tx, status, "both")) confirmed.push({ txid: tx.txid, status });
  }
  // Mempool order is not topological: record every funding output before looking at spends.
  const unconfirmed: TxStatus = { confirmed: false };
  const pending = new Set<string>();
  for (const tx of mempool) if (visit(tx, unconfirmed, "outs")) pending.add(tx.txid);
  for (const tx of mempool) if (visit(tx, unconfirmed, "spends")) pending.add(tx.txid);
  const history: ScriptTx[] = [...pending].map((txid) => ({ txid, status: unconfirmed }));
  history.push(...confirmed.reverse());
  const utxos = [...funded.entries()].filter(([k]) => !spent.has(k)).map(([, u]) => u);
  return { history, utxos };
}
