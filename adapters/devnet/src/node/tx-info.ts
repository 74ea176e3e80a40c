/** Builds the API's {@link TxInfo} and {@link MempoolEntryInfo} views from the node's records. */
import type { Mempool, MempoolEntry } from "../policy/mempool.js";
import { addressOf, classifyScript } from "./address.js";
import { displayHex } from "../consensus/bytes.js";
import type { ChainState, ConfirmedTx } from "./chain-state.js";
import { encodeTx, isCoinbase, type Tx } from "./consensus-port.js";
import type { MempoolEntryInfo, PrevOut, TxInfo, TxStatus } from "./types.js";

function prevOut(coin: { value: bigint; scriptPubKey: Uint8Array } | undefined): PrevOut | undefined {
  if (!coin) return undefined;
  const address = addressOf(coin.scriptPubKey);
  return { amountSat: coin.value, scriptPubKey: coin.scriptPubKey, ...(address ? { address } : {}) };
}

function build(tx: Tx, raw: Uint8Array, txid: string, wtxid: string, spent: readonly { value: bigint; scriptPubKey: Uint8Array }[], fee: bigint | undefined, status: TxStatus): TxInfo {
  const strippedSize = encodeTx(tx, false).length;
  const weight = strippedSize * 3 + raw.length;
  const coinbase = isCoinbase(tx);
  return {
    txid,
    wtxid,
    raw,
    version: tx.version,
    locktime: tx.locktime,
    size: raw.length,
    weight,
    vsize: Math.ceil(weight / 4),
    ...(fee === undefined ? {} : { feeSat: fee }),
    isCoinbase: coinbase,
    vin: tx.inputs.map((input, i) => {
      const p = coinbase ? undefined : prevOut(spent[i]);
      return {
        txid: displayHex(input.prevTxid),
        vout: input.prevVout,
        scriptSig: input.scriptSig,
        sequence: input.sequence,
        witness: input.witness,
        isCoinbase: coinbase,
        ...(p ? { prevout: p } : {}),
      };
    }),
    vout: tx.outputs.map((o, n) => {
      const address = addressOf(o.scriptPubKey);
      return { n, amountSat: o.value, scriptPubKey: o.scriptPubKey, scriptType: classifyScript(o.scriptPubKey), ...(address ? { address } : {}) };
    }),
    status,
  };
}

/** Status of a confirmed transaction. */
export function confirmedStatus(chain: ChainState, c: ConfirmedTx): TxStatus {
  const block = chain.block(c.blockHash)!;
  return { confirmed: true, blockHeight: c.height, blockHash: c.blockHash, blockTime: block.header.time, position: c.position };
}

/** API view of a confirmed transaction. */
export function confirmedTxInfo(chain: ChainState, c: ConfirmedTx): TxInfo {
  return build(c.tx, c.raw, c.txid, c.wtxid, c.spent, c.fee, confirmedStatus(chain, c));
}

/** API view of a mempool transaction. */
export function mempoolTxInfo(e: MempoolEntry): TxInfo {
  return build(e.tx, e.raw, e.txid, e.wtxid, e.spent, e.fee, { confirmed: false });
}

/** API view of a mempool entry with its ancestor and descendant totals. */
export function mempoolEntryInfo(mempool: Mempool, e: MempoolEntry, bip125Replaceable: boolean): MempoolEntryInfo {
  const a = mempool.ancestorStats(e.txid);
  const d = mempool.descendantStats(e.txid);
  return {
    txid: e.txid,
    wtxid: e.wtxid,
    feeSat: e.fee,
    vsize: e.vsize,
    weight: e.weight,
    time: e.time,
    height: e.height,
    ancestorCount: a.count,
    ancestorVsize: a.vsize,
    ancestorFeesSat: a.fees,
    descendantCount: d.count,
    descendantVsize: d.vsize,
    descendantFeesSat: d.fees,
    depends: [...mempool.parents(e.txid)],
    spentBy: [...mempool.children(e.txid)],
    bip125Replaceable,
  };
}
