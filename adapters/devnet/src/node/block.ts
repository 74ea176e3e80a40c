/**
 * Block serialization: the 80-byte header, proof of work for compact bits, the transaction
 * merkle root, the BIP-141 witness commitment, and splitting a raw block into its transactions.
 */
import { concatBytes, displayHex } from "../consensus/bytes.js";
import { compactSize, sha256d, u32le } from "./bytes.js";
import { InvalidInputError } from "./node-errors.js";

/** Regtest's compact target (`powLimit`). */
export const REGTEST_BITS = 0x207fffff;

/** Block header fields; hashes in internal byte order. */
export interface BlockHeader {
  version: number;
  prevHash: Uint8Array;
  merkleRoot: Uint8Array;
  time: number;
  bits: number;
  nonce: number;
}

/** The 80-byte serialization of a header. */
export function encodeHeader(h: BlockHeader): Uint8Array {
  return concatBytes(u32le(h.version), h.prevHash, h.merkleRoot, u32le(h.time), u32le(h.bits), u32le(h.nonce));
}

/** Parses an 80-byte header. */
export function decodeHeader(raw: Uint8Array): BlockHeader {
  if (raw.length < 80) throw new InvalidInputError("block header shorter than 80 bytes");
  const v = new DataView(raw.buffer, raw.byteOffset, 80);
  return {
    version: v.getInt32(0, true),
    prevHash: raw.slice(4, 36),
    merkleRoot: raw.slice(36, 68),
    time: v.getUint32(68, true),
    bits: v.getUint32(72, true),
    nonce: v.getUint32(76, true),
  };
}

/** Block hash (display hex) of a header. */
export function blockHash(h: BlockHeader): string {
  return displayHex(sha256d(encodeHeader(h)));
}

/** The target a compact `bits` value encodes. */
export function targetOf(bits: number): bigint {
  const exponent = bits >>> 24;
  const mantissa = BigInt(bits & 0x007fffff);
  return exponent <= 3 ? mantissa >> BigInt(8 * (3 - exponent)) : mantissa << BigInt(8 * (exponent - 3));
}

/** True when the header's hash is at or below its target. */
export function meetsTarget(h: BlockHeader): boolean {
  const hashLe = sha256d(encodeHeader(h));
  const value = BigInt("0x" + displayHex(hashLe));
  return value <= targetOf(h.bits);
}

/** Grinds the nonce until the header meets its target (a couple of tries at regtest bits). */
export function grindNonce(h: BlockHeader): BlockHeader {
  for (let nonce = 0; nonce <= 0xffffffff; nonce++) {
    const candidate = { ...h, nonce };
    if (meetsTarget(candidate)) return candidate;
  }
  throw new Error("no nonce satisfies the target");
}

/** Work a block with these bits adds (Core's GetBlockProof). */
export function blockWork(bits: number): bigint {
  const target = targetOf(bits);
  return (1n << 256n) / (target + 1n);
}

/** bitcoind's `difficulty` for compact bits. */
export function difficultyOf(bits: number): number {
  let shift = (bits >>> 24) & 0xff;
  let diff = 0x0000ffff / (bits & 0x00ffffff);
  while (shift < 29) {
    diff *= 256;
    shift++;
  }
  while (shift > 29) {
    diff /= 256;
    shift--;
  }
  return diff;
}

/** Merkle root over internal-order hashes (Core's ComputeMerkleRoot: an odd last node pairs with itself). */
export function merkleRoot(hashes: readonly Uint8Array[]): Uint8Array {
  if (hashes.length === 0) return new Uint8Array(32);
  let level = hashes.slice();
  while (level.length > 1) {
    const next: Uint8Array[] = [];
    for (let i = 0; i < level.length; i += 2) {
      const left = level[i]!;
      const right = level[i + 1] ?? left;
      next.push(sha256d(concatBytes(left, right)));
    }
    level = next;
  }
  return level[0]!;
}

/** The BIP-141 commitment header bytes: OP_RETURN, push 36, 0xaa21a9ed. */
export const WITNESS_COMMITMENT_PREFIX = Uint8Array.of(0x6a, 0x24, 0xaa, 0x21, 0xa9, 0xed);

/** Output script committing to the witness merkle root (coinbase wtxid taken as zero) and a reserved value. */
export function witnessCommitmentScript(wtxidsInternal: readonly Uint8Array[], reserved: Uint8Array): Uint8Array {
  const root = merkleRoot([new Uint8Array(32), ...wtxidsInternal.slice(1)]);
  return concatBytes(WITNESS_COMMITMENT_PREFIX, sha256d(concatBytes(root, reserved)));
}

/** Index of the coinbase output carrying the witness commitment (the last matching one), or -1. */
export function findWitnessCommitment(outputScripts: readonly Uint8Array[]): number {
  for (let i = outputScripts.length - 1; i >= 0; i--) {
    const s = outputScripts[i]!;
    if (s.length >= 38 && WITNESS_COMMITMENT_PREFIX.every((b, j) => s[j] === b)) return i;
  }
  return -1;
}

/** Serialized block: header, transaction count, transactions. */
export function encodeBlock(header: BlockHeader, rawTxs: readonly Uint8Array[]): Uint8Array {
  return concatBytes(encodeHeader(header), compactSize(rawTxs.length), ...rawTxs);
}

/** Splits a raw block into its header and raw transactions; throws {@link InvalidInputError} when truncated. */
export function splitBlock(raw: Uint8Array): { header: BlockHeader; rawTxs: Uint8Array[] } {
  const header = decodeHeader(raw);
  const r = new Cursor(raw, 80);
  const n = r.compact();
  const rawTxs: Uint8Array[] = [];
  for (let i = 0; i < n; i++) {
    const start = r.pos;
    skipTx(r);
    rawTxs.push(raw.slice(start, r.pos));
  }
  if (r.pos !== raw.length) throw new InvalidInputError("trailing bytes after the block's transactions");
  return { header, rawTxs };
}

class Cursor {
  constructor(
    readonly buf: Uint8Array,
    public pos: number,
  ) {}
  skip(n: number): void {
    if (n < 0 || this.pos + n > this.buf.length) throw new InvalidInputError("truncated block");
    this.pos += n;
  }
  byte(): number {
    this.skip(1);
    return this.buf[this.pos - 1]!;
  }
  compact(): number {
    const first = this.byte();
    if (first < 0xfd) return first;
    const size = first === 0xfd ? 2 : first === 0xfe ? 4 : 8;
    let v = 0;
    for (let i = 0; i < size; i++) v += this.byte() * 2 ** (8 * i);
    return v;
  }
}

function skipTx(r: Cursor): void {
  r.skip(4);
  let nIn = r.compact();
  let segwit = false;
  if (nIn === 0) {
    r.byte();
    segwit = true;
    nIn = r.compact();
  }
  for (let i = 0; i < nIn; i++) {
    r.skip(36);
    r.skip(r.compact());
    r.skip(4);
  }
  const nOut = r.compact();
  for (let i = 0; i < nOut; i++) {
    r.skip(8);
    r.skip(r.compact());
  }
  if (segwit) {
    for (let i = 0; i < nIn; i++) {
      const items = r.compact();
      for (let j = 0; j < items; j++) r.skip(r.compact());
    }
  }
  r.skip(4);
}
