/**
 * A BOLT 12 offer reader (`lno1…`): the string in, the offer's fields out, or a
 * {@link LightningDecodeError} naming the rule the string breaks. Pure (no I/O, no clock: the
 * absolute expiry is reported, not checked).
 *
 * The BOLT 12 string encoding: human-readable prefix, `1`, then bech32 characters with no checksum,
 * all lowercase or all uppercase. A `+` followed by optional whitespace between two characters of
 * the string joins its parts and is removed; a `+` anywhere else is an error. The 5-bit values are
 * packed into bytes, the left-over bits (fewer than 5) being zero padding.
 *
 * The bytes are a TLV stream (BOLT 1): BigSize types and lengths in their shortest form, each value
 * within the data, types strictly increasing. The offer reader rules of BOLT 12 applied:
 * - every type must be within 1–79 or 1000000000–1999999999; an unknown even type fails, unknown
 *   odd types are kept and ignored;
 * - the known fields must be well-formed: `offer_chains` a non-empty list of 32-byte chain hashes,
 *   `offer_currency`/`offer_description`/`offer_issuer` UTF-8, `offer_amount`,
 *   `offer_absolute_expiry` and `offer_quantity_max` minimal `tu64`s, `offer_paths` one or more
 *   blinded paths (each with at least one hop, valid public keys), `offer_issuer_id` a public key;
 * - `offer_features` with an unknown even bit fails (BOLT 9 defines no offer features yet, so every
 *   even bit is unknown by default);
 * - `offer_amount` must be greater than zero and needs `offer_description`; `offer_currency` needs
 *   `offer_amount`; `offer_issuer_id` or `offer_paths` must be present.
 */
import { LightningDecodeError } from "./decode-error.js";
import { bech32CharValue, featureBitsFromBytes, isCompressedPoint, unknownRequiredBits, utf8Strict, wordsToBytes } from "./encoding.js";
import { ByteReader, readTlvStream, readTu64, type TlvRecord } from "./tlv.js";

/** The introduction node of a blinded path: a node key, or a channel and which of its two ends (BOLT 1 `sciddir_or_pubkey`). */
export type BlindedPathIntroduction =
  | { readonly nodeId: Uint8Array }
  | { readonly shortChannelId: bigint; readonly direction: 0 | 1 };

/** One hop of a blinded path. */
export interface BlindedPathHop {
  readonly blindedNodeId: Uint8Array;
  readonly encryptedRecipientData: Uint8Array;
}

/** A blinded path (BOLT 4 `blinded_path`). */
export interface BlindedPath {
  readonly introduction: BlindedPathIntroduction;
  readonly firstPathKey: Uint8Array;
  readonly hops: readonly BlindedPathHop[];
}

/** A decoded BOLT 12 offer. */
export interface Bolt12Offer {
  /** The offer in lowercase with `+` joins removed. */
  readonly offer: string;
  /** The TLV stream. */
  readonly bytes: Uint8Array;
  /** Every record of the stream, unknown odd ones included. */
  readonly records: readonly TlvRecord[];
  /** `offer_chains` (32-byte chain hashes); `undefined` means bitcoin only. */
  readonly chains: readonly Uint8Array[] | undefined;
  readonly metadata: Uint8Array | undefined;
  /** `offer_currency`: an ISO 4217 code; without it `amount` is in millisatoshis. */
  readonly currency: string | undefined;
  /** `offer_amount` per item, in millisatoshis or the currency's minor unit. */
  readonly amount: bigint | undefined;
  readonly description: string | undefined;
  readonly features: Uint8Array | undefined;
  /** The bit numbers set in `offer_features`, ascending. */
  readonly featureBits: readonly number[];
  /** `offer_absolute_expiry`, seconds since 1970-01-01 UTC. */
  readonly absoluteExpiry: bigint | undefined;
  readonly paths: readonly BlindedPath[] | undefined;
  readonly issuer: string | undefined;
  /** `offer_quantity_max`; 0 means no limit. */
  readonly quantityMax: bigint | undefined;
  readonly issuerId: Uint8Array | undefined;
}

