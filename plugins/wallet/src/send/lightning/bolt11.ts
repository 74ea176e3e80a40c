/**
 * A BOLT 11 invoice reader: the string in, the invoice's fields out, or a
 * {@link LightningDecodeError} naming the rule the string breaks. Pure (no I/O, no clock: expiry is
 * reported, not checked).
 *
 * The reader rules of BOLT 11 it applies:
 * - bech32 (BIP 173 checksum, one case only) without the 90-character limit;
 * - human-readable part `ln` + a known currency prefix + an optional amount: a positive decimal
 *   integer without leading zeros and an optional multiplier `m`, `u`, `n`, `p`; with `p` the last
 *   digit must be 0 (no sub-millisatoshi amounts); the amount must fit a u64 of millisatoshis;
 * - data: a 35-bit timestamp, tagged fields (5-bit type, 10-bit length, data), and a 520-bit
 *   signature (64-byte r‖s and a recovery id 0–3);
 * - `p` (payment hash), `h` (description hash) and `s` (payment secret) must have data length 52,
 *   `n` (payee key) 53, else the invoice is refused (the current rule: older readers skipped such
 *   fields; see the decision on the "fields which must be ignored" example below);
 * - exactly one `p`, exactly one `s`, exactly one of `d` (UTF-8 description) or `h`;
 * - `9` (features): an unknown even (required) bit fails the invoice, unknown odd bits are
 *   ignored, and a known feature needs the features it depends on (`basic_mpp` needs
 *   `payment_secret`);
 * - `f` fallback with an unknown version (19–31) is skipped; unknown field types are skipped;
 * - the signature is over SHA-256(human-readable part as bytes ‖ data part without the signature,
 *   zero-padded to a byte boundary). With an `n` field it is verified against `n` and must be
 *   low-S; without, the payee key is recovered from it, accepting high-S and low-S.
 *
 * Two cases the BOLT 11 examples leave open are decided here:
 * - "Same, but including fields which must be ignored." is still listed as a valid example, but it
 *   carries `p`, `h`, `s` and `n` fields of the wrong length, which the current reader rule says
 *   must fail the invoice. This reader follows the rule and refuses it.
 * - "Public-key recovery with high-S signature": the payee key is what plain ECDSA recovery of
 *   the transmitted (r, s, recovery id) gives (as libsecp256k1's recovery does, which the
 *   reference daemon's Lightning library uses), `02d0139c…`; the signature as transmitted verifies
 *   under that key. s is not negated first (that would give the original signer `03e7156a…`).
 */
import { bech32 } from "@scure/base";
import { secp256k1 } from "@noble/curves/secp256k1.js";
import { sha256 } from "@noble/hashes/sha2.js";
import { LightningDecodeError } from "./decode-error.js";
import { BECH32_CHARSET, featureBitsFromWords, isCompressedPoint, unknownRequiredBits, utf8Strict, wordsToBigInt, wordsToBytes } from "./encoding.js";

/** The networks a BOLT 11 currency prefix names. */
export type Bolt11Network = "bitcoin" | "testnet" | "signet" | "regtest" | "simnet";

/** BOLT 11 currency prefixes (the BIP 173 ones; `tbs` is signet) and their networks. */
export const BOLT11_CURRENCY_PREFIXES: Readonly<Record<string, Bolt11Network>> = {
  bc: "bitcoin", tb: "testnet", tbs: "signet", bcrt: "regtest", sb: "simnet",
};

/** Expiry in seconds when the invoice has no `x` field. */
export const BOLT11_DEFAULT_EXPIRY_SECONDS = 3600n;
/** `min_final_cltv_expiry_delta` when the invoice has no `c` field. */
export const BOLT11_DEFAULT_MIN_FINAL_CLTV_EXPIRY_DELTA = 18n;

/**
 * Feature bits a BOLT 11 reader knows by default (either bit of each pair): `var_onion_optin`
 * (8/9), `payment_secret` (14/15), `basic_mpp` (16/17), `option_route_blinding` (24/25),
 * `option_attribution_data` (36/37), `option_payment_metadata` (48/49) — the BOLT 9 features
 * allowed in invoices.
 */
