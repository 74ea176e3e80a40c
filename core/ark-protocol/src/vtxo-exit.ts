/**
 * Rebuilding a VTXO's exit chain (bark's `Vtxo::transactions`): one version-3, zero-fee transaction per
 * genesis item, each with a P2A anchor, from the chain anchor down to the VTXO.
 *
 * @example
 * ```ts
 * const chain = exitChain(vtxo);
 * chain.at(-1)!.txid;             // equals vtxo.point.txid
 * chain[0]!.sighash;              // what the first transition's signature signs
 * ```
 */
import { VtxoValidationError } from "./errors.js";
import { formatOutPoint, type OutPoint, type Sats, type TxOut } from "./encoding.js";
import { policyScriptPubKey, type ServerVtxoPolicy } from "./policy.js";
import { P2A_SCRIPT } from "./script.js";
import { taprootSighash } from "./sighash.js";
import { txid as computeTxid, type Transaction } from "./tx.js";
import { vtxoPolicyContext, type Vtxo } from "./vtxo.js";
import { transitionSpentOutput, transitionWitness, type GenesisItem, type SpentOutput } from "./vtxo-genesis.js";

/** Version of every exit transaction (TRUC). */
export const EXIT_TX_VERSION = 3;

/** One rebuilt exit transaction with its signing data. */
export interface ExitChainTx {
  /** The transaction with the transition's witness (empty witness if not fully signed). */
  readonly tx: Transaction;
  /** Txid, internal byte order. */
  readonly txid: Uint8Array;
  /** The outpoint this tx spends and the output found there. */
  readonly prevout: OutPoint;
  readonly spentOutput: TxOut;
  /** Details of the spent output (keys, taproot, unlock leaf). */
  readonly spent: SpentOutput;
  /** BIP-341 SIGHASH_DEFAULT the transition's signature must sign. */
  readonly sighash: Uint8Array;
  /** Vout of the output continuing the chain (or the VTXO). */
  readonly outputIdx: number;
  readonly item: GenesisItem;
}

function checkedSum(values: Sats[]): Sats {
  let s = 0n;
  for (const v of values) {
    if (v < 0n) throw new VtxoValidationError("negative amount");
    s += v;
  }
  if (s >= 1n << 64n) throw new VtxoValidationError("amount overflow");
  return s;
}

/** Value taken out of the chain by an item: its fee anchor plus its other outputs. */
export function itemOutflow(item: GenesisItem): Sats {
  return checkedSum([item.feeAmount, ...item.otherOutputs.map((o) => o.value)]);
}

/** Value of the chain anchor output: amount + Σ (fee + other outputs) over all items. */
export function chainAmount(v: Vtxo<ServerVtxoPolicy>): Sats {
  return checkedSum([v.amount, ...v.genesis.map(itemOutflow)]);
}

/** Builds the exit tx of one item: other outputs with the continuing one at `outputIdx`, then P2A. */
export function buildExitTx(prevout: OutPoint, item: GenesisItem, continuing: TxOut, witness: readonly Uint8Array[]): Transaction {
  const others = item.otherOutputs;
  const outputs: TxOut[] = [...others.slice(0, item.outputIdx), continuing, ...others.slice(item.outputIdx), { value: item.feeAmount, script: P2A_SCRIPT }];
  return {
    version: EXIT_TX_VERSION,
    locktime: 0,
    inputs: [{ prevout, scriptSig: new Uint8Array(0), sequence: 0, witness }],
    outputs,
  };
}

/**
 * Rebuilds every exit transaction of `vtxo`, ordered from the anchor to the VTXO (bark's
 * `transactions()`). Throws {@link VtxoValidationError} when the amounts do not add up.
 */
export function exitChain(vtxo: Vtxo<ServerVtxoPolicy>): ExitChainTx[] {
  const ctx = vtxoPolicyContext(vtxo);
  const spents = vtxo.genesis.map((item) => transitionSpentOutput(item.transition, ctx));
  const finalScript = policyScriptPubKey(vtxo.policy, ctx);
  let current = chainAmount(vtxo);
  let prevout = vtxo.anchorPoint;
  const out: ExitChainTx[] = [];
  vtxo.genesis.forEach((item, i) => {
    const flow = itemOutflow(item);
    if (current < flow) throw new VtxoValidationError(`genesis item ${i} spends more than its input`);
    const next = current - flow;
    const isLast = i + 1 === vtxo.genesis.length;
    const continuing: TxOut = isLast ? { value: vtxo.amount, script: finalScript } : { value: next, script: spents[i + 1]!.scriptPubKey };
    const spent = spents[i]!;
    const spentOutput: TxOut = { value: current, script: spent.scriptPubKey };
    const unsigned = buildExitTx(prevout, item, continuing, []);
    const sighash = taprootSighash(unsigned, 0, [spentOutput], spent.unlockLeaf ? { leafHash: spent.unlockLeaf.leafHash } : {});
    const witness = transitionWitness(item.transition, spent);
    const tx = witness.length ? { ...unsigned, inputs: [{ ...unsigned.inputs[0]!, witness }] } : unsigned;
    const id = computeTxid(unsigned);
    out.push({ tx, txid: id, prevout, spentOutput, spent, sighash, outputIdx: item.outputIdx, item });
    prevout = { txid: id, vout: item.outputIdx };
    current = next;
  });
  return out;
}

/** The exit transactions alone (anchor first). */
export function exitTransactions(vtxo: Vtxo<ServerVtxoPolicy>): Transaction[] {
  return exitChain(vtxo).map((e) => e.tx);
}

/**
 * Outpoints of every exit-chain output above the VTXO (bark's `ancestor_ids()`): a superset
 * of the owned VTXOs this one descends from, including checkpoint outputs.
 */
export function ancestorIds(vtxo: Vtxo<ServerVtxoPolicy>): OutPoint[] {
  const chain = exitChain(vtxo);
  return chain.slice(0, -1).map((e) => ({ txid: e.txid, vout: e.outputIdx }));
}

/** Display strings of {@link ancestorIds}. */
export function ancestorIdStrings(vtxo: Vtxo<ServerVtxoPolicy>): string[] {
  return ancestorIds(vtxo).map(formatOutPoint);
}