/** Options of {@link decodeBolt12Offer}. */
export interface Bolt12OfferDecodeOptions {
  /** `offer_features` bits this reader understands (either bit of a pair); default none. */
  readonly knownFeatureBits?: ReadonlySet<number>;
}

const fail = (code: string, message: string): never => {
  throw new LightningDecodeError("bolt12-offer", code, message);
};

const WHITESPACE = /[ \t\n\v\f\r]/;
const JOINABLE = /[0-9a-zA-Z]/;

/**
 * The bytes of a BOLT 12 string with human-readable prefix `hrp` (`lno` for offers; `lnr`, `lni`
 * for the other BOLT 12 forms). Throws an Error whose message names the problem.
 */
export function bolt12StringBytes(input: string, hrp: string): { normalized: string; bytes: Uint8Array } {
  // remove every `+` (and the whitespace after it) that stands between two characters of the string
  let joined = "";
  for (let i = 0; i < input.length; i++) {
    const c = input[i]!;
    if (c !== "+") {
      joined += c;
      continue;
    }
    let j = i + 1;
    while (j < input.length && WHITESPACE.test(input[j]!)) j++;
    const before = input[i - 1];
    const after = input[j];
    if (before === undefined || after === undefined || !JOINABLE.test(before) || !JOINABLE.test(after)) {
      throw new Error("a + must stand between two characters of the string");
    }
    i = j - 1;
  }
  const lower = joined.toLowerCase();
  if (joined !== lower && joined !== joined.toUpperCase()) throw new Error("mixed case");
  const sep = lower.lastIndexOf("1");
  if (sep < 0 || lower.slice(0, sep) !== hrp) throw new Error(`does not start with ${hrp}1`);
  const words: number[] = [];
  for (const c of lower.slice(sep + 1)) {
    const v = bech32CharValue(c);
    if (v === undefined) throw new Error(`character ${JSON.stringify(c)} is not bech32`);
    words.push(v);
  }
  return { normalized: lower, bytes: wordsToBytes(words) };
}

/** Offer TLV types. */
const T = {
  chains: 2n, metadata: 4n, currency: 6n, amount: 8n, description: 10n, features: 12n,
  absoluteExpiry: 14n, paths: 16n, issuer: 18n, quantityMax: 20n, issuerId: 22n,
} as const;
const KNOWN_TYPES = new Set<bigint>(Object.values(T));

const inOfferRange = (t: bigint) => (t >= 1n && t <= 79n) || (t >= 1_000_000_000n && t <= 1_999_999_999n);

