/**
 * Value generators: boundary numbers and strings, wrong types, and values that mean something to
 * the wallet under test (its VTXO ids and addresses, another wallet's address, its fingerprint,
 * movement ids, amounts it can and cannot pay), chosen by field name.
 */
import fc from "fast-check";
import { NumberText, type JsonValue } from "./json-text.js";

/** Values of the wallet under test and of its surroundings, read once the wallet is funded. */
export interface FuzzHints {
  readonly fingerprint: string;
  readonly vtxoIds: readonly string[];
  /** Encoded VTXOs of the wallet (importing one again is a no-op). */
  readonly vtxoHex: readonly string[];
  /** Ark addresses of the wallet. */
  readonly ownArkAddresses: readonly string[];
  /** An Ark address of another wallet on the same server. */
  readonly foreignArkAddress: string;
  /** An address in the foreign (Arkade, version 0) format. */
  readonly arkadeAddress: string;
  readonly ownOnchainAddresses: readonly string[];
  /** Regtest addresses of nobody's wallet here. */
  readonly foreignOnchainAddresses: readonly string[];
  /** Addresses of other networks (mainnet, testnet). */
  readonly otherNetworkAddresses: readonly string[];
  readonly movementIds: readonly number[];
  /** Highest Ark address index derived before the run. */
  readonly derivedIndex: number;
  /** A valid BIP-39 phrase that is not the wallet's. */
  readonly mnemonic: string;
  readonly arkUrl: string;
  readonly esploraUrl: string;
}

const big = (s: string) => new NumberText(s);

/** Integers at the edges of every integer type barkd parses, and integer-looking non-integers. */
export const BOUNDARY_NUMBERS: readonly JsonValue[] = [
  0, 1, 329, 330, 546, 19_999, 20_000, 2 ** 31 - 1, 2 ** 31, 2 ** 32 - 1, 2 ** 32, Number.MAX_SAFE_INTEGER,
  big("9007199254740992"), big("9007199254740993"), big("9223372036854775807"), big("9223372036854775808"),
  big("18446744073709551615"), big("18446744073709551616"), big("1" + "0".repeat(30)), -1, -(2 ** 31), big("-9223372036854775808"),
  big("-0"), big("1.0"), big("1e3"), big("1E2"), 0.5, 1e308, big("1e400"), big("0.000"),
];

/** The same edges as path or query text. */
export const BOUNDARY_INTEGER_TEXT: readonly string[] = [
  "0", "1", "+1", "01", "007", "-1", "-0", "4294967295", "4294967296", "9007199254740992", "18446744073709551615",
  "18446744073709551616", "99999999999999999999", "1.5", "1e3", " 1", "1 ", "0x10", "", "١٢", "NaN",
];

/** Strings barkd must take as plain data. */
export const SPECIAL_STRINGS: readonly string[] = [
  "", " ", "\t\n", "\u0000", "null", "true", "0", "-1", "%", "%zz", "%00", "../..", "/", "\\", "'\"", "<script>", "a:b:c",
  "é", "日本語", "🦀💸", "\u202e", "\ufeff", "\ud800", "\udfff", "\u{10ffff}", "A".repeat(1_000),
];

/** A huge string (well below the 2 MiB body limit). */
export const HUGE_STRING = "x".repeat(100_000);

export function arbString(): fc.Arbitrary<string> {
  return fc.oneof(
    { weight: 4, arbitrary: fc.constantFrom(...SPECIAL_STRINGS) },
    { weight: 3, arbitrary: fc.string({ maxLength: 40 }) },
    { weight: 2, arbitrary: fc.string({ unit: "grapheme", maxLength: 20 }) },
    { weight: 1, arbitrary: fc.string({ unit: "binary", maxLength: 20 }) },
    { weight: 1, arbitrary: fc.constant(HUGE_STRING) },
  );
}

export function arbInteger(): fc.Arbitrary<JsonValue> {
  return fc.oneof(
    { weight: 3, arbitrary: fc.constantFrom(...BOUNDARY_NUMBERS) },
    { weight: 2, arbitrary: fc.nat({ max: 100_000 }) },
    { weight: 1, arbitrary: fc.bigInt({ min: 0n, max: 2n ** 70n }).map((b) => new NumberText(b.toString())) },
  );
}

