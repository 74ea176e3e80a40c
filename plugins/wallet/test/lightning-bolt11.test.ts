/**
 * The BOLT 11 reader against the examples of BOLT 11 (test/vectors/bolts/bolt11-vectors.json) and
 * against invoices built and signed here for the reader rules the examples do not cover.
 */
import { expect } from "chai";
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { bech32 } from "@scure/base";
import { secp256k1 } from "@noble/curves/secp256k1.js";
import { sha256 } from "@noble/hashes/sha2.js";
import { bytesToHex, hexToBytes } from "@noble/hashes/utils.js";
import { address as btcAddress } from "bitcoinjs-lib";
import { BOLT11_KNOWN_FEATURE_BITS, decodeBolt11, LightningDecodeError, wordsToBytes, type Bolt11Invoice } from "../src/index.js";
import { codeOf } from "./decode-outcome.js";

const FILE = join(dirname(fileURLToPath(import.meta.url)), "../../../../test/vectors/bolts/bolt11-vectors.json");

interface ValidVector {
  title: string; invoice: string; network: string; currency_prefix: string; hrp: string; amount: string | null; amount_msat: number | null;
  timestamp: number; payment_hash: string; payment_secret: string; description: string | null; description_hash: string | null;
  expiry: number | null; min_final_cltv_expiry_delta: number | null; metadata: string | null; payee_node_id_field: string | null;
  fallbacks: { version: number; program_or_hash: string; address: string }[];
  route_hints: { pubkey: string; short_channel_id: string; fee_base_msat: number; fee_proportional_millionths: number; cltv_expiry_delta: number }[][];
  feature_bits: number[]; ignored_fields: { type: string; data_length: number }[]; payee_node_id: string; signature: string; recovery_flag: number;
  signature_high_s: boolean; signing_data_hex: string; signing_hash: string; passes_current_reader_rules: boolean;
  payee_node_id_if_s_negated_first?: string;
}
interface InvalidVector { title: string; invoice: string; reason: string }
const VECTORS = JSON.parse(readFileSync(FILE, "utf8")) as {
  _source: { signing_priv_key: string; signing_pubkey: string };
  valid: ValidVector[];
  invalid: InvalidVector[];
};

const hex = (b: Uint8Array | undefined) => (b === undefined ? null : bytesToHex(b));

/** The address a fallback stands for (BIP 173/350 for witness versions, base58check for 17/18). */
function fallbackAddress(version: number, program: Uint8Array, currencyPrefix: string): string {
  const testnet = currencyPrefix !== "bc";
  if (version === 17) return btcAddress.toBase58Check(program, testnet ? 0x6f : 0x00);
  if (version === 18) return btcAddress.toBase58Check(program, testnet ? 0xc4 : 0x05);
  return btcAddress.toBech32(program, version, currencyPrefix);
}

const scid = (v: bigint) => `${v >> 40n}x${(v >> 16n) & 0xffffffn}x${v & 0xffffn}`;

/**
 * The two examples BOLT 11 leaves open, decided here (see the comment at the top of bolt11.ts):
 * - "Same, but including fields which must be ignored." has p/h/s/n fields of the wrong length;
 *   the current reader rule says to fail such an invoice, so it is refused (code field-length);
 * - "Public-key recovery with high-S signature": the payee key is plain recovery of the transmitted
 *   signature and recovery flag, the file's payee_node_id (02d0139c…), not the key one gets after
 *   negating s (03e7156a…).
 */
const REFUSED_BY_CURRENT_RULES = "Same, but including fields which must be ignored.";

