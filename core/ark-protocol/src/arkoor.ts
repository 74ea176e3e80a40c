/**
 * Arkoor (out-of-round) package transactions (bark's `ark::arkoor`, checkpoint mode): per input, the
 * checkpoint tx, one arkoor tx per normal output, the isolation fan-out tx, their sighashes and
 * MuSig2 tweaks, and the VTXOs the package creates once signed.
 *
 * | Tx (checkpoint mode) | Spends | Outputs |
 * |---|---|---|
 * | checkpoint | the input VTXO | `(n_j, cp)` per normal output, `(Σd, cp)` if isolated outputs exist, P2A 0 |
 * | arkoor j | checkpoint output j | `(n_j, policy_j)`, P2A 0 |
 * | fan-out | checkpoint output m | `(d_i, policy_i)` per isolated output, P2A 0 |
 *
 * `cp` is the checkpoint policy of the input's user key; every output inherits the input's
 * server key, exit delta and expiry. Direct mode (no checkpoint; server-internal) is also
 * supported: one arkoor tx pays the normal outputs and the isolation output directly.
 * The server rebuilds each part from its normal and isolated lists exactly as sent, so
 * these layouts are the wire contract.
 */
import { bytesEqual, type OutPoint, type TxOut } from "./encoding.js";
import { policyScriptPubKey, policyTaproot, type CheckpointPolicy, type PolicyContext, type VtxoPolicy } from "./policy.js";
import type { TaprootOutput } from "./taproot.js";
import { P2A_SCRIPT } from "./script.js";
import { txid as computeTxid, type Transaction } from "./tx.js";
import { taprootSighash } from "./sighash.js";
import { vtxoPolicyContext, type Vtxo } from "./vtxo.js";
import type { GenesisItem } from "./vtxo-genesis.js";
import { ArkoorError, checkArkoorOutputs, type ArkoorDestination, type IsolatedOutputs } from "./arkoor-allocation.js";

/**
 * The input VTXO of an arkoor part. Payments spend only `pubkey` VTXOs (the server refuses
 * others; see {@link buildArkoorPackage}), but the construction works for any user policy
 * (e.g. cooperative HTLC spends), always keyed on the policy's user key.
 */
export type ArkoorInput = Vtxo<VtxoPolicy>;

/** One message to co-sign: the tx, the output it spends and the MuSig2 tweak. */
export interface ArkoorSigningItem {
  tx: Transaction;
  prevout: TxOut;
  sighash: Uint8Array;
  /** x-only TapTweak of the spent output. */
  tweak: Uint8Array;
}

/** All transactions of one input's part, in signing order. */
export interface ArkoorPart {
  input: ArkoorInput;
  normal: ArkoorDestination<VtxoPolicy>[];
  isolated: ArkoorDestination<VtxoPolicy>[];
  useCheckpoint: boolean;
  /** Checkpoint tx (checkpoint mode) or null. */
  checkpointTx: Transaction | null;
  /** Arkoor txs: one per normal output (checkpoint mode) or the single direct arkoor tx. */
  arkoorTxs: Transaction[];
  /** Isolation fan-out tx, when isolated outputs exist. */
  fanoutTx: Transaction | null;
  /** Messages in signing order: checkpoint, arkoor 0..m−1, fan-out (checkpoint mode). */
  signing: ArkoorSigningItem[];
  /** [user, server] keys of the MuSig2 signatures. */
  signers: [Uint8Array, Uint8Array];
  /** TapTweak of the input VTXO's policy. */
  inputTweak: Uint8Array;
  /** Checkpoint policy taproot (also the isolation output's). */
  checkpointTaproot: TaprootOutput;
}

const emptyInput = (prevout: OutPoint) => ({ prevout, scriptSig: new Uint8Array(0), sequence: 0, witness: [] as Uint8Array[] });
const anchor: TxOut = { value: 0n, script: P2A_SCRIPT };
const tx = (prevout: OutPoint, outputs: TxOut[]): Transaction => ({ version: 3, locktime: 0, inputs: [emptyInput(prevout)], outputs: [...outputs, anchor] });

