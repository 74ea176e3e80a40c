/** Transaction model and its exact wire codec (legacy and BIP-144 segwit serialization), txid and wtxid. */
import { ByteReader, ByteWriter, displayHex } from "./bytes.js";
import { ConsensusError } from "./errors.js";
import { hash256 } from "./hashes.js";

/** A transaction input. `prevTxid` is in internal byte order (as serialized), not display order. */
export interface TxIn {
  prevTxid: Uint8Array;
  prevVout: number;
  scriptSig: Uint8Array;
  sequence: number;
  /** Witness stack items (empty array when the input has no witness). */
  witness: Uint8Array[];
}

/** A transaction output. `value` is in satoshis (Core's signed 64-bit CAmount). */
export interface TxOut {
  value: bigint;
  scriptPubKey: Uint8Array;
}

/** A transaction. `version` and `locktime` are unsigned 32-bit numbers. */
export interface Tx {
  version: number;
  inputs: TxIn[];
  outputs: TxOut[];
  locktime: number;
}

/** The output spent by an input: what sighashes and script checks need to know about it. */
export interface SpentOutput {
  amount: bigint;
  scriptPubKey: Uint8Array;
}

/** True when any input carries witness data. */
export function hasWitness(tx: Tx): boolean {
  return tx.inputs.some((i) => i.witness.length > 0);
}

/** True for a coinbase: a single input spending the null outpoint. */
export function isCoinbase(tx: Tx): boolean {
  if (tx.inputs.length !== 1) return false;
  const input = tx.inputs[0]!;
  return input.prevVout === 0xffffffff && input.prevTxid.every((b) => b === 0);
}

function readInputs(r: ByteReader): TxIn[] {
  const n = r.compactSize();
  const inputs: TxIn[] = [];
  for (let i = 0; i < n; i++) {
    const prevTxid = r.bytes(32);
    const prevVout = r.u32();
    const scriptSig = r.varBytes();
    const sequence = r.u32();
    inputs.push({ prevTxid, prevVout, scriptSig, sequence, witness: [] });
  }
  return inputs;
}

function readOutputs(r: ByteReader): TxOut[] {
  const n = r.compactSize();
  const outputs: TxOut[] = [];
  for (let i = 0; i < n; i++) {
    const value = BigInt.asIntN(64, r.u64());
    outputs.push({ value, scriptPubKey: r.varBytes() });
  }
  return outputs;
}

/**
 * Decodes a serialized transaction exactly as Core's `UnserializeTransaction` with witness allowed.
 * Throws `ConsensusError` (`TX_DECODE_*`) on truncated, non-canonical, superfluous-witness or trailing data.
 */
export function decodeTx(bytes: Uint8Array): Tx {
  const r = new ByteReader(bytes);
  const version = r.u32();
  let inputs = readInputs(r);
  let outputs: TxOut[] = [];
  let flags = 0;
  if (inputs.length === 0) {
    flags = r.u8();
    if (flags !== 0) {
      inputs = readInputs(r);
      outputs = readOutputs(r);
    }
  } else {
    outputs = readOutputs(r);
  }
  if ((flags & 1) !== 0) {
    flags ^= 1;
    for (const input of inputs) {
      const items = r.compactSize();
      for (let i = 0; i < items; i++) input.witness.push(r.varBytes());
    }
    if (!inputs.some((i) => i.witness.length > 0)) {
      throw new ConsensusError("TX_DECODE_SUPERFLUOUS_WITNESS", "superfluous witness record");
    }
  }
  if (flags !== 0) throw new ConsensusError("TX_DECODE_UNKNOWN_FLAG", "unknown transaction optional data");
  const locktime = r.u32();
  if (r.remaining !== 0) throw new ConsensusError("TX_DECODE_TRAILING", "trailing bytes after transaction");
  return { version, inputs, outputs, locktime };
}

/** Serializes `tx`; with witness (BIP-144 marker and flag) only when `withWitness` and some input has a witness. */
export function encodeTx(tx: Tx, withWitness = true): Uint8Array {
  const w = new ByteWriter(64 + tx.inputs.length * 160 + tx.outputs.length * 40);
  const segwit = withWitness && hasWitness(tx);
  w.u32(tx.version);
  if (segwit) w.u8(0).u8(1);
  w.compactSize(tx.inputs.length);
  for (const i of tx.inputs) w.bytes(i.prevTxid).u32(i.prevVout).varBytes(i.scriptSig).u32(i.sequence);
  w.compactSize(tx.outputs.length);
  for (const o of tx.outputs) w.u64(o.value).varBytes(o.scriptPubKey);
  if (segwit) {
    for (const i of tx.inputs) {
      w.compactSize(i.witness.length);
      for (const item of i.witness) w.varBytes(item);
    }
  }
  w.u32(tx.locktime);
  return w.finish();
}

/** Transaction hash in internal byte order (double SHA-256 of the serialization without witness). */
export function txidBytes(tx: Tx): Uint8Array {
  return hash256(encodeTx(tx, false));
}

/** Transaction id as display (byte-reversed) hex. */
export function txid(tx: Tx): string {
  return displayHex(txidBytes(tx));
}

/** Witness transaction id as display (byte-reversed) hex; equals the txid when there is no witness. */
export function wtxid(tx: Tx): string {
  return displayHex(hash256(encodeTx(tx, true)));
}

/** BIP-141 weight: 3 × stripped size + total size. */
export function txWeight(tx: Tx): number {
  return encodeTx(tx, false).length * 3 + encodeTx(tx, true).length;
}

/** Bytes of virtual size charged per sigop (Core's DEFAULT_BYTES_PER_SIGOP). */
export const BYTES_PER_SIGOP = 20;

/**
 * Virtual size: weight / 4 rounded up. With `sigOpCost` given, Core's policy size
 * `GetVirtualTransactionSize(weight, sigOpCost, 20)` = ceil(max(weight, sigOpCost × 20) / 4).
 */
export function txVsize(tx: Tx, sigOpCost = 0): number {
  return Math.ceil(Math.max(txWeight(tx), sigOpCost * BYTES_PER_SIGOP) / 4);
}
