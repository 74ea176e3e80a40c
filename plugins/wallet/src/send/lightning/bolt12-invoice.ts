/**
 * A BOLT 12 invoice reader (`lni1…` or its raw TLV bytes): the invoice's fields out, its
 * signature verified, or a {@link LightningDecodeError} naming the rule it breaks. Pure (no clock:
 * creation time and expiry are reported, not checked).
 *
 * An invoice is one TLV stream: the offer's records (types 1–79) and the invoice request's
 * (0 and 80–159) copied from what was asked, then the invoice's own (160–239) and its signature
 * (240). The reader requires `invoice_paths` with one `invoice_blindedpay` per path,
 * `invoice_created_at`, `invoice_payment_hash` (32 bytes), `invoice_amount`, `invoice_node_id` and
 * the signature; an unknown even type fails, unknown odd types are kept.
 *
 * The signature is BIP-340 by `invoice_node_id` over `H("lightninginvoicesignature", merkle root)`,
 * where `H(tag, m) = SHA256(SHA256(tag) ‖ SHA256(tag) ‖ m)` and the merkle root is built over every
 * record outside 240–1000: each record's leaf `H("LnLeaf", record)` is paired with its nonce leaf
 * `H("LnNonce" ‖ first record, type as BigSize)`, pairs are joined by `H("LnBranch", smaller ‖
 * larger)` level by level, an odd node moving up unchanged.
 */
import { schnorr } from "@noble/curves/secp256k1.js";
import { sha256 } from "@noble/hashes/sha2.js";
import { LightningDecodeError } from "./decode-error.js";
import { isCompressedPoint } from "./encoding.js";
import { bolt12StringBytes, readBlindedPath, type BlindedPath } from "./bolt12-offer.js";
import { ByteReader, readTlvStream, readTu64, type TlvRecord } from "./tlv.js";

/** A decoded BOLT 12 invoice whose signature verified. */
export interface Bolt12Invoice {
  /** The invoice as a `lni1…` string (lowercase, no `+` joins). */
  readonly invoice: string;
  readonly bytes: Uint8Array;
  readonly records: readonly TlvRecord[];
  /** `invreq_chain` (32 bytes); `undefined` means bitcoin. */
  readonly chain: Uint8Array | undefined;
  readonly paymentHash: Uint8Array;
  readonly amountMsat: bigint;
  /** `invreq_amount`, when the request carried one. */
  readonly requestedAmountMsat: bigint | undefined;
  readonly createdAt: bigint;
  /** Seconds after `createdAt`; 7200 when the invoice does not say. */
  readonly relativeExpiry: bigint;
  readonly nodeId: Uint8Array;
  readonly paths: readonly BlindedPath[];
}

const fail = (code: string, message: string): never => {
  throw new LightningDecodeError("bolt12-invoice", code, message);
};

const T = {
  chain: 80n, invreqAmount: 82n, paths: 160n, blindedPay: 162n, createdAt: 164n, relativeExpiry: 166n, paymentHash: 168n, amount: 170n,
  fallbacks: 172n, features: 174n, nodeId: 176n, signature: 240n,
} as const;
const KNOWN_INVOICE_TYPES = new Set<bigint>(Object.values(T));
/** Offer (1–79) and invoice-request (0, 80–159) types the invoice copies; their meaning is the offer's and the request's. */
const isCopied = (t: bigint) => t <= 159n;
const isSignatureType = (t: bigint) => t >= 240n && t <= 1000n;

const enc = new TextEncoder();
/** `H(tag, m) = SHA256(SHA256(tag) ‖ SHA256(tag) ‖ m)` with a tag of any bytes. */
function tagged(tag: Uint8Array, msg: Uint8Array): Uint8Array {
  const t = sha256(tag);
  const buf = new Uint8Array(64 + msg.length);
  buf.set(t, 0);
  buf.set(t, 32);
  buf.set(msg, 64);
  return sha256(buf);
}
const concat = (...parts: Uint8Array[]) => {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let o = 0;
  for (const p of parts) { out.set(p, o); o += p.length; }
  return out;
};
function compare(a: Uint8Array, b: Uint8Array): number {
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return a[i]! - b[i]!;
  return 0;
}
const branch = (a: Uint8Array, b: Uint8Array) => tagged(enc.encode("LnBranch"), compare(a, b) <= 0 ? concat(a, b) : concat(b, a));

/** A BigSize, shortest form. */
export function bigSizeBytes(v: bigint): Uint8Array {
  if (v < 0xfdn) return Uint8Array.of(Number(v));
  const [prefix, len] = v <= 0xffffn ? [0xfd, 2] : v <= 0xffff_ffffn ? [0xfe, 4] : [0xff, 8];
  const out = new Uint8Array(1 + len);
  out[0] = prefix;
  for (let i = 0; i < len; i++) out[len - i] = Number((v >> BigInt(8 * i)) & 0xffn);
  return out;
}

/** One record as it is on the wire: type, length, value. */
export function tlvRecordBytes(r: TlvRecord): Uint8Array {
  return concat(bigSizeBytes(r.type), bigSizeBytes(BigInt(r.value.length)), r.value);
}

/** The BOLT 12 merkle root of a TLV stream's records (signature records 240–1000 left out). */
export function bolt12MerkleRoot(records: readonly TlvRecord[]): Uint8Array {
  const signed = records.filter((r) => !isSignatureType(r.type));
  if (signed.length === 0) throw new Error("no record to sign");
  const nonceTag = concat(enc.encode("LnNonce"), tlvRecordBytes(signed[0]!));
  let level = signed.map((r) => branch(tagged(enc.encode("LnLeaf"), tlvRecordBytes(r)), tagged(nonceTag, bigSizeBytes(r.type))));
  while (level.length > 1) {
    const next: Uint8Array[] = [];
    for (let i = 0; i < level.length; i += 2) next.push(i + 1 < level.length ? branch(level[i]!, level[i + 1]!) : level[i]!);
    level = next;
  }
  return level[0]!;
}

