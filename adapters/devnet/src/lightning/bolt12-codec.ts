/**
 * A small BOLT 12 codec for the devnet: the simulated Lightning network writes offers of its payee
 * (`lno1…`: description, optional amount in msat, issuer id, regtest/signet/testnet chain) and
 * answers invoice requests with an invoice signed by the issuer (`lni1…` bytes); the reference
 * Ark server reads the invoices wallets hand it (payment hash, amount, chain) with it.
 *
 * Strings are `hrp1` plus the bytes as bech32 characters without checksum. Invoices copy the
 * offer's records, add the request's (`invreq_metadata`, `invreq_chain`, `invreq_amount`,
 * `invreq_payer_id`), one blinded path to the payee with its pay info, creation time, relative
 * expiry, payment hash, amount, node id, and a BIP-340 signature over
 * `H("lightninginvoicesignature", merkle root)` (the BOLT 12 merkle tree of every record outside
 * 240–1000; `H(tag, m) = SHA256(SHA256(tag) ‖ SHA256(tag) ‖ m)`).
 */
import { randomBytes } from "node:crypto";
import { schnorr, secp256k1 } from "@noble/curves/secp256k1.js";
import { sha256 } from "@noble/hashes/sha2.js";
import type { Bolt11Network } from "./bolt11-codec.js";

/** One TLV record. */
export interface Tlv { readonly type: bigint; readonly value: Uint8Array }

/** The BOLT 0 chain hash (genesis block hash, internal byte order) of each network. */
const GENESIS_DISPLAY: Record<Bolt11Network, string> = {
  bitcoin: "000000000019d6689c085ae165831e934ff763ae46a2a6c172b3f1b60a8ce26f",
  testnet: "000000000933ea01ad0ee984209779baaec3ced90fa3f408719526f8d77f4943",
  signet: "00000008819873e925422c1ff0f99f7cc9bbb232af63a077a480a3633bee1ef6",
  regtest: "0f9188f13cb7b2c71f2a335e3a4fc328bf5beb436012afca590b1a11466e2206",
};
export function chainHash(network: Bolt11Network): Uint8Array {
  return Uint8Array.from(Buffer.from(GENESIS_DISPLAY[network], "hex").reverse());
}
export function networkOfChain(hash: Uint8Array | undefined): Bolt11Network | undefined {
  if (hash === undefined) return "bitcoin";
  return (Object.keys(GENESIS_DISPLAY) as Bolt11Network[]).find((n) => Buffer.from(chainHash(n)).equals(hash));
}

const enc = new TextEncoder();
const concat = (...parts: Uint8Array[]) => Uint8Array.from(Buffer.concat(parts));

function bigSize(v: bigint): Uint8Array {
  if (v < 0xfdn) return Uint8Array.of(Number(v));
  const [prefix, len] = v <= 0xffffn ? [0xfd, 2] : v <= 0xffff_ffffn ? [0xfe, 4] : [0xff, 8];
  const out = new Uint8Array(1 + len);
  out[0] = prefix;
  for (let i = 0; i < len; i++) out[len - i] = Number((v >> BigInt(8 * i)) & 0xffn);
  return out;
}
function tu64(v: bigint): Uint8Array {
  const out: number[] = [];
  for (let x = v; x > 0n; x >>= 8n) out.unshift(Number(x & 0xffn));
  return Uint8Array.from(out);
}
function readTu64(v: Uint8Array): bigint {
  let x = 0n;
  for (const b of v) x = (x << 8n) | BigInt(b);
  return x;
}
const recordBytes = (r: Tlv) => concat(bigSize(r.type), bigSize(BigInt(r.value.length)), r.value);
export const tlvBytes = (records: readonly Tlv[]) => concat(...[...records].sort((a, b) => (a.type < b.type ? -1 : 1)).map(recordBytes));

export function readTlvs(bytes: Uint8Array): Tlv[] {
  const out: Tlv[] = [];
  let pos = 0;
  const big = (): bigint => {
    const first = bytes[pos++];
    if (first === undefined) throw new Error("truncated");
    if (first < 0xfd) return BigInt(first);
    const len = first === 0xfd ? 2 : first === 0xfe ? 4 : 8;
    if (pos + len > bytes.length) throw new Error("truncated");
    const v = readTu64(bytes.subarray(pos, pos + len));
    pos += len;
    return v;
  };
  let last = -1n;
  while (pos < bytes.length) {
    const type = big();
    if (type <= last) throw new Error("types not increasing");
    const len = Number(big());
    if (pos + len > bytes.length) throw new Error("truncated");
    out.push({ type, value: bytes.slice(pos, pos + len) });
    pos += len;
    last = type;
  }
  return out;
}

