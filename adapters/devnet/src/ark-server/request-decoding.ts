/**
 * Conversion of request `bytes` fields into protocol values (ids are 36-byte outpoints, keys
 * 33-byte compressed, nonces 66 bytes, txs consensus-encoded). Failures are
 * {@link RequestConversionError}s with captaind's texts ("invalid public key", "invalid VTXO ID",
 * …), raised before any rule is checked.
 */
import {
  MUSIG_PUB_NONCE_SIZE,
  decodeExact,
  decodeTx,
  decodeUserPolicy,
  decodeVtxo,
  formatOutPoint,
  isCompressedPoint,
  parsePubkey,
  readOutPoint,
  type OutPoint,
  type Transaction,
  type Vtxo,
  type VtxoPolicy,
} from "@tender/ark-protocol";
import { RequestConversionError } from "./server-errors.js";

function attempt<T>(what: string, fn: () => T): T {
  try {
    return fn();
  } catch {
    throw new RequestConversionError(what);
  }
}

/** A 36-byte VTXO id → outpoint. */
export function vtxoIdFromBytes(bytes: Uint8Array | undefined): OutPoint {
  return attempt("invalid VTXO ID", () => decodeExact(bytes ?? new Uint8Array(0), readOutPoint));
}

/** A 36-byte VTXO id → `txid:vout` text. */
export function vtxoIdText(bytes: Uint8Array | undefined): string {
  return formatOutPoint(vtxoIdFromBytes(bytes));
}

/** A 36-byte consensus outpoint. */
export function outpointFromBytes(bytes: Uint8Array | undefined): OutPoint {
  return attempt("invalid outpoint", () => decodeExact(bytes ?? new Uint8Array(0), readOutPoint));
}

/** A 33-byte compressed public key. */
export function pubkeyFromBytes(bytes: Uint8Array | undefined): Uint8Array {
  return attempt("invalid public key", () => parsePubkey(bytes ?? new Uint8Array(0)));
}

/** A 66-byte MuSig2 public nonce (both halves must be curve points). */
export function musigNonceFromBytes(bytes: Uint8Array | undefined): Uint8Array {
  return attempt("invalid public musig nonce", () => {
    const b = bytes ?? new Uint8Array(0);
    if (b.length !== MUSIG_PUB_NONCE_SIZE || !isCompressedPoint(b.subarray(0, 33)) || !isCompressedPoint(b.subarray(33))) throw new Error("not two points");
    return b;
  });
}

/** A consensus-serialized transaction. */
export function txFromBytes(bytes: Uint8Array | undefined): Transaction {
  return attempt("invalid bitcoin transaction", () => {
    const b = bytes ?? new Uint8Array(0);
    if (b.length === 0) throw new Error("empty");
    return decodeTx(b);
  });
}

/** A user VTXO policy encoding. */
export function policyFromBytes(bytes: Uint8Array | undefined): VtxoPolicy {
  return attempt("invalid policy", () => decodeUserPolicy(bytes ?? new Uint8Array(0)));
}

/** A full VTXO encoding. */
export function vtxoFromBytes(bytes: Uint8Array | undefined): Vtxo {
  return attempt("invalid VTXO", () => decodeVtxo(bytes ?? new Uint8Array(0)));
}

/** A block height carried as uint32 (`expiry_height`). */
export function heightFromNumber(h: number | undefined, field: string): number {
  if (h === undefined || !Number.isInteger(h) || h < 0 || h > 0xffffffff) throw new RequestConversionError(`${field}: invalid block height`);
  return h;
}
