import { ChainSourceProtocolError } from "@tender/core";
import type { BitcoindRpc } from "./bitcoind-rpc.js";

/** An output reduced to what script queries need. */
export interface CompactOut {
  readonly scriptHex: string;
  readonly valueSat: bigint;
}

/** A transaction reduced to its id, the outpoints it spends (`txid:vout`) and its outputs. */
export interface CompactTx {
  readonly txid: string;
  readonly spends: readonly string[];
  readonly outs: readonly CompactOut[];
}

/** A best-chain block reduced to its transactions. */
export interface CompactBlock {
  readonly hash: string;
  readonly height: number;
  readonly time: number;
  readonly txs: readonly CompactTx[];
}

/** `txid:vout`, the key used for outpoints. */
export function outpointKey(txid: string, vout: number): string {
  return `${txid}:${vout}`;
}

/** BTC amount (a JSON number with up to 8 decimals) to sats. */
export function btcToSat(btc: unknown): bigint {
  if (typeof btc !== "number" || !Number.isFinite(btc)) throw new TypeError("amount is not a number");
  return BigInt(Math.round(btc * 1e8));
}

/** Reduces a verbose transaction object (`getrawtransaction … true`, `getblock … 2`). */
export function compactTx(label: string, tx: unknown): CompactTx {
  const t = tx as { txid?: unknown; vin?: unknown; vout?: unknown };
  if (typeof t.txid !== "string" || !Array.isArray(t.vin) || !Array.isArray(t.vout)) {
    throw new ChainSourceProtocolError(label, "malformed verbose transaction");
  }
  const spends: string[] = [];
  for (const vin of t.vin as Array<{ txid?: unknown; vout?: unknown }>) {
    if (typeof vin.txid === "string" && typeof vin.vout === "number") spends.push(outpointKey(vin.txid, vin.vout));
  }
  const outs = (t.vout as Array<{ value?: unknown; scriptPubKey?: { hex?: unknown } }>).map((o) => {
    if (typeof o.scriptPubKey?.hex !== "string") throw new ChainSourceProtocolError(label, "verbose output lacks scriptPubKey.hex");
    return { scriptHex: o.scriptPubKey.hex, valueSat: btcToSat(o.value) };
  });
  return { txid: t.txid, spends, outs };
}

/**
 * Reads best-chain blocks as {@link CompactBlock}s, batching RPC calls, and keeps the most
 * recent ones in memory keyed by hash (a reorg yields new hashes, so entries never go stale).
 */
export class BlockReader {
  private readonly cache = new Map<string, CompactBlock>();

  constructor(
    private readonly rpc: BitcoindRpc,
    private readonly cacheSize = 2_000,
    private readonly batchSize = 16,
  ) {}

  /** Blocks `from..to` (inclusive) in height order. */
  async *range(from: number, to: number): AsyncGenerator<CompactBlock> {
    for (let start = Math.max(0, from); start <= to; start += this.batchSize) {
      const heights: number[] = [];
      for (let h = start; h <= Math.min(to, start + this.batchSize - 1); h++) heights.push(h);
      const hashes = await this.rpc.batch(heights.map((h) => ({ method: "getblockhash", params: [h] })));
      const wanted: Array<{ height: number; hash: string }> = [];
      for (const [i, out] of hashes.entries()) {
        if (!out.ok) return; // the chain got shorter while scanning
        wanted.push({ height: heights[i]!, hash: String(out.result) });
      }
      const missing = wanted.filter((w) => !this.cache.has(w.hash));
      const blocks = await this.rpc.batch(missing.map((w) => ({ method: "getblock", params: [w.hash, 2] })));
      for (const [i, out] of blocks.entries()) {
        if (!out.ok) throw out.error;
        this.remember(this.compactBlock(out.result, missing[i]!.height));
      }
      for (const w of wanted) {
        const block = this.cache.get(w.hash);
        if (block) yield block;
      }
    }
  }

  private compactBlock(raw: unknown, height: number): CompactBlock {
    const b = raw as { hash?: unknown; time?: unknown; tx?: unknown };
    if (typeof b.hash !== "string" || typeof b.time !== "number" || !Array.isArray(b.tx)) {
      throw new ChainSourceProtocolError(this.rpc.label, "malformed getblock verbosity 2 reply");
    }
    return { hash: b.hash, height, time: b.time, txs: b.tx.map((t) => compactTx(this.rpc.label, t)) };
  }

  private remember(block: CompactBlock): void {
    this.cache.set(block.hash, block);
    if (this.cache.size > this.cacheSize) {
      const oldest = this.cache.keys().next().value;
      if (oldest !== undefined) this.cache.delete(oldest);
    }
  }
}
