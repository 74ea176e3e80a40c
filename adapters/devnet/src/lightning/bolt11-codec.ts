/**
 * A small BOLT 11 codec for the devnet: the simulated Lightning network mints real, signed
 * invoices with it, and the reference Ark server reads the invoices wallets hand it (payment
 * hash, amount, payee, expiry) with it. Encoding always writes `p`, `s`, `d` or `h`, `x`, `c` and
 * the features `var_onion_optin` and `payment_secret` (both required); the amount is written in
 * the largest unit that divides it. Decoding verifies the bech32 checksum and recovers the payee
 * key from the signature (or checks it against an `n` field).
 */
import { bech32 } from "@scure/base";
import { secp256k1 } from "@noble/curves/secp256k1.js";
import { sha256 } from "@noble/hashes/sha2.js";

/** BOLT 11 currency prefix of each bitcoin network the devnet serves. */
export const BOLT11_PREFIX = { bitcoin: "bc", testnet: "tb", signet: "tbs", regtest: "bcrt" } as const;
export type Bolt11Network = keyof typeof BOLT11_PREFIX;

/** What an invoice says. */
export interface Bolt11Fields {
  readonly network: Bolt11Network;
  /** Millisatoshis; `undefined` for an invoice that leaves the amount to the payer. */
  readonly amountMsat: bigint | undefined;
  /** Unix seconds. */
  readonly timestamp: number;
  readonly paymentHash: Uint8Array;
  readonly paymentSecret: Uint8Array;
  readonly description?: string;
  readonly descriptionHash?: Uint8Array;
  readonly expirySecs: number;
  readonly minFinalCltvExpiryDelta: number;
}

/** A decoded invoice: its fields and the payee node key (33 bytes). */
export interface Bolt11Decoded extends Bolt11Fields {
  readonly invoice: string;
  readonly payee: Uint8Array;
}

/** A string that is not a valid BOLT 11 invoice. */
export class Bolt11Error extends Error {}

const MSAT_PER_UNIT: ReadonlyArray<readonly [string, bigint]> = [["m", 100_000_000n], ["u", 100_000n], ["n", 100n]];
const TAG = { p: 1, s: 16, d: 13, h: 23, n: 19, x: 6, c: 24, features: 5 } as const;

function amountPart(msat: bigint | undefined): string {
  if (msat === undefined) return "";
  if (msat <= 0n) throw new Bolt11Error("invoice amount must be positive");
  for (const [unit, per] of MSAT_PER_UNIT) if (msat % per === 0n) return `${msat / per}${unit}`;
  return `${msat * 10n}p`;
}

function uintWords(v: number | bigint): number[] {
  let n = BigInt(v);
  const words: number[] = [];
  do {
    words.unshift(Number(n & 31n));
    n >>= 5n;
  } while (n > 0n);
  return words;
}

function field(tag: number, words: number[]): number[] {
  if (words.length >= 1024) throw new Bolt11Error("tagged field too long");
  return [tag, words.length >> 5, words.length & 31, ...words];
}

/** Feature words with bits 8 (`var_onion_optin`) and 14 (`payment_secret`) set. */
function featureWords(): number[] {
  const bits = [8, 14];
  const len = Math.floor(Math.max(...bits) / 5) + 1;
  const words = new Array<number>(len).fill(0);
  for (const b of bits) words[len - 1 - Math.floor(b / 5)]! |= 1 << (b % 5);
  return words;
}

function signingHash(hrp: string, dataWords: readonly number[]): Uint8Array {
  const bits = dataWords.length * 5;
  const bytes = new Uint8Array(Math.ceil(bits / 8));
  let acc = 0;
  let n = 0;
  let o = 0;
  for (const w of dataWords) {
    acc = (acc << 5) | w;
    n += 5;
    while (n >= 8) {
      bytes[o++] = (acc >> (n - 8)) & 0xff;
      n -= 8;
    }
  }
  if (n > 0) bytes[o] = (acc << (8 - n)) & 0xff;
  const hrpBytes = new TextEncoder().encode(hrp);
  const msg = new Uint8Array(hrpBytes.length + bytes.length);
  msg.set(hrpBytes);
  msg.set(bytes, hrpBytes.length);
  return sha256(msg);
}

/** Encodes and signs an invoice with the payee's node secret key. */
export function encodeBolt11(f: Bolt11Fields, payeeSecretKey: Uint8Array): string {
  if (f.paymentHash.length !== 32 || f.paymentSecret.length !== 32) throw new Bolt11Error("payment hash and secret must be 32 bytes");
  if ((f.description === undefined) === (f.descriptionHash === undefined)) throw new Bolt11Error("exactly one of description and description hash");
  const hrp = `ln${BOLT11_PREFIX[f.network]}${amountPart(f.amountMsat)}`;
  const ts = uintWords(f.timestamp);
  const words: number[] = [...new Array<number>(7 - ts.length).fill(0), ...ts];
  words.push(...field(TAG.p, bech32.toWords(f.paymentHash)));
  words.push(...field(TAG.s, bech32.toWords(f.paymentSecret)));
  if (f.description !== undefined) words.push(...field(TAG.d, bech32.toWords(new TextEncoder().encode(f.description))));
  else words.push(...field(TAG.h, bech32.toWords(f.descriptionHash!)));
  words.push(...field(TAG.x, uintWords(f.expirySecs)));
  words.push(...field(TAG.c, uintWords(f.minFinalCltvExpiryDelta)));
  words.push(...field(TAG.features, featureWords()));
  const recovered = secp256k1.sign(signingHash(hrp, words), payeeSecretKey, { prehash: false, format: "recovered" });
  const sig = new Uint8Array(65);
  sig.set(recovered.subarray(1), 0);
  sig[64] = recovered[0]!;
  return bech32.encode(hrp, [...words, ...bech32.toWords(sig)], false);
}