describe("BOLT 11 reader: the examples of BOLT 11 (bolt11-vectors.json)", () => {
  it("has the 16 valid and 10 invalid examples", () => {
    expect(VECTORS.valid.length).to.equal(16);
    expect(VECTORS.invalid.length).to.equal(10);
  });

  for (const v of VECTORS.valid) {
    if (v.title === REFUSED_BY_CURRENT_RULES) {
      it(`refuses "${v.title}" (its p/h/s/n fields of the wrong length fail the current reader rule)`, () => {
        expect(v.passes_current_reader_rules).to.equal(false);
        expect(codeOf(() => decodeBolt11(v.invoice))).to.equal("field-length");
      });
      continue;
    }
    it(`decodes "${v.title}"`, () => {
      expect(v.passes_current_reader_rules).to.equal(true);
      const d: Bolt11Invoice = decodeBolt11(v.invoice);
      expect(d.invoice).to.equal(v.invoice.toLowerCase());
      expect(d.network).to.equal(v.network === "bitcoin mainnet" ? "bitcoin" : "testnet");
      expect(d.currencyPrefix).to.equal(v.currency_prefix);
      expect(d.hrp).to.equal(v.hrp);
      expect(d.amountMsat).to.equal(v.amount_msat === null ? undefined : BigInt(v.amount_msat));
      expect(d.timestamp).to.equal(v.timestamp);
      expect(hex(d.paymentHash)).to.equal(v.payment_hash);
      expect(hex(d.paymentSecret)).to.equal(v.payment_secret);
      expect(d.description ?? null).to.equal(v.description);
      expect(hex(d.descriptionHash)).to.equal(v.description_hash);
      expect(d.expirySeconds).to.equal(v.expiry === null ? undefined : BigInt(v.expiry));
      expect(d.minFinalCltvExpiryDelta).to.equal(v.min_final_cltv_expiry_delta === null ? undefined : BigInt(v.min_final_cltv_expiry_delta));
      expect(hex(d.metadata)).to.equal(v.metadata);
      expect(hex(d.payeeNodeIdField)).to.equal(v.payee_node_id_field);
      expect(d.fallbacks.map((f) => ({
        version: f.version, program_or_hash: bytesToHex(f.program), address: fallbackAddress(f.version, f.program, d.currencyPrefix),
      }))).to.deep.equal(v.fallbacks);
      expect(d.routeHints.map((hops) => hops.map((h) => ({
        pubkey: bytesToHex(h.pubkey), short_channel_id: scid(h.shortChannelId), fee_base_msat: h.feeBaseMsat,
        fee_proportional_millionths: h.feeProportionalMillionths, cltv_expiry_delta: h.cltvExpiryDelta,
      })))).to.deep.equal(v.route_hints);
      expect(d.featureBits).to.deep.equal(v.feature_bits);
      expect(d.unknownFields.map((f) => ({ type: f.tag, data_length: f.data.length }))).to.deep.equal(v.ignored_fields);
      expect(hex(d.payeeNodeId)).to.equal(v.payee_node_id);
      expect(hex(d.signature)).to.equal(v.signature);
      expect(d.recoveryFlag).to.equal(v.recovery_flag);
      expect(d.signatureHighS).to.equal(v.signature_high_s);
      expect(hex(d.signingData)).to.equal(v.signing_data_hex);
      expect(hex(d.signingHash)).to.equal(v.signing_hash);
      if (v.signature_high_s) {
        // the decision: plain recovery of the transmitted signature, not the key after negating s
        expect(hex(d.payeeNodeId)).to.equal("02d0139ce7427d6dfffd26a326c18be754ef1e64672b42694ba5b23ef6e6e7803d");
        expect(hex(d.payeeNodeId)).to.not.equal(v.payee_node_id_if_s_negated_first);
      }
    });
  }

  /** The rule each invalid example breaks, as the reader's error code. */
  const EXPECTED_CODE: Record<string, string> = {
    "Same, but adding invalid unknown feature 100": "unknown-required-feature",
    "Bech32 checksum is invalid.": "bech32",
    "Malformed bech32 string (no 1)": "bech32",
    "Malformed bech32 string (mixed case)": "bech32",
    "Signature is not recoverable.": "signature-not-recoverable",
    "String is too short.": "too-short",
    "Invalid multiplier": "multiplier",
    "Invalid sub-millisatoshi precision.": "sub-msat",
    "Missing required `s` field.": "missing-payment-secret",
    "Non canonical signature (high-S) with 'n' field defined": "signature-high-s",
  };
  for (const v of VECTORS.invalid) {
    it(`refuses "${v.title}"`, () => {
      expect(EXPECTED_CODE, v.title).to.have.property(v.title);
      expect(codeOf(() => decodeBolt11(v.invoice))).to.equal(EXPECTED_CODE[v.title]);
    });
  }
});