function tagged(tag: Uint8Array, msg: Uint8Array): Uint8Array {
  const t = sha256(tag);
  return sha256(concat(t, t, msg));
}
const branch = (a: Uint8Array, b: Uint8Array) => tagged(enc.encode("LnBranch"), Buffer.compare(a, b) <= 0 ? concat(a, b) : concat(b, a));

/** The BOLT 12 merkle root of the records outside 240–1000. */
export function merkleRoot(records: readonly Tlv[]): Uint8Array {
  const signed = [...records].filter((r) => r.type < 240n || r.type > 1000n).sort((a, b) => (a.type < b.type ? -1 : 1));
  const nonceTag = concat(enc.encode("LnNonce"), recordBytes(signed[0]!));
  let level = signed.map((r) => branch(tagged(enc.encode("LnLeaf"), recordBytes(r)), tagged(nonceTag, bigSize(r.type))));
  while (level.length > 1) {
    const next: Uint8Array[] = [];
    for (let i = 0; i < level.length; i += 2) next.push(i + 1 < level.length ? branch(level[i]!, level[i + 1]!) : level[i]!);
    level = next;
  }
  return level[0]!;
}

const CHARSET = "qpzry9x8gf2tvdw0s3jn54khce6mua7l";
export function bolt12String(hrp: "lno" | "lni", bytes: Uint8Array): string {
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
export function bolt12Bytes(text: string, hrp: "lno" | "lni"): Uint8Array {
  const s = text.replace(/\+\s*/g, "").toLowerCase();
  if (!s.startsWith(`${hrp}1`)) throw new Error(`not a ${hrp}1 string`);
  const out: number[] = [];
  let acc = 0;
  let bits = 0;
  for (const c of s.slice(hrp.length + 1)) {
    const v = CHARSET.indexOf(c);
    if (v < 0) throw new Error(`character ${c} is not bech32`);
    acc = (acc << 5) | v;
    bits += 5;
    if (bits >= 8) {
      bits -= 8;
      out.push((acc >> bits) & 0xff);
      acc &= (1 << bits) - 1;
    }
  }
  return Uint8Array.from(out);
}

/** What an offer says. */
export interface OfferFields {
  readonly network: Bolt11Network;
  readonly description: string;
  readonly amountMsat?: bigint;
  readonly issuerId: Uint8Array;
  /** `offer_metadata`: makes two offers with equal fields distinct. */
  readonly metadata?: Uint8Array;
}

/** The offer's TLV bytes. */
export function encodeOffer(o: OfferFields): Uint8Array {
  const records: Tlv[] = [{ type: 10n, value: enc.encode(o.description) }, { type: 22n, value: o.issuerId }];
  if (o.network !== "bitcoin") records.push({ type: 2n, value: chainHash(o.network) });
  if (o.amountMsat !== undefined) records.push({ type: 8n, value: tu64(o.amountMsat) });
  if (o.metadata !== undefined) records.push({ type: 4n, value: o.metadata });
  return tlvBytes(records);
}

/** The fields of an offer the simulator reads back. */
export function readOffer(bytes: Uint8Array): { records: Tlv[]; amountMsat: bigint | undefined; currency: boolean; issuerId: Uint8Array | undefined; chains: Uint8Array[] | undefined } {
  const records = readTlvs(bytes);
  const get = (t: bigint) => records.find((r) => r.type === t)?.value;
  const chains = get(2n);
  return {
    records, amountMsat: get(8n) ? readTu64(get(8n)!) : undefined, currency: get(6n) !== undefined, issuerId: get(22n),
    chains: chains ? Array.from({ length: chains.length / 32 }, (_, i) => chains.subarray(i * 32, i * 32 + 32)) : undefined,
  };
}

/** What the issuer writes into an invoice for a request. */
export interface InvoiceFields {
  readonly offerRecords: readonly Tlv[];
  readonly network: Bolt11Network;
  /** The request's amount (absent when it relies on the offer's). */
  readonly requestedMsat: bigint | undefined;
  /** What the invoice asks. */
  readonly amountMsat: bigint;
  readonly paymentHash: Uint8Array;
  readonly nodeId: Uint8Array;
  readonly createdAt: number;
  readonly relativeExpirySecs: number;
  readonly cltvExpiryDelta: number;
}

/** The invoice's TLV bytes, signed with `signingKey` (the issuer's key; another key forges it). */
export function encodeSignedInvoice(f: InvoiceFields, signingKey: Uint8Array): Uint8Array {
  const u16 = (n: number) => Uint8Array.of(n >> 8, n & 0xff);
  const u32 = (n: number) => Uint8Array.of(n >>> 24, (n >> 16) & 0xff, (n >> 8) & 0xff, n & 0xff);
  const u64 = (n: bigint) => Uint8Array.from(Buffer.from(n.toString(16).padStart(16, "0"), "hex"));
  const hop = concat(secp256k1.getPublicKey(secp256k1.utils.randomSecretKey(), true), u16(16), randomBytes(16));
  const path = concat(f.nodeId, secp256k1.getPublicKey(secp256k1.utils.randomSecretKey(), true), Uint8Array.of(1), hop);
  const payInfo = concat(u32(0), u32(0), u16(f.cltvExpiryDelta), u64(1n), u64(f.amountMsat * 2n + 1_000_000n), u16(0));
  const records: Tlv[] = [
    ...f.offerRecords.filter((r) => r.type >= 1n && r.type <= 79n),
    { type: 0n, value: randomBytes(16) },
    ...(f.network !== "bitcoin" ? [{ type: 80n, value: chainHash(f.network) }] : []),
    ...(f.requestedMsat !== undefined ? [{ type: 82n, value: tu64(f.requestedMsat) }] : []),
    { type: 88n, value: secp256k1.getPublicKey(secp256k1.utils.randomSecretKey(), true) },
    { type: 160n, value: path },
    { type: 162n, value: payInfo },
    { type: 164n, value: tu64(BigInt(f.createdAt)) },
    { type: 166n, value: tu64(BigInt(f.relativeExpirySecs)) },
    { type: 168n, value: f.paymentHash },
    { type: 170n, value: tu64(f.amountMsat) },
    { type: 176n, value: f.nodeId },
  ];
  const digest = tagged(enc.encode("lightninginvoicesignature"), merkleRoot(records));
  return tlvBytes([...records, { type: 240n, value: schnorr.sign(digest, signingKey, randomBytes(32)) }]);
}

/** What the server needs of an invoice a wallet hands it. */
export interface Bolt12InvoiceRead {
  readonly invoice: string;
  readonly network: Bolt11Network | undefined;
  readonly paymentHash: Uint8Array;
  readonly amountMsat: bigint;
  readonly nodeId: Uint8Array;
  /** The payee's final CLTV delta (from the first blinded path's pay info). */
  readonly cltvExpiryDelta: number;
}

/** Reads a `lni1…` invoice and checks its signature against its node id. Throws `Error`. */
export function decodeBolt12Invoice(text: string): Bolt12InvoiceRead {
  const records = readTlvs(bolt12Bytes(text, "lni"));
  const get = (t: bigint) => records.find((r) => r.type === t)?.value;
  const hash = get(168n);
  const amount = get(170n);
  const nodeId = get(176n);
  const sig = get(240n);
  const payInfo = get(162n);
  if (!hash || hash.length !== 32 || !amount || !nodeId || nodeId.length !== 33 || !sig || sig.length !== 64 || !payInfo || payInfo.length < 10) {
    throw new Error("missing or malformed invoice fields");
  }
  const digest = tagged(enc.encode("lightninginvoicesignature"), merkleRoot(records));
  if (!schnorr.verify(sig, digest, nodeId.subarray(1))) throw new Error("bad invoice signature");
  return {
    invoice: text.replace(/\+\s*/g, "").toLowerCase(), network: networkOfChain(get(80n)), paymentHash: hash, amountMsat: readTu64(amount), nodeId,
    cltvExpiryDelta: (payInfo[8]! << 8) | payInfo[9]!,
  };
}