function wordsToUint(words: readonly number[]): bigint {
  let n = 0n;
  for (const w of words) n = (n << 5n) | BigInt(w);
  return n;
}

function wordsToBytes(words: readonly number[]): Uint8Array {
  const bytes = bech32.fromWordsUnsafe(words as number[]);
  if (!bytes) throw new Bolt11Error("tagged field with non-zero padding");
  return bytes;
}

function parseAmount(rest: string): bigint | undefined {
  if (rest === "") return undefined;
  const m = /^([1-9][0-9]*)([munp]?)$/.exec(rest);
  if (!m) throw new Bolt11Error(`invalid amount ${JSON.stringify(rest)}`);
  const digits = BigInt(m[1]!);
  const unit = m[2]!;
  if (unit === "") return digits * 100_000_000_000n;
  if (unit === "p") {
    if (digits % 10n !== 0n) throw new Bolt11Error("sub-millisatoshi amount");
    return digits / 10n;
  }
  return digits * MSAT_PER_UNIT.find(([u]) => u === unit)![1];
}

/** Reads an invoice (without a `lightning:` prefix). Throws {@link Bolt11Error}. */
export function decodeBolt11(invoice: string): Bolt11Decoded {
  let decoded: { prefix: string; words: number[] };
  try {
    decoded = bech32.decode(invoice.toLowerCase() as `${string}1${string}`, false);
  } catch (e) {
    throw new Bolt11Error(`invalid bech32: ${(e as Error).message}`);
  }
  const hrp = decoded.prefix;
  const m = /^ln(bcrt|bc|tbs|tb)(.*)$/.exec(hrp);
  if (!m) throw new Bolt11Error(`unknown invoice prefix ${hrp}`);
  const network = (Object.entries(BOLT11_PREFIX).find(([, p]) => p === m[1]) as [Bolt11Network, string])[0];
  const amountMsat = parseAmount(m[2]!);
  const words = decoded.words;
  if (words.length < 7 + 104) throw new Bolt11Error("invoice too short");
  const data = words.slice(0, words.length - 104);
  const sigBytes = wordsToBytes(words.slice(words.length - 104));
  const timestamp = Number(wordsToUint(data.slice(0, 7)));
  const fields = new Map<number, number[]>();
  for (let i = 7; i < data.length; ) {
    const tag = data[i]!;
    const len = (data[i + 1]! << 5) | data[i + 2]!;
    const value = data.slice(i + 3, i + 3 + len);
    if (value.length !== len) throw new Bolt11Error("truncated tagged field");
    if (!fields.has(tag)) fields.set(tag, value);
    i += 3 + len;
  }
  const bytes32 = (tag: number, name: string): Uint8Array => {
    const w = fields.get(tag);
    if (!w || w.length !== 52) throw new Bolt11Error(`missing or malformed ${name}`);
    return wordsToBytes(w).slice(0, 32);
  };
  const paymentHash = bytes32(TAG.p, "payment hash");
  const paymentSecret = bytes32(TAG.s, "payment secret");
  const d = fields.get(TAG.d);
  const h = fields.get(TAG.h);
  const description = d ? new TextDecoder().decode(wordsToBytes(d)) : undefined;
  const descriptionHash = h ? bytes32(TAG.h, "description hash") : undefined;
  const hash = signingHash(hrp, data);
  const sig = secp256k1.Signature.fromBytes(sigBytes.slice(0, 64), "compact");
  let payee: Uint8Array;
  const n = fields.get(TAG.n);
  if (n) {
    payee = wordsToBytes(n).slice(0, 33);
    if (!secp256k1.verify(sigBytes.slice(0, 64), hash, payee, { prehash: false, format: "compact" })) throw new Bolt11Error("invoice signature does not verify");
  } else {
    try {
      payee = sig.addRecoveryBit(sigBytes[64]!).recoverPublicKey(hash).toBytes(true);
    } catch {
      throw new Bolt11Error("invoice signature does not recover a key");
    }
  }
  const x = fields.get(TAG.x);
  const c = fields.get(TAG.c);
  return {
    invoice: invoice.toLowerCase(), network, amountMsat, timestamp, paymentHash, paymentSecret,
    ...(description !== undefined ? { description } : {}), ...(descriptionHash ? { descriptionHash } : {}),
    expirySecs: x ? Number(wordsToUint(x)) : 3600, minFinalCltvExpiryDelta: c ? Number(wordsToUint(c)) : 18, payee,
  };
}
