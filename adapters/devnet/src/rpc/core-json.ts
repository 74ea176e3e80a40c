import { addressOf } from "../node/address.js";
import type { AcceptFees, BlockHeaderInfo, MempoolAcceptResult, MempoolEntryInfo, ScriptType, SubmitPackageResult, TxInfo } from "../node/types.js";
import { coreAsm } from "../esplora/script-asm.js";
import { btc, btcPerKvb } from "./core-amount.js";
import { withDescriptorChecksum } from "./descriptor-checksum.js";
import { toHex } from "../consensus/bytes.js";

/** Bitcoin Core 28+ JSON shapes built from the node's data (field order as Core prints them). */


const CORE_TYPE: Readonly<Record<ScriptType, string>> = {
  p2pkh: "pubkeyhash",
  p2sh: "scripthash",
  v0_p2wpkh: "witness_v0_keyhash",
  v0_p2wsh: "witness_v0_scripthash",
  v1_p2tr: "witness_v1_taproot",
  p2pk: "pubkey",
  multisig: "multisig",
  op_return: "nulldata",
  anchor: "anchor",
  unknown_witness: "witness_unknown",
  nonstandard: "nonstandard",
};

/** The descriptor Core infers for a bare output script (no key origin info). */
function inferDescriptor(script: Uint8Array, type: ScriptType, address: string | undefined): string {
  if (type === "v1_p2tr") return `rawtr(${toHex(script.subarray(2))})`;
  if (type === "p2pk") return `pk(${toHex(script.subarray(1, script.length - 1))})`;
  if (address !== undefined) return `addr(${address})`;
  return `raw(${toHex(script)})`;
}

/** `scriptPubKey: {asm, desc, hex, address?, type}` */
export function scriptPubKeyJson(script: Uint8Array, type: ScriptType, address = addressOf(script)): Record<string, unknown> {
  const out: Record<string, unknown> = { asm: coreAsm(script), desc: withDescriptorChecksum(inferDescriptor(script, type, address)), hex: toHex(script) };
  if (address !== undefined) out.address = address;
  out.type = CORE_TYPE[type];
  return out;
}

/** Options of {@link txJson}: include the spent outputs (verbosity 2+/3) and the fee. */
export interface TxJsonOptions {
  readonly prevouts?: boolean;
  readonly fee?: boolean;
  readonly hex?: boolean;
  /** Height and coinbase flag of a spent output's transaction, for `prevout`. */
  readonly prevoutOrigin?: (txid: string) => { height: number; generated: boolean } | undefined;
}

/** `decoderawtransaction`-style object (`getrawtransaction … 1|2`, `getblock … 2|3`). */
export function txJson(tx: TxInfo, opts: TxJsonOptions, classify: (s: Uint8Array) => ScriptType): Record<string, unknown> {
  const out: Record<string, unknown> = {
    txid: tx.txid,
    hash: tx.wtxid,
    version: tx.version,
    size: tx.size,
    vsize: tx.vsize,
    weight: tx.weight,
    locktime: tx.locktime,
    vin: tx.vin.map((i) => {
      const vin: Record<string, unknown> = i.isCoinbase
        ? { coinbase: toHex(i.scriptSig) }
        : { txid: i.txid, vout: i.vout, scriptSig: { asm: coreAsm(i.scriptSig), hex: toHex(i.scriptSig) } };
      if (i.witness.length > 0) vin.txinwitness = i.witness.map(toHex);
      if (opts.prevouts && i.prevout) {
        const origin = opts.prevoutOrigin?.(i.txid);
        vin.prevout = {
          generated: origin?.generated ?? false,
          height: origin?.height ?? -1,
          value: btc(i.prevout.amountSat),
          scriptPubKey: scriptPubKeyJson(i.prevout.scriptPubKey, classify(i.prevout.scriptPubKey), i.prevout.address),
        };
      }
      vin.sequence = i.sequence;
      return vin;
    }),
    vout: tx.vout.map((o) => ({ value: btc(o.amountSat), n: o.n, scriptPubKey: scriptPubKeyJson(o.scriptPubKey, o.scriptType, o.address) })),
  };
  if (opts.fee && tx.feeSat !== undefined) out.fee = btc(tx.feeSat);
  if (opts.hex !== false) out.hex = toHex(tx.raw);
  return out;
}

