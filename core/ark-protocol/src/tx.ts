/**
 * Minimal Bitcoin transaction model with consensus (de)serialization and txids, enough for the
 * protocol's virtual transactions (exit chain, checkpoints, arkoor) and for reading chain
 * anchor transactions. Segwit serialization is used when any input has a witness.
 *
 * @example
 * ```ts
 * const tx = decodeTx(fromHex(anchorHex));
 * formatOutPoint({ txid: txid(tx), vout: 0 });
 * ```
 */
import { ProtocolDecodeError } from "./errors.js";
import { ByteReader, ByteWriter, decodeExact, displayHex, readOutPoint, writeOutPoint, writeTxOut, type OutPoint, type TxOut } from "./encoding.js";
import { sha256 } from "./hashes.js";

/** A transaction input. */
export interface TxIn {
  readonly prevout: OutPoint;
  readonly scriptSig: Uint8Array;
  readonly sequence: number;
  /** Witness stack items (empty for none). */
  readonly witness: readonly Uint8Array[];
}

/** A Bitcoin transaction. */
export interface Transaction {
  readonly version: number;
  readonly inputs: readonly TxIn[];
  readonly outputs: readonly TxOut[];
  readonly locktime: number;
}

/** Consensus serialization; `withWitness` false gives the txid (stripped) form. */
export function encodeTx(tx: Transaction, withWitness = true): Uint8Array {
  const segwit = withWitness && tx.inputs.some((i) => i.witness.length > 0);
  const w = new ByteWriter().u32(tx.version >>> 0);
  if (segwit) w.u8(0).u8(1);
  w.compactSize(tx.inputs.length);
  for (const i of tx.inputs) writeOutPoint(w, i.prevout).varBytes(i.scriptSig).u32(i.sequence >>> 0);
  w.compactSize(tx.outputs.length);
  for (const o of tx.outputs) writeTxOut(w, o);
  if (segwit) {
    for (const i of tx.inputs) {
      w.compactSize(i.witness.length);
      for (const item of i.witness) w.varBytes(item);
    }
  }
  return w.u32(tx.locktime >>> 0).finish();
}

/** Double SHA-256. */
export function sha256d(data: Uint8Array): Uint8Array {
  return sha256(sha256(data));
}

/** Txid in internal byte order (hash of the witness-stripped serialization). */
export function txid(tx: Transaction): Uint8Array {
  return sha256d(encodeTx(tx, false));
}

/** Txid in display (reversed) hex. */
export function txidHex(tx: Transaction): string {
  return displayHex(txid(tx));
}

function readTxOutAny(r: ByteReader): TxOut {
  const value = r.u64();
  const script = r.varBytes(r.remaining, "output script");
  return { value, script };
}

/** Reads a consensus-serialized transaction (segwit or legacy), bounded by the input size. */
export function readTx(r: ByteReader): Transaction {
  const version = r.u32() | 0;
  let segwit = false;
  if (r.remaining >= 2 && r.peekU8() === 0) {
    r.u8();
    if (r.u8() !== 1) throw new ProtocolDecodeError("invalid segwit flag");
    segwit = true;
  }
  const nIn = r.count(41, "inputs");
  const ins: Array<{ prevout: OutPoint; scriptSig: Uint8Array; sequence: number; witness: Uint8Array[] }> = [];
  for (let i = 0; i < nIn; i++) {
    const prevout = readOutPoint(r);
    const scriptSig = r.varBytes(r.remaining, "scriptSig");
    ins.push({ prevout, scriptSig, sequence: r.u32(), witness: [] });
  }
  const nOut = r.count(9, "outputs");
  const outputs: TxOut[] = [];
  for (let i = 0; i < nOut; i++) outputs.push(readTxOutAny(r));
  if (segwit) {
    for (const input of ins) {
      const n = r.count(1, "witness items");
      for (let j = 0; j < n; j++) input.witness.push(r.varBytes(r.remaining, "witness item"));
    }
    if (ins.every((i) => i.witness.length === 0)) throw new ProtocolDecodeError("superfluous segwit marker");
  }
  return { version, inputs: ins, outputs, locktime: r.u32() };
}

/** Decodes a whole transaction (no trailing bytes). */
export function decodeTx(bytes: Uint8Array): Transaction {
  return decodeExact(bytes, readTx);
}