export const BOLT11_KNOWN_FEATURE_BITS: ReadonlySet<number> = new Set([8, 9, 14, 15, 16, 17, 24, 25, 36, 37, 48, 49]);

/** Known features and the features each needs (BOLT 9 dependencies), as required-bit numbers. */
const FEATURE_DEPENDENCIES: ReadonlyArray<readonly [feature: number, needs: number]> = [[16, 14]];

/** An on-chain fallback address (`f` field) with a known version. */
export interface Bolt11Fallback {
  /** 0–16: witness version; 17: P2PKH; 18: P2SH. */
  readonly version: number;
  /** The witness program, or the 20-byte hash for versions 17 and 18. */
  readonly program: Uint8Array;
}

/** One hop of a private route (`r` field). */
export interface Bolt11RouteHop {
  readonly pubkey: Uint8Array;
  /** The channel, as the 8-byte big-endian `short_channel_id` (block height 3 bytes, tx index 3, output 2). */
  readonly shortChannelId: bigint;
  readonly feeBaseMsat: number;
  readonly feeProportionalMillionths: number;
  readonly cltvExpiryDelta: number;
}

/** A tagged field this reader does not interpret (an unknown type, or `f` with an unknown version). */
export interface Bolt11UnknownField {
  /** The field type as its bech32 character. */
  readonly tag: string;
  /** The field data as 5-bit values. */
  readonly data: readonly number[];
}

/** A decoded BOLT 11 invoice. Byte fields are raw bytes; amounts and integers of the invoice are bigint (u64). */
export interface Bolt11Invoice {
  /** The invoice in lowercase. */
  readonly invoice: string;
  /** The human-readable part in lowercase, e.g. `lnbc2500u`. */
  readonly hrp: string;
  readonly currencyPrefix: string;
  readonly network: Bolt11Network;
  /** The amount in millisatoshis, `undefined` when the invoice leaves it to the payer. */
  readonly amountMsat: bigint | undefined;
  /** Seconds since 1970-01-01 UTC. */
  readonly timestamp: number;
  readonly paymentHash: Uint8Array;
  readonly paymentSecret: Uint8Array;
  /** The `d` field; exactly one of `description` and `descriptionHash` is set. */
  readonly description: string | undefined;
  /** The `h` field (SHA-256 of a description given elsewhere). */
  readonly descriptionHash: Uint8Array | undefined;
  /** The `x` field in seconds, `undefined` without one (then {@link BOLT11_DEFAULT_EXPIRY_SECONDS} applies). */
  readonly expirySeconds: bigint | undefined;
  /** The `c` field, `undefined` without one (then {@link BOLT11_DEFAULT_MIN_FINAL_CLTV_EXPIRY_DELTA} applies). */
  readonly minFinalCltvExpiryDelta: bigint | undefined;
  /** The `m` field (payment metadata). */
  readonly metadata: Uint8Array | undefined;
  /** The `n` field, when the invoice names its payee. */
  readonly payeeNodeIdField: Uint8Array | undefined;
  /** The payee's node key: the `n` field, or the key recovered from the signature. */
  readonly payeeNodeId: Uint8Array;
  readonly fallbacks: readonly Bolt11Fallback[];
  /** One entry per `r` field, in the invoice's order (most preferred first). */
  readonly routeHints: readonly (readonly Bolt11RouteHop[])[];
  /** The bit numbers set in the `9` field, ascending. */
  readonly featureBits: readonly number[];
  readonly unknownFields: readonly Bolt11UnknownField[];
  /** The compact signature r‖s (64 bytes). */
  readonly signature: Uint8Array;
  readonly recoveryFlag: number;
  /** Whether s is above half the group order (accepted only without an `n` field). */
  readonly signatureHighS: boolean;
  /** The bytes signed: human-readable part ‖ data part before the signature, zero-padded. */
  readonly signingData: Uint8Array;
  /** SHA-256 of {@link signingData}. */
  readonly signingHash: Uint8Array;
}