/** A value of any JSON type (the wrong type for most fields). */
export function arbAnyJson(): fc.Arbitrary<JsonValue> {
  return fc.oneof(
    fc.constantFrom<JsonValue>(null, true, false, 0, -1, "", "x", [], {}, [null], { a: 1 }),
    fc.jsonValue({ maxDepth: 2 }) as fc.Arbitrary<JsonValue>,
  );
}

/** Small edits of a meaningful string: padding, case, truncation, one changed character. */
export function arbVariantOf(values: readonly string[]): fc.Arbitrary<string> {
  const base = fc.constantFrom(...(values.length ? values : [""]));
  return fc.oneof(
    { weight: 6, arbitrary: base },
    { weight: 1, arbitrary: base.map((v) => ` ${v} `) },
    { weight: 1, arbitrary: base.map((v) => v.toUpperCase()) },
    { weight: 1, arbitrary: fc.tuple(base, fc.nat()).map(([v, n]) => v.slice(0, v.length ? n % v.length : 0)) },
    { weight: 1, arbitrary: fc.tuple(base, fc.nat(), fc.constantFrom("0", "q", "x", "é", "%")).map(([v, n, c]) => {
      if (!v.length) return c;
      const i = n % v.length;
      return v.slice(0, i) + c + v.slice(i + 1);
    }) },
  );
}

const LIGHTNING_LIKE = [
  "lnbcrt1", "lnbcrt10u1pjq", "lnbc1qqqqqq", "LNBCRT1PQQQ", "lightning:lnbcrt1qq", "lno1qqqq", "lno1", "lnurl1dp68gurn8ghj7",
  "LNURL1DP68GURN8GHJ7UM9WFMXJCM99E3K7MF0V9CXJ0M385EKVCENXC6R2C35XVUKXEFCV5MKVV34X5EKZD3EV56NYD3HXQURZEPEXEJXXEPNXSCRVWFNV9NXZCN9XQ6XYEFHVGCXXCMYXYMNSERXFQ5FNS",
  "user@example.com", "a@b", "@", "satoshi@", "bitcoin:bcrt1qqqqq?amount=0.001", "bitcoin:", "BITCOIN:?ark=tark1",
];

/** Amounts the funded wallet can pay, cannot pay, and the boundaries of every integer type. */
export function arbAmount(): fc.Arbitrary<JsonValue> {
  return fc.oneof(
    { weight: 3, arbitrary: fc.constantFrom<JsonValue>(1_000, 10_000, 20_000, 25_000, 330, 0, 1, 19_999, 5_000_000_000) },
    { weight: 3, arbitrary: fc.constantFrom(...BOUNDARY_NUMBERS) },
    { weight: 1, arbitrary: fc.nat({ max: 60_000 }) },
  );
}

/** Hints by field name; `undefined` when the name means nothing special. */
export function arbHint(name: string, h: FuzzHints, opKey: string): fc.Arbitrary<JsonValue> | undefined {
  const arkDestinations = [h.foreignArkAddress, h.arkadeAddress];
  const onchain = [...h.ownOnchainAddresses, ...h.foreignOnchainAddresses, ...h.otherNetworkAddresses];
  switch (name) {
    case "destination":
    case "address": {
      // an Ark payment to the wallet's own address would come back through the mailbox later, so only other wallets' addresses
      const pool = opKey === "POST /api/v1/wallet/send" ? [...arkDestinations, ...onchain, ...LIGHTNING_LIKE] : [...onchain, ...arkDestinations];
      return fc.oneof({ weight: 5, arbitrary: arbVariantOf(pool) }, { weight: 1, arbitrary: fc.constantFrom(...LIGHTNING_LIKE) }, { weight: 1, arbitrary: arbString() });
    }
    case "destinations": {
      const entry = fc.oneof(
        { weight: 4, arbitrary: fc.tuple(arbVariantOf(onchain), fc.constantFrom("1000 sat", "1000sat", "0.0001 BTC", "0.01 mBTC", "10 bits", "1000 SAT", "1000", "", "-1 sat", "1e3 sat", "0.1 sat", "21000001 BTC", "abc", " 1000 sat", "1000 sats")).map(([a, b]) => `${a}:${b}`) },
        { weight: 1, arbitrary: arbVariantOf(onchain) },
        { weight: 1, arbitrary: arbString() },
      );
      return fc.array(entry, { maxLength: 3 });
    }
    case "vtxos":
      return fc.array(
        fc.oneof(
          { weight: 3, arbitrary: arbVariantOf(h.vtxoHex) },
          { weight: 1, arbitrary: fc.constantFrom("", "00", "zz", "0", "deadbeef") },
          { weight: 1, arbitrary: fc.uint8Array({ maxLength: 200 }).map((b) => Buffer.from(b).toString("hex")) },
        ),
        { maxLength: 3 },
      );
    case "fingerprint":
      return fc.oneof(arbVariantOf([h.fingerprint]), fc.constantFrom("00000000", "", "ffffffff"), arbString());
    case "amount_sat":
      return arbAmount();
    case "mnemonic":
      return fc.oneof(fc.constant(h.mnemonic), arbVariantOf([h.mnemonic]), arbString());
    case "ark_server":
      return fc.oneof(fc.constantFrom(h.arkUrl, "http://127.0.0.1:1", "not a url", ""), arbString());
    case "url":
    case "bitcoind":
      return fc.oneof(fc.constantFrom(h.esploraUrl, "http://127.0.0.1:1", "ftp://x", ""), arbString());
    default:
      return undefined;
  }
}