/** Reads a BOLT 12 offer (without a `lightning:` prefix). Throws {@link LightningDecodeError}. */
export function decodeBolt12Offer(input: string, options: Bolt12OfferDecodeOptions = {}): Bolt12Offer {
  let normalized: string;
  let bytes: Uint8Array;
  try {
    ({ normalized, bytes } = bolt12StringBytes(input, "lno"));
  } catch (e) {
    return fail("encoding", (e as Error).message);
  }
  let records: TlvRecord[];
  try {
    records = readTlvStream(bytes);
  } catch (e) {
    return fail("tlv", (e as Error).message);
  }
  const byType = new Map<bigint, Uint8Array>();
  for (const { type, value } of records) {
    if (!inOfferRange(type)) fail("type-range", `TLV type ${type} is outside 1–79 and 1000000000–1999999999`);
    if (!KNOWN_TYPES.has(type) && type % 2n === 0n) fail("unknown-even-type", `unknown even TLV type ${type}`);
    byType.set(type, value);
  }
  const field = <V>(type: bigint, name: string, parse: (value: Uint8Array) => V): V | undefined => {
    const value = byType.get(type);
    if (value === undefined) return undefined;
    try {
      return parse(value);
    } catch (e) {
      return fail("field", `${name}: ${(e as Error).message}`);
    }
  };
  const utf8 = (v: Uint8Array) => utf8Strict(v);

  const chains = field(T.chains, "offer_chains", (v) => {
    if (v.length === 0 || v.length % 32 !== 0) throw new Error(`${v.length} bytes is not a non-empty list of 32-byte chain hashes`);
    const out: Uint8Array[] = [];
    for (let o = 0; o < v.length; o += 32) out.push(v.slice(o, o + 32));
    return out;
  });
  const metadata = field(T.metadata, "offer_metadata", (v) => v.slice());
  const currency = field(T.currency, "offer_currency", utf8);
  const amount = field(T.amount, "offer_amount", (v) => readTu64(v, "offer_amount"));
  const description = field(T.description, "offer_description", utf8);
  const features = field(T.features, "offer_features", (v) => v.slice());
  const absoluteExpiry = field(T.absoluteExpiry, "offer_absolute_expiry", (v) => readTu64(v, "offer_absolute_expiry"));
  const paths = field(T.paths, "offer_paths", readBlindedPaths);
  const issuer = field(T.issuer, "offer_issuer", utf8);
  const quantityMax = field(T.quantityMax, "offer_quantity_max", (v) => readTu64(v, "offer_quantity_max"));
  const issuerId = field(T.issuerId, "offer_issuer_id", (v) => {
    if (!isCompressedPoint(v)) throw new Error("not a public key");
    return v.slice();
  });

  const featureBits = features ? featureBitsFromBytes(features) : [];
  const unknownRequired = unknownRequiredBits(featureBits, options.knownFeatureBits ?? new Set());
  if (unknownRequired.length > 0) fail("unknown-required-feature", `unknown required feature bit(s) ${unknownRequired.join(", ")}`);
  if (amount !== undefined && amount === 0n) fail("zero-amount", "offer_amount is zero");
  if (amount !== undefined && description === undefined) fail("missing-description", "offer_amount without offer_description");
  if (currency !== undefined && amount === undefined) fail("currency-without-amount", "offer_currency without offer_amount");
  if (issuerId === undefined && paths === undefined) fail("missing-issuer-id", "neither offer_issuer_id nor offer_paths");

  return {
    offer: normalized, bytes, records,
    chains, metadata, currency, amount, description, features, featureBits, absoluteExpiry, paths, issuer, quantityMax, issuerId,
  };
}

/** A list of one or more BOLT 4 blinded paths filling `value`. Throws `Error`. */
export function readBlindedPaths(value: Uint8Array): BlindedPath[] {
  const r = new ByteReader(value);
  const paths: BlindedPath[] = [];
  while (r.remaining > 0) paths.push(readBlindedPath(r));
  if (paths.length === 0) throw new Error("no blinded path");
  return paths;
}

/** One BOLT 4 `blinded_path` from `r`. Throws `Error`. */
export function readBlindedPath(r: ByteReader): BlindedPath {
  const point = (what: string) => {
    const p = r.read(33, what).slice();
    if (!isCompressedPoint(p)) throw new Error(`${what} is not a public key`);
    return p;
  };
  const kind = r.peek("first_node_id");
  let introduction: BlindedPathIntroduction;
  if (kind === 0 || kind === 1) {
    r.u8("first_node_id");
    introduction = { shortChannelId: r.u64("first_node_id"), direction: kind };
  } else {
    introduction = { nodeId: point("first_node_id") };
  }
  const firstPathKey = point("first_path_key");
  const numHops = r.u8("num_hops");
  if (numHops === 0) throw new Error("blinded path with no hops");
  const hops: BlindedPathHop[] = [];
  for (let h = 0; h < numHops; h++) {
    const blindedNodeId = point("blinded_node_id");
    const enclen = r.u16("enclen");
    hops.push({ blindedNodeId, encryptedRecipientData: r.read(enclen, "encrypted_recipient_data").slice() });
  }
  return { introduction, firstPathKey, hops };
}