/** Options of {@link decodeBolt11}. */
export interface Bolt11DecodeOptions {
  /** Feature bits this reader understands; default {@link BOLT11_KNOWN_FEATURE_BITS}. */
  readonly knownFeatureBits?: ReadonlySet<number>;
}

const fail = (code: string, message: string): never => {
  throw new LightningDecodeError("bolt11", code, message);
};

/** Tagged field types, by bech32 character. */
const TAG = {
  p: 1, s: 16, d: 13, m: 27, n: 19, h: 23, x: 6, c: 24, f: 9, r: 3, features: 5,
} as const;

const TIMESTAMP_WORDS = 7;
const SIGNATURE_WORDS = 104;
const U64_MAX = (1n << 64n) - 1n;
/** Millisatoshis per unit of the amount, by multiplier (`""`: whole bitcoin); `p` is handled apart. */
const MSAT_PER_UNIT: Readonly<Record<string, bigint>> = { "": 100_000_000_000n, m: 100_000_000n, u: 100_000n, n: 100n };

/** Reads a BOLT 11 invoice (without a `lightning:` prefix). Throws {@link LightningDecodeError}. */
export function decodeBolt11(input: string, options: Bolt11DecodeOptions = {}): Bolt11Invoice {
  let decoded: { prefix: string; words: number[] };
  try {
    decoded = bech32.decode(input as `${string}1${string}`, false);
  } catch (e) {
    return fail("bech32", (e as Error).message);
  }
  const hrp = decoded.prefix.toLowerCase();
  const words = decoded.words;
  const { currencyPrefix, network, amountMsat } = parseHrp(hrp);

  if (words.length < TIMESTAMP_WORDS + SIGNATURE_WORDS) fail("too-short", "data part shorter than a timestamp and a signature");
  const timestamp = Number(wordsToBigInt(words.slice(0, TIMESTAMP_WORDS)));
  const fieldWords = words.slice(TIMESTAMP_WORDS, words.length - SIGNATURE_WORDS);
  const sigBytes = wordsToBytes(words.slice(words.length - SIGNATURE_WORDS));
  const signature = sigBytes.slice(0, 64);
  const recoveryFlag = sigBytes[64]!;

  // tagged fields
  const fields = parseFields(fieldWords);

  // signature: over SHA-256(hrp bytes ‖ timestamp and fields, zero-padded to whole bytes)
  const signingData = concat(new TextEncoder().encode(hrp), wordsToBytes(words.slice(0, words.length - SIGNATURE_WORDS), true));
  const signingHash = sha256(signingData);
  if (recoveryFlag > 3) fail("signature", `recovery id ${recoveryFlag} is not 0–3`);
  let sig: InstanceType<typeof secp256k1.Signature>;
  try {
    sig = secp256k1.Signature.fromBytes(signature, "compact");
  } catch (e) {
    return fail("signature", `malformed signature: ${(e as Error).message}`);
  }
  const signatureHighS = sig.hasHighS();
  let payeeNodeId: Uint8Array;
  const n = fields.n[0];
  if (n !== undefined) {
    // with `n`, the signature is checked against it and must be low-S
    if (signatureHighS) fail("signature-high-s", "high-S signature with an n field");
    if (!secp256k1.verify(signature, signingHash, n, { prehash: false, lowS: true, format: "compact" })) {
      fail("signature", "signature does not verify against the n field");
    }
    payeeNodeId = n;
  } else {
    // without `n`, the payee key is recovered (high-S accepted; see the decision above)
    try {
      payeeNodeId = sig.addRecoveryBit(recoveryFlag).recoverPublicKey(signingHash).toBytes(true);
    } catch (e) {
      return fail("signature-not-recoverable", `no public key recovers from the signature: ${(e as Error).message}`);
    }
  }

  // semantic rules
  if (fields.p.length !== 1) fail(fields.p.length === 0 ? "missing-payment-hash" : "duplicate-payment-hash", `${fields.p.length} p fields, exactly one required`);
  if (fields.s.length !== 1) fail(fields.s.length === 0 ? "missing-payment-secret" : "duplicate-payment-secret", `${fields.s.length} s fields, exactly one required`);
  if (fields.d.length + fields.h.length !== 1) {
    fail("description", `${fields.d.length} d and ${fields.h.length} h fields, exactly one d or one h required`);
  }
  const featureBits = fields.features ?? [];
  const unknownRequired = unknownRequiredBits(featureBits, options.knownFeatureBits ?? BOLT11_KNOWN_FEATURE_BITS);
  if (unknownRequired.length > 0) fail("unknown-required-feature", `unknown required feature bit(s) ${unknownRequired.join(", ")}`);
  const has = (bit: number) => featureBits.includes(bit) || featureBits.includes(bit + 1);
  for (const [feature, needs] of FEATURE_DEPENDENCIES) {
    if (has(feature) && !has(needs)) fail("feature-dependency", `feature bit ${feature}/${feature + 1} set without its dependency ${needs}/${needs + 1}`);
  }

  return {
    invoice: input.toLowerCase(),
    hrp, currencyPrefix, network, amountMsat, timestamp,
    paymentHash: fields.p[0]!,
    paymentSecret: fields.s[0]!,
    description: fields.d[0],
    descriptionHash: fields.h[0],
    expirySeconds: fields.x,
    minFinalCltvExpiryDelta: fields.c,
    metadata: fields.m,
    payeeNodeIdField: n,
    payeeNodeId,
    fallbacks: fields.fallbacks,
    routeHints: fields.routeHints,
    featureBits,
    unknownFields: fields.unknown,
    signature, recoveryFlag, signatureHighS, signingData, signingHash,
  };
}