/** Text for a path parameter (before percent-encoding) by name. */
export function arbParamText(name: string, h: FuzzHints, opKey: string): fc.Arbitrary<string> {
  const generic = fc.oneof(fc.constantFrom(...BOUNDARY_INTEGER_TEXT), arbString().filter((s) => s.length < 2_000));
  if (name === "index") return fc.oneof({ weight: 3, arbitrary: fc.nat({ max: h.derivedIndex + 2 }).map(String) }, { weight: 2, arbitrary: generic });
  if (name === "id" && opKey.includes("/history/")) {
    return fc.oneof({ weight: 3, arbitrary: fc.constantFrom(...h.movementIds.map(String), "0", "999999") }, { weight: 2, arbitrary: generic });
  }
  if (name === "id" || name === "vtxo_id") {
    const unknown = fc.tuple(fc.uint8Array({ minLength: 32, maxLength: 32 }), fc.nat({ max: 3 })).map(([b, n]) => `${Buffer.from(b).toString("hex")}:${n}`);
    return fc.oneof({ weight: 3, arbitrary: arbVariantOf(h.vtxoIds) }, { weight: 1, arbitrary: unknown }, { weight: 1, arbitrary: generic },
      { weight: 1, arbitrary: fc.constantFrom(...h.vtxoIds.map((id) => id.replace(/:(\d+)$/, ":+$1")), ...h.vtxoIds.map((id) => `${id}0`)) });
  }
  return generic;
}

const now = Date.now();

/** Text for a query parameter by name. */
export function arbQueryText(name: string, h: FuzzHints, schema: { type?: unknown; format?: string; enum?: unknown[] }): fc.Arbitrary<string> {
  switch (name) {
    case "since":
      return fc.oneof(
        { weight: 3, arbitrary: fc.integer({ min: -86_400_000, max: 86_400_000 }).map((d) => new Date(now + d).toISOString()) },
        { weight: 1, arbitrary: fc.constantFrom("2026-02-30T00:00:00Z", "2026-00-10T00:00:00Z", "2026-01-01T24:00:00Z", "2026-01-01T00:00:00+24:00",
          "2026-01-01T00:00:00+02:00", "2026-01-01T00:00:00.123456789-05:30", "2026-01-01 00:00:00Z", "2026-01-01", "yesterday", "", "1970-01-01T00:00:00Z", "9999-12-31T23:59:59Z") },
        { weight: 1, arbitrary: arbString() },
      );
    case "type":
      return fc.oneof(fc.constantFrom("ark", "bitcoin", "output-script", "invoice", "offer", "lightning-address", "lnurl", "custom", "ARK", "", "unknown"), arbString());
    case "value":
      return fc.oneof(arbVariantOf([...h.ownArkAddresses, ...h.ownOnchainAddresses, h.foreignArkAddress, "0014" + "00".repeat(20)]), arbString());
    case "amount_sat":
      return fc.oneof(fc.constantFrom("20000", "25000", "100000", "330", "0"), fc.constantFrom(...BOUNDARY_INTEGER_TEXT));
    default:
      if (schema.type === "boolean" || (Array.isArray(schema.enum) && schema.enum.includes("true"))) return fc.constantFrom("true", "false", "TRUE", "1", "0", "", "yes");
      return fc.oneof(fc.constantFrom(...BOUNDARY_INTEGER_TEXT), arbString());
  }
}