/** 64-hex target of compact `bits`. */
export function targetFromBits(bits: string): string {
  const n = parseInt(bits, 16);
  const exp = n >>> 24;
  const mantissa = BigInt(n & 0x007fffff);
  const target = exp <= 3 ? mantissa >> BigInt(8 * (3 - exp)) : mantissa << BigInt(8 * (exp - 3));
  return target.toString(16).padStart(64, "0");
}

/** `getblockheader … true` (and the header part of `getblock`). */
export function headerJson(h: BlockHeaderInfo, tipHeight: number): Record<string, unknown> {
  const out: Record<string, unknown> = {
    hash: h.hash,
    confirmations: tipHeight - h.height + 1,
    height: h.height,
    version: h.version,
    versionHex: (h.version >>> 0).toString(16).padStart(8, "0"),
    merkleroot: h.merkleRoot,
    time: h.time,
    mediantime: h.medianTimePast,
    nonce: h.nonce,
    bits: h.bits,
    target: targetFromBits(h.bits),
    difficulty: h.difficulty,
    chainwork: h.chainWork,
    nTx: h.txCount,
  };
  if (!/^0+$/.test(h.prevHash)) out.previousblockhash = h.prevHash;
  if (h.nextHash) out.nextblockhash = h.nextHash;
  return out;
}

/** A mempool chunk: the set of transactions mined together at one feerate (cluster mempool, Core 31). */
export interface MempoolChunk {
  readonly feeSat: bigint;
  readonly vsize: number;
}

/** `getmempoolentry` / `getrawmempool true` values (Core 28 fields, plus Core 31's chunk fields). */
export function mempoolEntryJson(e: MempoolEntryInfo, chunk: MempoolChunk): Record<string, unknown> {
  return {
    vsize: e.vsize,
    weight: e.weight,
    time: e.time,
    height: e.height,
    descendantcount: e.descendantCount,
    descendantsize: e.descendantVsize,
    ancestorcount: e.ancestorCount,
    ancestorsize: e.ancestorVsize,
    wtxid: e.wtxid,
    chunkweight: chunk.vsize * 4,
    fees: { base: btc(e.feeSat), modified: btc(e.feeSat), ancestor: btc(e.ancestorFeesSat), descendant: btc(e.descendantFeesSat), chunk: btc(chunk.feeSat) },
    depends: e.depends,
    spentby: e.spentBy,
    "bip125-replaceable": e.bip125Replaceable,
    unbroadcast: false,
  };
}

function feesJson(f: AcceptFees): Record<string, unknown> {
  return { base: btc(f.baseSat), "effective-feerate": btcPerKvb(f.effectiveFeerateSatPerVb), "effective-includes": f.effectiveIncludes };
}

/** One `testmempoolaccept` entry. */
export function acceptJson(r: MempoolAcceptResult): Record<string, unknown> {
  const out: Record<string, unknown> = { txid: r.txid, wtxid: r.wtxid };
  if (r.allowed === undefined) return { ...out, "package-error": r.rejectReason ?? "package-not-validated" };
  out.allowed = r.allowed;
  if (r.vsize !== undefined) out.vsize = r.vsize;
  if (r.fees) out.fees = feesJson(r.fees);
  if (!r.allowed) {
    out["reject-reason"] = r.rejectReason ?? "rejected";
    if (r.rejectDetails) out["reject-details"] = r.rejectDetails;
  }
  return out;
}

/** `submitpackage` result (also served by the Esplora face's `POST /txs/package`). */
export function submitPackageJson(r: SubmitPackageResult): Record<string, unknown> {
  const results: Record<string, unknown> = {};
  for (const [wtxid, t] of Object.entries(r.txResults)) {
    const e: Record<string, unknown> = { txid: t.txid };
    if (t.otherWtxid) e["other-wtxid"] = t.otherWtxid;
    if (t.vsize !== undefined) e.vsize = t.vsize;
    if (t.fees) e.fees = feesJson(t.fees);
    if (t.error) e.error = t.error;
    results[wtxid] = e;
  }
  return { package_msg: r.packageMsg, "tx-results": results, "replaced-transactions": r.replacedTransactions };
}
