/** Per-script views (Esplora's address endpoints) over the chain and the mempool. */
import type { Mempool } from "../policy/mempool.js";
import { bytesEqual } from "../consensus/bytes.js";
import type { ChainState } from "./chain-state.js";
import { confirmedStatus, confirmedTxInfo, mempoolTxInfo } from "./tx-info.js";
import type { ScriptStats, ScriptUtxo, TxInfo } from "./types.js";

function touches(e: { tx: { outputs: { scriptPubKey: Uint8Array }[] }; spent: readonly { scriptPubKey: Uint8Array }[] }, script: Uint8Array): boolean {
  return e.tx.outputs.some((o) => bytesEqual(o.scriptPubKey, script)) || e.spent.some((c) => bytesEqual(c.scriptPubKey, script));
}

/** Unspent outputs paying `script`: confirmed ones not spent in the mempool, then mempool ones. */
export function utxosForScript(chain: ChainState, mempool: Mempool, script: Uint8Array, includeMempool: boolean): ScriptUtxo[] {
  const out: ScriptUtxo[] = [];
  for (const c of chain.coinsForScript(script)) {
    if (includeMempool && mempool.spender(c.txid, c.vout)) continue;
    const tx = chain.tx(c.txid)!;
    out.push({ txid: c.txid, vout: c.vout, amountSat: c.value, scriptPubKey: c.scriptPubKey, status: confirmedStatus(chain, tx) });
  }
  out.sort((a, b) => (a.status.blockHeight ?? 0) - (b.status.blockHeight ?? 0) || a.txid.localeCompare(b.txid) || a.vout - b.vout);
  if (!includeMempool) return out;
  for (const e of mempool.all()) {
    e.tx.outputs.forEach((o, vout) => {
      if (bytesEqual(o.scriptPubKey, script) && !mempool.spender(e.txid, vout)) {
        out.push({ txid: e.txid, vout, amountSat: o.value, scriptPubKey: o.scriptPubKey, status: { confirmed: false } });
      }
    });
  }
  return out;
}

/** Transactions touching `script`: mempool newest first, then confirmed newest first. */
export function historyForScript(chain: ChainState, mempool: Mempool, script: Uint8Array): TxInfo[] {
  const pending = mempool.all().filter((e) => touches(e, script)).reverse().map(mempoolTxInfo);
  const confirmed = [...chain.txidsForScript(script)].reverse().map((t) => confirmedTxInfo(chain, chain.tx(t)!));
  return [...pending, ...confirmed];
}

function emptyStats(): { fundedTxoCount: number; fundedTxoSumSat: bigint; spentTxoCount: number; spentTxoSumSat: bigint; txCount: number } {
  return { fundedTxoCount: 0, fundedTxoSumSat: 0n, spentTxoCount: 0, spentTxoSumSat: 0n, txCount: 0 };
}

/** Esplora's `chain_stats` / `mempool_stats` for `script`. */
export function statsForScript(chain: ChainState, mempool: Mempool, script: Uint8Array): { chain: ScriptStats; mempool: ScriptStats } {
  const confirmed = emptyStats();
  for (const t of chain.txidsForScript(script)) {
    const c = chain.tx(t)!;
    tally(confirmed, c.tx.outputs, c.spent, script);
  }
  const pending = emptyStats();
  for (const e of mempool.all()) if (touches(e, script)) tally(pending, e.tx.outputs, e.spent, script);
  return { chain: confirmed, mempool: pending };
}

function tally(
  s: ReturnType<typeof emptyStats>,
  outputs: readonly { value: bigint; scriptPubKey: Uint8Array }[],
  spent: readonly { value: bigint; scriptPubKey: Uint8Array }[],
  script: Uint8Array,
): void {
  s.txCount += 1;
  for (const o of outputs) {
    if (bytesEqual(o.scriptPubKey, script)) {
      s.fundedTxoCount += 1;
      s.fundedTxoSumSat += o.value;
    }
  }
  for (const c of spent) {
    if (bytesEqual(c.scriptPubKey, script)) {
      s.spentTxoCount += 1;
      s.spentTxoSumSat += c.value;
    }
  }
}