// ---- invoices built here, signed with the examples' key --------------------------------------

const PRIV = hexToBytes(VECTORS._source.signing_priv_key);
const PUB = VECTORS._source.signing_pubkey;
const CHARSET = "qpzry9x8gf2tvdw0s3jn54khce6mua7l";
const HASH = new Uint8Array(32).fill(1);
const SECRET = new Uint8Array(32).fill(0x11);

/** A big-endian integer as the fewest 5-bit groups (none for 0). */
function intWords(v: bigint): number[] {
  const out: number[] = [];
  for (; v > 0n; v >>= 5n) out.unshift(Number(v & 31n));
  return out;
}
const field = (tag: string, words: number[]) => [CHARSET.indexOf(tag), words.length >> 5, words.length & 31, ...words];
const bytesField = (tag: string, bytes: Uint8Array) => field(tag, bech32.toWords(bytes));
const features = (...bits: number[]) => {
  let v = 0n;
  for (const b of bits) v |= 1n << BigInt(b);
  return field("9", intWords(v));
};
const BASE_FIELDS = [bytesField("p", HASH), bytesField("s", SECRET), bytesField("d", new TextEncoder().encode("test")), features(8, 14)];

/** Signs `fields` under `hrp` with the examples' key; `tamper` may change the 65 signature bytes. */
function invoice(hrp: string, fields: number[][] = BASE_FIELDS, opts: { key?: Uint8Array; tamper?: (sig: Uint8Array) => void } = {}): string {
  const timestamp = Array.from({ length: 7 }, (_, i) => Number((1_700_000_000n >> BigInt(5 * (6 - i))) & 31n));
  const data = [...timestamp, ...fields.flat()];
  const hash = sha256(new Uint8Array([...new TextEncoder().encode(hrp), ...wordsToBytes(data, true)]));
  const rec = secp256k1.Signature.fromBytes(secp256k1.sign(hash, opts.key ?? PRIV, { prehash: false, format: "recovered" }), "recovered");
  const sig = new Uint8Array([...rec.toBytes("compact"), rec.recovery!]);
  opts.tamper?.(sig);
  return bech32.encode(hrp, [...data, ...bech32.toWords(sig)], false);
}

