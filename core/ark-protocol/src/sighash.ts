/**
 * BIP-341 signature hashes. The protocol itself only uses
 * `SIGHASH_DEFAULT` (key path: spend type 0; script path: spend type 2 with the leaf hash, key
 * version 0 and code-separator position 0xffffffff); the other hash types are implemented so
 * the BIP-341 wallet vectors exercise the same code.
 *
 * @example
 * ```ts
 * const msg = taprootSighash(tx, 0, [spentOutput]);                    // key path
 * const msg2 = taprootSighash(tx, 0, [spentOutput], { leafHash });     // script path
 * ```
 */
import { ProtocolError } from "./errors.js";
import { ByteWriter, writeOutPoint, writeTxOut, type TxOut } from "./encoding.js";
import { sha256, taggedHash } from "./hashes.js";
import type { Transaction } from "./tx.js";

export const SIGHASH_DEFAULT = 0x00;
export const SIGHASH_ALL = 0x01;
export const SIGHASH_NONE = 0x02;
export const SIGHASH_SINGLE = 0x03;
export const SIGHASH_ANYONECANPAY = 0x80;

const VALID_HASH_TYPES = new Set([0x00, 0x01, 0x02, 0x03, 0x81, 0x82, 0x83]);

/** Options of {@link taprootSighash}. */
export interface SighashOptions {
  /** Hash type (default {@link SIGHASH_DEFAULT}). */
  readonly hashType?: number;
  /** Tapleaf hash for a script-path spend (spend type 2). */
  readonly leafHash?: Uint8Array;
  /** Annex (including its 0x50 prefix), if any. */
  readonly annex?: Uint8Array;
  /** Code separator position for script path (default 0xffffffff). */
  readonly codeSeparatorPos?: number;
}

/** Thrown when a sighash cannot be computed (bad index, missing prevouts, bad hash type). */
export class SighashError extends ProtocolError {}

/** The BIP-341 signature message, starting with the epoch byte 0x00 (input of the TapSighash hash). */
export function taprootSigMsg(tx: Transaction, inputIndex: number, prevouts: readonly TxOut[], opts: SighashOptions = {}): Uint8Array {
  const hashType = opts.hashType ?? SIGHASH_DEFAULT;
  if (!VALID_HASH_TYPES.has(hashType)) throw new SighashError(`invalid taproot hash type ${hashType}`);
  if (inputIndex < 0 || inputIndex >= tx.inputs.length) throw new SighashError("input index out of range");
  if (prevouts.length !== tx.inputs.length) throw new SighashError("need one prevout per input");
  const outType = hashType === 0 ? SIGHASH_ALL : hashType & 0x03;
  const anyoneCanPay = (hashType & SIGHASH_ANYONECANPAY) !== 0;
  const w = new ByteWriter().u8(0).u8(hashType).u32(tx.version >>> 0).u32(tx.locktime >>> 0);
  if (!anyoneCanPay) {
    const po = new ByteWriter(), am = new ByteWriter(), sp = new ByteWriter(), sq = new ByteWriter();
    tx.inputs.forEach((input, i) => {
      writeOutPoint(po, input.prevout);
      am.u64(prevouts[i]!.value);
      sp.varBytes(prevouts[i]!.script);
      sq.u32(input.sequence >>> 0);
    });
    w.bytes(sha256(po.finish())).bytes(sha256(am.finish())).bytes(sha256(sp.finish())).bytes(sha256(sq.finish()));
  }
  if (outType !== SIGHASH_NONE && outType !== SIGHASH_SINGLE) {
    const o = new ByteWriter();
    for (const out of tx.outputs) writeTxOut(o, out);
    w.bytes(sha256(o.finish()));
  }
  const extFlag = opts.leafHash ? 1 : 0;
  w.u8(extFlag * 2 + (opts.annex ? 1 : 0));
  if (anyoneCanPay) {
    const input = tx.inputs[inputIndex]!;
    writeOutPoint(w, input.prevout);
    writeTxOut(w, prevouts[inputIndex]!);
    w.u32(input.sequence >>> 0);
  } else {
    w.u32(inputIndex);
  }
  if (opts.annex) w.bytes(sha256(new ByteWriter().varBytes(opts.annex).finish()));
  if (outType === SIGHASH_SINGLE) {
    const out = tx.outputs[inputIndex];
    if (!out) throw new SighashError("SIGHASH_SINGLE without a matching output");
    w.bytes(sha256(writeTxOut(new ByteWriter(), out).finish()));
  }
  if (opts.leafHash) w.bytes(opts.leafHash).u8(0).u32((opts.codeSeparatorPos ?? 0xffffffff) >>> 0);
  return w.finish();
}

/** BIP-341 signature hash: `TaggedHash("TapSighash", 0x00 ‖ SigMsg)`. */
export function taprootSighash(tx: Transaction, inputIndex: number, prevouts: readonly TxOut[], opts: SighashOptions = {}): Uint8Array {
  return taggedHash("TapSighash", taprootSigMsg(tx, inputIndex, prevouts, opts));
}
