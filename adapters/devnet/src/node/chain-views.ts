/** Read-only views over chain and mempool: header facts, outspends, `gettxout`. */
import type { Mempool } from "../policy/mempool.js";
import { addressOf, classifyScript } from "./address.js";
import { difficultyOf } from "./block.js";
import { displayHex } from "../consensus/bytes.js";
import type { ChainState, StoredBlock } from "./chain-state.js";
import { confirmedStatus } from "./tx-info.js";
import type { BlockHeaderInfo, OutspendInfo, TxOutLookup } from "./types.js";

/** Header facts of a stored block, with the next block's hash when there is one. */
export function headerInfo(chain: ChainState, b: StoredBlock): BlockHeaderInfo {
  const next = chain.blockAt(b.height + 1);
  return {
    hash: b.hash,
    height: b.height,
    version: b.header.version,
    prevHash: displayHex(b.header.prevHash),
    merkleRoot: displayHex(b.header.merkleRoot),
    time: b.header.time,
    bits: b.header.bits.toString(16).padStart(8, "0"),
    nonce: b.header.nonce,
    medianTimePast: b.medianTimePast,
    txCount: b.txs.length,
    size: b.size,
    strippedSize: b.strippedSize,
    weight: b.weight,
    chainWork: b.chainWork.toString(16).padStart(64, "0"),
    difficulty: difficultyOf(b.header.bits),
    ...(next ? { nextHash: next.hash } : {}),
  };
}

function outputsOf(chain: ChainState, mempool: Mempool, txid: string): readonly unknown[] | undefined {
  return chain.tx(txid)?.tx.outputs ?? mempool.get(txid)?.tx.outputs;
}

/** Spend status of one output; undefined when the transaction or output does not exist. */
export function outspend(chain: ChainState, mempool: Mempool, txid: string, vout: number): OutspendInfo | undefined {
  const outputs = outputsOf(chain, mempool, txid);
  if (!outputs || !Number.isInteger(vout) || vout < 0 || vout >= outputs.length) return undefined;
  const confirmed = chain.spender(txid, vout);
  if (confirmed) {
    return { spent: true, txid: confirmed.txid, vin: confirmed.vin, status: confirmedStatus(chain, chain.tx(confirmed.txid)!) };
  }
  const pending = mempool.spender(txid, vout);
  if (pending) return { spent: true, txid: pending.txid, vin: pending.vin, status: { confirmed: false } };
  return { spent: false };
}

/** Spend status of every output of a transaction. */
export function outspends(chain: ChainState, mempool: Mempool, txid: string): OutspendInfo[] | undefined {
  return outputsOf(chain, mempool, txid)?.map((_, vout) => outspend(chain, mempool, txid, vout)!);
}

/** bitcoind `gettxout`. */
export function txOut(chain: ChainState, mempool: Mempool, txid: string, vout: number, includeMempool: boolean): TxOutLookup | undefined {
  const bestBlock = chain.tip!.hash;
  const coin = chain.coin(txid, vout);
  if (coin) {
    if (includeMempool && mempool.spender(txid, vout)) return undefined;
    const address = addressOf(coin.scriptPubKey);
    return {
      bestBlock,
      confirmations: chain.height - coin.height + 1,
      amountSat: coin.value,
      scriptPubKey: coin.scriptPubKey,
      scriptType: classifyScript(coin.scriptPubKey),
      coinbase: coin.coinbase,
      ...(address ? { address } : {}),
    };
  }
  const out = includeMempool ? mempool.get(txid)?.tx.outputs[vout] : undefined;
  if (!out || mempool.spender(txid, vout)) return undefined;
  const address = addressOf(out.scriptPubKey);
  return {
    bestBlock,
    confirmations: 0,
    amountSat: out.value,
    scriptPubKey: out.scriptPubKey,
    scriptType: classifyScript(out.scriptPubKey),
    coinbase: false,
    ...(address ? { address } : {}),
  };
}