describe("BOLT 11 reader: rules checked on invoices built here", () => {
  it("decodes a minimal invoice and recovers the signer", () => {
    const d = decodeBolt11(invoice("lnbcrt"));
    expect([d.network, d.amountMsat, d.timestamp, d.description, hex(d.payeeNodeId)]).to.deep.equal(["regtest", undefined, 1_700_000_000, "test", PUB]);
    expect(decodeBolt11(invoice("lntbs")).network).to.equal("signet");
  });

  it("reads amounts with each multiplier, and refuses invalid ones", () => {
    const amount = (a: string) => {
      try {
        return decodeBolt11(invoice(`lnbc${a}`)).amountMsat;
      } catch (e) {
        return (e as LightningDecodeError).code;
      }
    };
    expect(amount("1")).to.equal(100_000_000_000n);
    expect(amount("2m")).to.equal(200_000_000n);
    expect(amount("3u")).to.equal(300_000n);
    expect(amount("4n")).to.equal(400n);
    expect(amount("10p")).to.equal(1n);
    expect(amount("11p")).to.equal("sub-msat");
    expect(amount("025u")).to.equal("amount"); // leading zero
    expect(amount("0")).to.equal("amount"); // zero is not a positive amount
    expect(amount("25x")).to.equal("multiplier");
    expect(amount("2u5")).to.equal("amount");
    expect(amount("184467440737095517")).to.equal("amount"); // beyond a u64 of millisatoshis
    expect(codeOf(() => decodeBolt11(invoice("lnxy")))).to.equal("prefix");
    expect(codeOf(() => decodeBolt11(invoice("bc")))).to.equal("prefix");
  });

  it("has no 90-character limit", () => {
    const long = invoice("lnbc", [bytesField("p", HASH), bytesField("s", SECRET), bytesField("d", new TextEncoder().encode("x".repeat(600)))]);
    expect(long.length).to.be.above(1_000);
    expect(decodeBolt11(long).description).to.equal("x".repeat(600));
  });

  it("refuses p, s, h, n fields of the wrong length, and non-zero padding bits", () => {
    const without = (tag: string) => BASE_FIELDS.filter((f) => f[0] !== CHARSET.indexOf(tag));
    expect(codeOf(() => decodeBolt11(invoice("lnbc", [...without("p"), field("p", bech32.toWords(HASH).slice(0, 51))])))).to.equal("field-length");
    expect(codeOf(() => decodeBolt11(invoice("lnbc", [...without("s"), field("s", [...bech32.toWords(SECRET), 0])])))).to.equal("field-length");
    expect(codeOf(() => decodeBolt11(invoice("lnbc", [...without("d"), field("h", bech32.toWords(HASH).slice(0, 51))])))).to.equal("field-length");
    expect(codeOf(() => decodeBolt11(invoice("lnbc", [...BASE_FIELDS, field("n", bech32.toWords(hexToBytes(PUB)).slice(0, 52))])))).to.equal("field-length");
    const padded = bech32.toWords(HASH);
    padded[51] = 1; // the 4 padding bits after 256 bits of hash must be zero
    expect(codeOf(() => decodeBolt11(invoice("lnbc", [...without("p"), field("p", padded)])))).to.equal("field");
  });

  it("requires exactly one p, exactly one s, and exactly one of d or h", () => {
    const [p, s, d, f9] = BASE_FIELDS as [number[], number[], number[], number[]];
    expect(codeOf(() => decodeBolt11(invoice("lnbc", [s, d, f9])))).to.equal("missing-payment-hash");
    expect(codeOf(() => decodeBolt11(invoice("lnbc", [p, p, s, d, f9])))).to.equal("duplicate-payment-hash");
    expect(codeOf(() => decodeBolt11(invoice("lnbc", [p, d, f9])))).to.equal("missing-payment-secret");
    expect(codeOf(() => decodeBolt11(invoice("lnbc", [p, s, s, d, f9])))).to.equal("duplicate-payment-secret");
    expect(codeOf(() => decodeBolt11(invoice("lnbc", [p, s, f9])))).to.equal("description");
    expect(codeOf(() => decodeBolt11(invoice("lnbc", [p, s, d, bytesField("h", HASH), f9])))).to.equal("description");
    expect(hex(decodeBolt11(invoice("lnbc", [p, s, bytesField("h", HASH)])).descriptionHash)).to.equal(bytesToHex(HASH));
    expect(codeOf(() => decodeBolt11(invoice("lnbc", [p, s, bytesField("d", new Uint8Array([0xc3, 0x28]))])))).to.equal("field");
  });

  it("refuses unknown even feature bits and missing dependencies, ignores unknown odd bits", () => {
    const [p, s, d] = BASE_FIELDS as [number[], number[], number[]];
    expect(decodeBolt11(invoice("lnbc", [p, s, d, features(8, 14, 101)])).featureBits).to.deep.equal([8, 14, 101]);
    expect(codeOf(() => decodeBolt11(invoice("lnbc", [p, s, d, features(8, 14, 100)])))).to.equal("unknown-required-feature");
    expect(codeOf(() => decodeBolt11(invoice("lnbc", [p, s, d, features(8, 17)])))).to.equal("feature-dependency"); // basic_mpp needs payment_secret
    expect(decodeBolt11(invoice("lnbc", [p, s, d, features(8, 14, 17)])).featureBits).to.deep.equal([8, 14, 17]);
    expect(decodeBolt11(invoice("lnbc", [p, s, d, features(8, 14, 100)]), { knownFeatureBits: new Set([...BOLT11_KNOWN_FEATURE_BITS, 100]) }).featureBits).to.include(100);
  });

  it("checks the signature against an n field (low-S only), and recovers the key without one", () => {
    const n = bytesField("n", hexToBytes(PUB));
    const d = decodeBolt11(invoice("lnbc", [...BASE_FIELDS, n]));
    expect([hex(d.payeeNodeIdField), hex(d.payeeNodeId)]).to.deep.equal([PUB, PUB]);
    const other = secp256k1.utils.randomSecretKey();
    expect(codeOf(() => decodeBolt11(invoice("lnbc", [...BASE_FIELDS, n], { key: other })))).to.equal("signature");
    expect(hex(decodeBolt11(invoice("lnbc", BASE_FIELDS, { key: other })).payeeNodeId)).to.equal(bytesToHex(secp256k1.getPublicKey(other, true)));
    expect(codeOf(() => decodeBolt11(invoice("lnbc", BASE_FIELDS, { tamper: (sig) => { sig[64] = 4; } })))).to.equal("signature");
    // a changed byte of r: recovery gives some other key, which the payer would then pay; with n it fails
    expect(codeOf(() => decodeBolt11(invoice("lnbc", [...BASE_FIELDS, n], { tamper: (sig) => { sig[5] = sig[5]! ^ 1; } })))).to.equal("signature");
  });

  it("reads x, c, m, f and r fields, skips unknown fields and fallbacks of unknown versions", () => {
    const hop = new Uint8Array(51);
    hop.set(hexToBytes(PUB), 0);
    new DataView(hop.buffer).setBigUint64(33, (700_000n << 40n) | (12n << 16n) | 3n);
    new DataView(hop.buffer).setUint32(41, 1000);
    new DataView(hop.buffer).setUint32(45, 250);
    new DataView(hop.buffer).setUint16(49, 144);
    const d = decodeBolt11(invoice("lnbc", [
      ...BASE_FIELDS, field("x", intWords(86_400n)), field("c", intWords(144n)), bytesField("m", new Uint8Array([1, 2])),
      field("f", [0, ...bech32.toWords(new Uint8Array(20).fill(7))]), field("f", [19, 1, 2, 3]), bytesField("r", hop), field("t", [1, 2]),
    ]));
    expect([d.expirySeconds, d.minFinalCltvExpiryDelta, hex(d.metadata)]).to.deep.equal([86_400n, 144n, "0102"]);
    expect(d.fallbacks.map((f) => [f.version, hex(f.program)])).to.deep.equal([[0, "07".repeat(20)]]);
    expect(d.routeHints).to.have.length(1);
    expect([scid(d.routeHints[0]![0]!.shortChannelId), d.routeHints[0]![0]!.feeBaseMsat, d.routeHints[0]![0]!.cltvExpiryDelta]).to.deep.equal(["700000x12x3", 1000, 144]);
    expect(d.unknownFields.map((f) => f.tag)).to.deep.equal(["f", "t"]);
  });

  it("refuses malformed x, f and r fields", () => {
    expect(codeOf(() => decodeBolt11(invoice("lnbc", [...BASE_FIELDS, field("x", new Array<number>(14).fill(31))])))).to.equal("field");
    expect(codeOf(() => decodeBolt11(invoice("lnbc", [...BASE_FIELDS, field("f", [0, ...bech32.toWords(new Uint8Array(21))])])))).to.equal("field");
    expect(codeOf(() => decodeBolt11(invoice("lnbc", [...BASE_FIELDS, bytesField("r", new Uint8Array(50))])))).to.equal("field");
  });

  it("refuses a corrupted or truncated invoice", () => {
    const good = invoice("lnbc2500u");
    expect(codeOf(() => decodeBolt11(good))).to.equal("decoded");
    const flipped = good.slice(0, 20) + (good[20] === "q" ? "p" : "q") + good.slice(21);
    expect(codeOf(() => decodeBolt11(flipped))).to.equal("bech32");
    expect(codeOf(() => decodeBolt11(good.slice(0, -10)))).to.equal("bech32");
    expect(codeOf(() => decodeBolt11(good.slice(0, 40)))).to.equal("bech32");
    expect(codeOf(() => decodeBolt11(good.toUpperCase()))).to.equal("decoded");
    expect(codeOf(() => decodeBolt11(`lightning:${good}`))).to.equal("bech32"); // the URI prefix is the caller's to remove
  });
});