/** The digest a BOLT 12 message's signature covers: `H("lightning" ‖ message ‖ "signature", merkle root)`. */
export function bolt12SignatureDigest(message: "invoice" | "invoice_request", records: readonly TlvRecord[]): Uint8Array {
  return tagged(enc.encode(`lightning${message}signature`), bolt12MerkleRoot(records));
}

/** Reads a BOLT 12 invoice (`lni1…`, or its TLV bytes) and verifies its signature. Throws {@link LightningDecodeError}. */
export function decodeBolt12Invoice(input: string | Uint8Array): Bolt12Invoice {
  let bytes: Uint8Array;
  let invoice: string;
  if (typeof input === "string") {
    try {
      ({ normalized: invoice, bytes } = bolt12StringBytes(input, "lni"));
    } catch (e) {
      return fail("encoding", (e as Error).message);
    }
  } else {
    bytes = input;
    invoice = encodeBolt12String("lni", bytes);
  }
  let records: TlvRecord[];
  try {
    records = readTlvStream(bytes);
  } catch (e) {
    return fail("tlv", (e as Error).message);
  }
  const byType = new Map<bigint, Uint8Array>();
  for (const { type, value } of records) {
    if (!isCopied(type) && !KNOWN_INVOICE_TYPES.has(type) && type % 2n === 0n) fail("unknown-even-type", `unknown even TLV type ${type}`);
    byType.set(type, value);
  }
  const need = (t: bigint, name: string) => byType.get(t) ?? fail("missing-field", `no ${name}`);
  const tu64 = (t: bigint, name: string) => {
    const v = byType.get(t);
    if (v === undefined) return undefined;
    try {
      return readTu64(v, name);
    } catch (e) {
      return fail("field", (e as Error).message);
    }
  };
  const chain = byType.get(T.chain);
  if (chain !== undefined && chain.length !== 32) fail("field", "invreq_chain is not 32 bytes");
  const paymentHash = need(T.paymentHash, "invoice_payment_hash");
  if (paymentHash.length !== 32) fail("field", "invoice_payment_hash is not 32 bytes");
  need(T.amount, "invoice_amount");
  need(T.createdAt, "invoice_created_at");
  const nodeId = need(T.nodeId, "invoice_node_id");
  if (!isCompressedPoint(nodeId)) fail("field", "invoice_node_id is not a public key");
  const paths: BlindedPath[] = [];
  try {
    const r = new ByteReader(need(T.paths, "invoice_paths"));
    while (r.remaining > 0) paths.push(readBlindedPath(r));
  } catch (e) {
    if (e instanceof LightningDecodeError) throw e;
    fail("field", `invoice_paths: ${(e as Error).message}`);
  }
  if (paths.length === 0) fail("field", "invoice_paths is empty");
  const payInfoLen = need(T.blindedPay, "invoice_blindedpay").length;
  // each blinded_payinfo: fees (4 + 4), cltv delta (2), htlc min and max (8 + 8), then a u16-prefixed feature field
  const payInfos = countPayInfos(byType.get(T.blindedPay)!);
  if (payInfos !== paths.length) fail("field", `invoice_blindedpay has ${payInfos} entries for ${paths.length} paths (${payInfoLen} bytes)`);
  const signature = need(T.signature, "signature");
  if (signature.length !== 64) fail("field", "signature is not 64 bytes");
  const digest = bolt12SignatureDigest("invoice", records);
  let valid = false;
  try {
    valid = schnorr.verify(signature, digest, nodeId.subarray(1));
  } catch {
    valid = false;
  }
  if (!valid) fail("signature", "the signature does not verify against invoice_node_id");
  return {
    invoice, bytes, records, chain, paymentHash: paymentHash.slice(), amountMsat: tu64(T.amount, "invoice_amount")!,
    requestedAmountMsat: tu64(T.invreqAmount, "invreq_amount"), createdAt: tu64(T.createdAt, "invoice_created_at")!,
    relativeExpiry: tu64(T.relativeExpiry, "invoice_relative_expiry") ?? 7200n, nodeId: nodeId.slice(), paths,
  };
}

function countPayInfos(value: Uint8Array): number {
  const r = new ByteReader(value);
  let n = 0;
  try {
    while (r.remaining > 0) {
      r.read(26, "blinded_payinfo");
      r.read(r.u16("flen"), "features");
      n++;
    }
  } catch (e) {
    fail("field", `invoice_blindedpay: ${(e as Error).message}`);
  }
  return n;
}

const CHARSET = "qpzry9x8gf2tvdw0s3jn54khce6mua7l";
/** A BOLT 12 string: `hrp1` then the bytes as bech32 characters, no checksum. */
export function encodeBolt12String(hrp: string, bytes: Uint8Array): string {
  let out = `${hrp}1`;
  let acc = 0;
  let bits = 0;
  for (const b of bytes) {
    acc = (acc << 8) | b;
    bits += 8;
    while (bits >= 5) {
      bits -= 5;
      out += CHARSET[(acc >> bits) & 31];
    }
    acc &= (1 << bits) - 1;
  }
  if (bits > 0) out += CHARSET[(acc << (5 - bits)) & 31];
  return out;
}