/** The checkpoint policy of an input: its user key. */
export function checkpointPolicyOf(input: ArkoorInput): CheckpointPolicy {
  return { type: "checkpoint", userPubkey: input.policy.userPubkey };
}

function sumAmounts(ds: readonly ArkoorDestination<VtxoPolicy>[]): bigint {
  return ds.reduce((s, d) => s + d.amount, 0n);
}

/**
 * Builds one input's transactions from its normal and isolated output lists (as the server
 * rebuilds them: byte for byte, or its sighashes differ). Checks the part like the server
 * (≤ 255 outputs per list, isolated sum ≥ 330) unless `skipChecks`.
 */
export function buildArkoorPart(
  input: ArkoorInput,
  outputs: IsolatedOutputs<VtxoPolicy>,
  opts: { useCheckpoint?: boolean; skipChecks?: boolean; maxFanout?: number; maxExitDepth?: number } = {},
): ArkoorPart {
  const { normal, isolated } = outputs;
  if (!opts.skipChecks) checkArkoorOutputs(outputs, { inputExitDepth: input.genesis.length, maxFanout: opts.maxFanout, maxExitDepth: opts.maxExitDepth });
  const total = sumAmounts(normal) + sumAmounts(isolated);
  if (total !== input.amount) throw new ArkoorError("unbalanced", `Unbalanced { input: ${input.amount}, output: ${total} }`);
  const useCheckpoint = opts.useCheckpoint ?? true;
  const ctx: PolicyContext = vtxoPolicyContext(input);
  const inputTaproot = policyTaproot(input.policy, ctx);
  const cpTaproot = policyTaproot(checkpointPolicyOf(input), ctx);
  const out = (d: ArkoorDestination<VtxoPolicy>): TxOut => ({ value: d.amount, script: policyScriptPubKey(d.policy, ctx) });
  const inputPrevout: TxOut = { value: input.amount, script: inputTaproot.scriptPubKey };
  const isolationOutput: TxOut[] = isolated.length ? [{ value: sumAmounts(isolated), script: cpTaproot.scriptPubKey }] : [];
  const signing: ArkoorSigningItem[] = [];
  const item = (t: Transaction, prevout: TxOut, tweak: Uint8Array): ArkoorSigningItem => ({ tx: t, prevout, tweak, sighash: taprootSighash(t, 0, [prevout]) });

  let checkpointTx: Transaction | null = null;
  let arkoorTxs: Transaction[];
  let fanoutTx: Transaction | null = null;
  if (useCheckpoint) {
    checkpointTx = tx(input.point, [...normal.map((d) => ({ value: d.amount, script: cpTaproot.scriptPubKey })), ...isolationOutput]);
    const cpId = computeTxid(checkpointTx);
    signing.push(item(checkpointTx, inputPrevout, inputTaproot.tweak));
    arkoorTxs = normal.map((d, j) => tx({ txid: cpId, vout: j }, [out(d)]));
    arkoorTxs.forEach((t, j) => signing.push(item(t, checkpointTx!.outputs[j]!, cpTaproot.tweak)));
    if (isolated.length) {
      fanoutTx = tx({ txid: cpId, vout: normal.length }, isolated.map(out));
      signing.push(item(fanoutTx, checkpointTx.outputs[normal.length]!, cpTaproot.tweak));
    }
  } else {
    const direct = tx(input.point, [...normal.map(out), ...isolationOutput]);
    arkoorTxs = [direct];
    signing.push(item(direct, inputPrevout, inputTaproot.tweak));
    if (isolated.length) {
      fanoutTx = tx({ txid: computeTxid(direct), vout: normal.length }, isolated.map(out));
      signing.push(item(fanoutTx, direct.outputs[normal.length]!, cpTaproot.tweak));
    }
  }
  return {
    input,
    normal: normal.map((d) => ({ ...d })),
    isolated: isolated.map((d) => ({ ...d })),
    useCheckpoint,
    checkpointTx,
    arkoorTxs,
    fanoutTx,
    signing,
    signers: [input.policy.userPubkey, input.serverPubkey],
    inputTweak: inputTaproot.tweak,
    checkpointTaproot: cpTaproot,
  };
}

