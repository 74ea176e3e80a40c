import type { BlockHeaderInfo, OutspendInfo, ScriptStats, ScriptUtxo, TxInfo, TxOutputInfo, TxStatus } from "../node/types.js";
import { classifyScript } from "../node/address.js";
import { esploraAsm } from "./script-asm.js";
import { toHex } from "../consensus/bytes.js";

/**
 * Esplora's JSON shapes (Blockstream esplora/electrs, as mempool.space serves them), built from
 * the node's data. Amounts are sats as JSON numbers; hashes are display-order hex.
 */

const sats = (v: bigint): number => Number(v);

/** `{confirmed, block_height, block_hash, block_time}` (only `confirmed` when unconfirmed). */
export function statusJson(s: TxStatus): Record<string, unknown> {
  if (!s.confirmed) return { confirmed: false };
  return { confirmed: true, block_height: s.blockHeight, block_hash: s.blockHash, block_time: s.blockTime };
}

function outputJson(o: { scriptPubKey: Uint8Array; scriptType?: string; address?: string | undefined; amountSat: bigint }): Record<string, unknown> {
  const out: Record<string, unknown> = {
    scriptpubkey: toHex(o.scriptPubKey),
    scriptpubkey_asm: esploraAsm(o.scriptPubKey),
    scriptpubkey_type: o.scriptType,
  };
  if (o.address !== undefined) out.scriptpubkey_address = o.address;
  out.value = sats(o.amountSat);
  return out;
}

function voutJson(o: TxOutputInfo): Record<string, unknown> {
  return outputJson(o);
}

/** The last data push of a script (a P2SH redeem script), if the script is only pushes. */
function lastPush(script: Uint8Array): Uint8Array | undefined {
  let last: Uint8Array | undefined;
  for (let i = 0; i < script.length; ) {
    const op = script[i++]!;
    let len: number;
    if (op <= 0x4b) len = op;
    else if (op === 0x4c) len = script[i++] ?? 0;
    else if (op === 0x4d) {
      len = (script[i] ?? 0) | ((script[i + 1] ?? 0) << 8);
      i += 2;
    } else return undefined;
    if (i + len > script.length) return undefined;
    last = script.subarray(i, i + len);
    i += len;
  }
  return last;
}

/** Esplora's `inner_redeemscript_asm` / `inner_witnessscript_asm` for P2SH, P2WSH and taproot script-path spends. */
export function innerScripts(prevType: string, scriptSig: Uint8Array, witness: readonly Uint8Array[]): Record<string, string> {
  const out: Record<string, string> = {};
  let type = prevType;
  if (type === "p2sh") {
    const redeem = lastPush(scriptSig);
    if (!redeem) return out;
    out.inner_redeemscript_asm = esploraAsm(redeem);
    if (redeem.length === 34 && redeem[0] === 0x00 && redeem[1] === 0x20) type = "v0_p2wsh";
  }
  if (type === "v0_p2wsh" && witness.length > 0) out.inner_witnessscript_asm = esploraAsm(witness[witness.length - 1]!);
  if (type === "v1_p2tr") {
    const hasAnnex = witness.length >= 2 && witness[witness.length - 1]![0] === 0x50;
    const stack = hasAnnex ? witness.slice(0, -1) : witness;
    if (stack.length >= 2) out.inner_witnessscript_asm = esploraAsm(stack[stack.length - 2]!);
  }
  return out;
}

/** The full transaction object of `/tx/:txid`, `/address/:a/txs`, `/block/:h/txs`. */
export function txJson(tx: TxInfo): Record<string, unknown> {
  return {
    txid: tx.txid,
    version: tx.version,
    locktime: tx.locktime,
    vin: tx.vin.map((i) => {
      const vin: Record<string, unknown> = {
        txid: i.txid,
        vout: i.vout,
        prevout: i.prevout ? outputJson({ ...i.prevout, scriptType: classifyScript(i.prevout.scriptPubKey) }) : null,
        scriptsig: toHex(i.scriptSig),
        scriptsig_asm: esploraAsm(i.scriptSig),
      };
      if (i.witness.length > 0) vin.witness = i.witness.map(toHex);
      vin.is_coinbase = i.isCoinbase;
      vin.sequence = i.sequence;
      if (i.prevout) Object.assign(vin, innerScripts(classifyScript(i.prevout.scriptPubKey), i.scriptSig, i.witness));
      return vin;
    }),
    vout: tx.vout.map(voutJson),
    size: tx.size,
    weight: tx.weight,
    fee: tx.feeSat === undefined ? 0 : sats(tx.feeSat),
    status: statusJson(tx.status),
  };
}

/** `/block/:hash` */
export function blockJson(b: BlockHeaderInfo): Record<string, unknown> {
  return {
    id: b.hash,
    height: b.height,
    version: b.version,
    timestamp: b.time,
    tx_count: b.txCount,
    size: b.size,
    weight: b.weight,
    merkle_root: b.merkleRoot,
    previousblockhash: /^0+$/.test(b.prevHash) ? null : b.prevHash,
    mediantime: b.medianTimePast,
    nonce: b.nonce,
    bits: parseInt(b.bits, 16),
    difficulty: b.difficulty,
  };
}

/** `/tx/:txid/outspend/:vout` */
export function outspendJson(o: OutspendInfo): Record<string, unknown> {
  if (!o.spent) return { spent: false };
  return { spent: true, txid: o.txid, vin: o.vin, status: o.status ? statusJson(o.status) : { confirmed: false } };
}

/** `/address/:a/utxo` entries. */
export function utxoJson(u: ScriptUtxo): Record<string, unknown> {
  return { txid: u.txid, vout: u.vout, status: statusJson(u.status), value: sats(u.amountSat) };
}

/** `chain_stats` / `mempool_stats`. */
export function statsJson(s: ScriptStats): Record<string, unknown> {
  return {
    funded_txo_count: s.fundedTxoCount,
    funded_txo_sum: sats(s.fundedTxoSumSat),
    spent_txo_count: s.spentTxoCount,
    spent_txo_sum: sats(s.spentTxoSumSat),
    tx_count: s.txCount,
  };
}