function parseHrp(hrp: string): { currencyPrefix: string; network: Bolt11Network; amountMsat: bigint | undefined } {
  const m = /^ln([a-z]+)(.*)$/.exec(hrp);
  if (!m) return fail("prefix", `human-readable part ${JSON.stringify(hrp)} does not start with ln and a currency prefix`);
  const currencyPrefix = m[1]!;
  const network = BOLT11_CURRENCY_PREFIXES[currencyPrefix];
  if (network === undefined) return fail("prefix", `unknown currency prefix ${JSON.stringify(currencyPrefix)}`);
  const amount = m[2]!;
  if (amount === "") return { currencyPrefix, network, amountMsat: undefined };
  const a = /^([0-9]+)([a-z]?)$/.exec(amount);
  if (!a) return fail("amount", `amount ${JSON.stringify(amount)} is not digits and an optional multiplier`);
  const [, digits, multiplier] = a as unknown as [string, string, string];
  if (multiplier !== "" && !"munp".includes(multiplier)) fail("multiplier", `invalid multiplier ${JSON.stringify(multiplier)}`);
  if (digits.startsWith("0")) fail("amount", `amount ${digits} is zero or has a leading zero`);
  if (digits.length > 30) fail("amount", "amount out of range");
  let amountMsat: bigint;
  if (multiplier === "p") {
    if (!digits.endsWith("0")) fail("sub-msat", `pico-bitcoin amount ${digits} is not a whole number of millisatoshis`);
    amountMsat = BigInt(digits) / 10n;
  } else {
    amountMsat = BigInt(digits) * MSAT_PER_UNIT[multiplier]!;
  }
  if (amountMsat > U64_MAX) fail("amount", "amount does not fit a u64 of millisatoshis");
  return { currencyPrefix, network, amountMsat };
}

interface ParsedFields {
  p: Uint8Array[];
  s: Uint8Array[];
  d: string[];
  h: Uint8Array[];
  n: Uint8Array[];
  x: bigint | undefined;
  c: bigint | undefined;
  m: Uint8Array | undefined;
  features: number[] | undefined;
  fallbacks: Bolt11Fallback[];
  routeHints: Bolt11RouteHop[][];
  unknown: Bolt11UnknownField[];
}

/** Field data as bytes (zero padding of under 5 bits), or the field's typed error. */
function fieldBytes(tag: string, data: readonly number[]): Uint8Array {
  try {
    return wordsToBytes(data);
  } catch (e) {
    return fail("field", `${tag} field: ${(e as Error).message}`);
  }
}