/** Number of signatures of a part: m + 1 (+1 with isolation) with checkpoints; 1 (+1) direct. */
export function arkoorSignatureCount(part: ArkoorPart): number {
  return part.signing.length;
}

function arkoorItem(part: ArkoorPart, tapTweak: Uint8Array, signature: Uint8Array | null, outputIdx: number, tx: Transaction): GenesisItem {
  const outs = tx.outputs.slice(0, -1);
  return {
    transition: { kind: "arkoor", clientCosigners: [part.input.policy.userPubkey], tapTweak, signature },
    outputIdx,
    otherOutputs: outs.filter((_, i) => i !== outputIdx),
    feeAmount: 0n,
  };
}

/**
 * The VTXOs a signed part creates, normal outputs then isolated ones; each keeps the input's
 * server key, exit delta, expiry and anchor, and adds two arkoor genesis items. `signatures`
 * follows {@link ArkoorPart.signing}; null leaves a transition unsigned (for
 * `validateVtxoUnsigned` or to fill in later).
 */
export function arkoorOutputVtxos(part: ArkoorPart, signatures: readonly (Uint8Array | null)[]): Vtxo<VtxoPolicy>[] {
  if (signatures.length !== part.signing.length) throw new ArkoorError("signature", `expected ${part.signing.length} signatures, got ${signatures.length}`);
  const { input } = part;
  const base = { amount: 0n, expiryHeight: input.expiryHeight, serverPubkey: input.serverPubkey, exitDelta: input.exitDelta, anchorPoint: input.anchorPoint };
  const mk = (d: ArkoorDestination<VtxoPolicy>, genesis: GenesisItem[], point: OutPoint): Vtxo<VtxoPolicy> => ({ ...base, amount: d.amount, policy: d.policy, genesis: [...input.genesis, ...genesis], point });
  const cpTweak = part.checkpointTaproot.tweak;
  const m = part.normal.length;
  const result: Vtxo<VtxoPolicy>[] = [];
  if (part.useCheckpoint) {
    const cp = part.checkpointTx!;
    part.normal.forEach((d, j) => {
      const a = arkoorItem(part, part.inputTweak, signatures[0] ?? null, j, cp);
      const t = part.arkoorTxs[j]!;
      const b = arkoorItem(part, cpTweak, signatures[1 + j] ?? null, 0, t);
      result.push(mk(d, [a, b], { txid: computeTxid(t), vout: 0 }));
    });
    if (part.fanoutTx) {
      const fan = part.fanoutTx;
      const fanId = computeTxid(fan);
      part.isolated.forEach((d, i) => {
        const a = arkoorItem(part, part.inputTweak, signatures[0] ?? null, m, cp);
        const b = arkoorItem(part, cpTweak, signatures[1 + m] ?? null, i, fan);
        result.push(mk(d, [a, b], { txid: fanId, vout: i }));
      });
    }
  } else {
    const direct = part.arkoorTxs[0]!;
    const directId = computeTxid(direct);
    part.normal.forEach((d, j) => result.push(mk(d, [arkoorItem(part, part.inputTweak, signatures[0] ?? null, j, direct)], { txid: directId, vout: j })));
    if (part.fanoutTx) {
      const fan = part.fanoutTx;
      const fanId = computeTxid(fan);
      part.isolated.forEach((d, i) => {
        const a = arkoorItem(part, part.inputTweak, signatures[0] ?? null, m, direct);
        const b = arkoorItem(part, cpTweak, signatures[1] ?? null, i, fan);
        result.push(mk(d, [a, b], { txid: fanId, vout: i }));
      });
    }
  }
  return result;
}

/** Whether `pubkey` is the user key of a part (the key that must co-sign). */
export function isArkoorSigner(part: ArkoorPart, pubkey: Uint8Array): boolean {
  return bytesEqual(part.signers[0], pubkey);
}
