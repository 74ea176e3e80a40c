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
import { ByteWriter, formatOutPoint, writeTxOut, type OutPoint, type Sats, type TxOut } from "./encoding.js";
import { policyScriptPubKey, type ServerVtxoPolicy } from "./policy.js";
import { P2A_SCRIPT } from "./script.js";
import { RecentMap } from "./recent-map.js";
import { taprootSighash } from "./sighash.js";
import { txid as computeTxid, type Transaction } from "./tx.js";
import { vtxoPolicyContext, type Vtxo } from "./vtxo.js";
import { transitionSpentOutput, transitionWitness, writeGenesisItem, writeTransition, type GenesisItem, type SpentOutput, type Transition } from "./vtxo-genesis.js";
import type { PolicyContext } from "./policy.js";

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

// A VTXO made by an arkoor payment carries its parent's genesis plus a few items, and the same
// chains are rebuilt again and again (every validation, registration, exit plan): each step's
// transaction, txid and sighash, and each transition's spent output, are remembered. The keys hold
// every input of the computation in full (no hash of them), so a hit returns exactly what computing
// would; the results are frozen, since callers share them. Bounded, least recently used first out.
const MEMO_MAX = 4096;

interface StepResult {
  readonly tx: Transaction;
  readonly txid: Uint8Array;
  readonly sighash: Uint8Array;
}

const spentMemo = new RecentMap<string, SpentOutput>(MEMO_MAX);
const stepMemo = new RecentMap<string, StepResult>(MEMO_MAX);

/** Forgets every remembered exit-chain step (benches measure the computation itself). */
export function forgetExitChainSteps(): void {
  spentMemo.clear();
  stepMemo.clear();
}

/**
 * The policy context as the first bytes of every memo key (server key, exit delta, expiry), so a
 * key is one flat string made by the writer (a key joined from parts had to be flattened by
 * each lookup before it could be hashed).
 */
const writeContext = (w: ByteWriter, ctx: PolicyContext): ByteWriter => w.varBytes(ctx.serverPubkey).u32(ctx.exitDelta).u32(ctx.expiryHeight);

function deepFreeze<T>(v: T): T {
  if (v && typeof v === "object" && !ArrayBuffer.isView(v) && !Object.isFrozen(v)) {
    for (const x of Object.values(v as object)) deepFreeze(x);
    Object.freeze(v);
  }
  return v;
}

function spentOutputOf(t: Transition, ctx: PolicyContext): SpentOutput {
  const key = writeTransition(writeContext(new ByteWriter(), ctx), t).finishKey();
  const known = spentMemo.get(key);
  if (known) return known;
  const computed = transitionSpentOutput(t, ctx);
  // the tap tweak of an arkoor transition is the caller's array: remember a copy
  return spentMemo.set(key, deepFreeze({ ...computed, tapTweak: Uint8Array.from(computed.tapTweak) }));
}

/** One exit transaction: spends `prevout` (`spentOutput`, unlocked per `spent`), continues with `continuing`. */
function exitStep(ctx: PolicyContext, prevout: OutPoint, spentOutput: TxOut, spent: SpentOutput, item: GenesisItem, continuing: TxOut): StepResult {
  const w = writeContext(new ByteWriter(), ctx).bytes(prevout.txid).u32(prevout.vout);
  writeTxOut(w, spentOutput);
  writeTxOut(w, continuing);
  writeGenesisItem(w, item);
  const key = w.finishKey();
  const known = stepMemo.get(key);
  if (known) return known;
  // built from copies, so that the remembered transaction shares no object with this caller
  const copyOut = (o: TxOut): TxOut => ({ value: o.value, script: Uint8Array.from(o.script) });
  const ownItem: GenesisItem = { ...item, otherOutputs: item.otherOutputs.map(copyOut) };
  const unsigned = buildExitTx({ txid: Uint8Array.from(prevout.txid), vout: prevout.vout }, ownItem, copyOut(continuing), []);
  const sighash = taprootSighash(unsigned, 0, [spentOutput], spent.unlockLeaf ? { leafHash: spent.unlockLeaf.leafHash } : {});
  const witness = transitionWitness(item.transition, spent).map((b) => Uint8Array.from(b));
  const tx = witness.length ? { ...unsigned, inputs: [{ ...unsigned.inputs[0]!, witness }] } : unsigned;
  return stepMemo.set(key, deepFreeze({ tx, txid: computeTxid(unsigned), sighash }));
}

/**
 * Rebuilds every exit transaction of `vtxo`, ordered from the anchor to the VTXO (bark's
 * `transactions()`). Throws {@link VtxoValidationError} when the amounts do not add up. The
 * entries are frozen (shared with later calls for the same chain).
 */
export function exitChain(vtxo: Vtxo<ServerVtxoPolicy>): ExitChainTx[] {
  const ctx = vtxoPolicyContext(vtxo);
  const spents = vtxo.genesis.map((item) => spentOutputOf(item.transition, ctx));
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
    const { tx, txid, sighash } = exitStep(ctx, prevout, spentOutput, spent, item, continuing);
    out.push(Object.freeze({ tx, txid, prevout, spentOutput, spent, sighash, outputIdx: item.outputIdx, item }));
    prevout = { txid, vout: item.outputIdx };
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