function fieldUint64(tag: string, data: readonly number[]): bigint {
  const v = wordsToBigInt(data);
  if (v > U64_MAX) fail("field", `${tag} field does not fit a u64`);
  return v;
}

function parseFields(words: readonly number[]): ParsedFields {
  const out: ParsedFields = {
    p: [], s: [], d: [], h: [], n: [], x: undefined, c: undefined, m: undefined, features: undefined, fallbacks: [], routeHints: [], unknown: [],
  };
  const fixedLength = (tag: string, data: readonly number[], length: number): Uint8Array => {
    if (data.length !== length) fail("field-length", `${tag} field has data length ${data.length}, ${length} required`);
    return fieldBytes(tag, data);
  };
  let i = 0;
  while (i < words.length) {
    if (words.length - i < 3) fail("field", "tagged field header truncated");
    const type = words[i]!;
    const length = words[i + 1]! * 32 + words[i + 2]!;
    if (i + 3 + length > words.length) fail("field", `${BECH32_CHARSET[type]} field data truncated`);
    const data = words.slice(i + 3, i + 3 + length);
    i += 3 + length;
    switch (type) {
      case TAG.p: out.p.push(fixedLength("p", data, 52)); break;
      case TAG.s: out.s.push(fixedLength("s", data, 52)); break;
      case TAG.h: out.h.push(fixedLength("h", data, 52)); break;
      case TAG.n: {
        const key = fixedLength("n", data, 53);
        if (!isCompressedPoint(key)) fail("field", "n field is not a public key");
        out.n.push(key);
        break;
      }
      case TAG.d: {
        const bytes = fieldBytes("d", data);
        try {
          out.d.push(utf8Strict(bytes));
        } catch {
          fail("field", "d field is not UTF-8");
        }
        break;
      }
      // for the fields below a repeat is allowed; the first (most preferred) counts
      case TAG.x: out.x ??= fieldUint64("x", data); break;
      case TAG.c: out.c ??= fieldUint64("c", data); break;
      case TAG.m: out.m ??= fieldBytes("m", data); break;
      case TAG.features: out.features ??= featureBitsFromWords(data); break;
      case TAG.f: {
        if (data.length === 0) fail("field", "empty f field");
        const version = data[0]!;
        if (version > 18) {
          out.unknown.push({ tag: "f", data }); // unknown version: skipped
          break;
        }
        const program = fieldBytes("f", data.slice(1));
        const ok = version === 17 || version === 18 ? program.length === 20
          : version === 0 ? program.length === 20 || program.length === 32
            : program.length >= 2 && program.length <= 40;
        if (!ok) fail("field", `f field version ${version} with a ${program.length}-byte program`);
        out.fallbacks.push({ version, program });
        break;
      }
      case TAG.r: {
        const bytes = fieldBytes("r", data);
        if (bytes.length === 0 || bytes.length % 51 !== 0) fail("field", `r field of ${bytes.length} bytes is not a list of 51-byte hops`);
        const hops: Bolt11RouteHop[] = [];
        for (let o = 0; o < bytes.length; o += 51) {
          const hop = bytes.subarray(o, o + 51);
          const pubkey = hop.slice(0, 33);
          if (!isCompressedPoint(pubkey)) fail("field", "r field hop key is not a public key");
          const view = new DataView(hop.buffer, hop.byteOffset, hop.byteLength);
          hops.push({
            pubkey,
            shortChannelId: view.getBigUint64(33),
            feeBaseMsat: view.getUint32(41),
            feeProportionalMillionths: view.getUint32(45),
            cltvExpiryDelta: view.getUint16(49),
          });
        }
        out.routeHints.push(hops);
        break;
      }
      default:
        out.unknown.push({ tag: BECH32_CHARSET[type]!, data });
    }
  }
  return out;
}

function concat(a: Uint8Array, b: Uint8Array): Uint8Array {
  const out = new Uint8Array(a.length + b.length);
  out.set(a, 0);
  out.set(b, a.length);
  return out;
}
