/**
 * barkd's deserializers as rules: serde reading a JSON body into barkd's request structs (as
 * barkd's OpenAPI document describes them), and Rust's `FromStr` reading path and query values.
 * Each check answers "accepted", "refused for sure" or "refused, but not surely so" (where the
 * model does not know barkd's answer).
 */
import type { Schema, SchemaDoc } from "./operations.js";
import type { Parsed } from "./strict-json.js";

/** Outcome of checking one value against a schema with barkd's deserializer rules. */
export type Fit = { readonly ok: true } | { readonly ok: false; readonly certain: boolean; readonly why: string };
const OK: Fit = { ok: true };
const no = (why: string, certain = true): Fit => ({ ok: false, certain, why });

/** The first failure of a list, certain failures before uncertain ones. */
function combine(fits: Fit[]): Fit {
  return fits.find((f) => !f.ok && f.certain) ?? fits.find((f) => !f.ok) ?? OK;
}

const INT_RANGES: Record<string, [bigint, bigint]> = {
  u32: [0n, 2n ** 32n - 1n], i32: [-(2n ** 31n), 2n ** 31n - 1n], u64: [0n, 2n ** 64n - 1n], i64: [-(2n ** 63n), 2n ** 63n - 1n],
};

/** The Rust integer type behind an OpenAPI integer schema: `int32`/`int64`, unsigned when `minimum` is 0. */
function intType(s: Schema): keyof typeof INT_RANGES {
  const unsigned = typeof s.minimum === "number" && s.minimum >= 0;
  return s.format === "int32" ? (unsigned ? "u32" : "i32") : unsigned ? "u64" : "i64";
}

function types(s: Schema): string[] {
  return Array.isArray(s.type) ? s.type : typeof s.type === "string" ? [s.type] : [];
}

/** An `oneOf` of one-key objects: serde's externally tagged enum (`{"esplora": {...}}`). */
function externallyTagged(branches: Schema[], doc: SchemaDoc): Map<string, Schema> | undefined {
  const variants = new Map<string, Schema>();
  for (const b0 of branches) {
    const b = doc.resolve(b0);
    const keys = Object.keys(b.properties ?? {});
    if (!types(b).includes("object") || keys.length !== 1 || !(b.required ?? []).includes(keys[0])) return undefined;
    variants.set(keys[0]!, b.properties[keys[0]!]);
  }
  return variants;
}

/**
 * Whether barkd's deserializer (serde) accepts `v` for schema `s0`. `optional`: the field may be
 * absent or `null` (an `Option` or a defaulted field).
 */
export function fits(s0: Schema, v: Parsed, doc: SchemaDoc, optional = false): Fit {
  const s = doc.resolve(s0);
  const union: Schema[] | undefined = s.oneOf ?? s.anyOf;
  if (union) {
    const nonNull = union.filter((b) => !types(doc.resolve(b)).every((t) => t === "null") || types(doc.resolve(b)).length === 0);
    if (v.t === "null" && (optional || nonNull.length < union.length)) return OK;
    const tagged = externallyTagged(nonNull, doc);
    if (tagged) {
      if (v.t === "str") return no(`a string is not one of the variants ${[...tagged.keys()].join(", ")} with data`);
      if (v.t !== "obj") return no(`expected one of the variants ${[...tagged.keys()].join(", ")}`);
      if (v.entries.length !== 1) return no("an externally tagged enum needs exactly one key", false);
      const [k, inner] = v.entries[0]!;
      const vs = tagged.get(k);
      if (!vs) return no(`unknown variant \`${k}\``);
      return fits(vs, inner, doc);
    }
    const results = nonNull.map((b) => fits(b, v, doc));
    if (results.some((r) => r.ok)) return OK;
    return results.every((r) => !r.ok && r.certain) ? no("matches no variant") : no("matches no variant for sure", false);
  }
  if (Array.isArray(s.enum)) {
    if (v.t === "null" && optional) return OK;
    return v.t === "str" && s.enum.includes(v.v) ? OK : no(`not one of ${s.enum.join(", ")}`);
  }
  const ts = types(s);
  if (ts.length === 0) return OK; // any JSON value (e.g. a merge patch)
  if (v.t === "null") return ts.includes("null") || optional ? OK : no("null where a value is required");
  if (ts.includes("object")) {
    if (v.t === "arr") return no("serde also reads a struct from an array", false);
    if (v.t !== "obj") return no("expected an object");
    const props: Schema = s.properties ?? {};
    const required: string[] = s.required ?? [];
    const seen = new Set<string>();
    const out: Fit[] = [];
    for (const [k, x] of v.entries) {
      if (!(k in props)) continue; // unknown keys are ignored
      if (seen.has(k)) out.push(no(`duplicate field \`${k}\``));
      seen.add(k);
      out.push(fits(props[k], x, doc, !required.includes(k)));
    }
    for (const k of required) {
      if (!seen.has(k) && !types(doc.resolve(props[k] ?? {})).includes("null")) out.push(no(`missing field \`${k}\``));
    }
    return combine(out);
  }
  if (ts.includes("array")) {
    if (v.t !== "arr") return no("expected an array");
    return combine(v.items.map((x) => fits(s.items ?? {}, x, doc)));
  }
  if (ts.includes("string")) return v.t === "str" ? OK : no("expected a string");
  if (ts.includes("boolean")) return v.t === "bool" ? OK : no("expected a boolean");
  if (ts.includes("integer")) {
    if (v.t !== "num") return no("expected an integer");
    if (!/^-?\d+$/.test(v.text) || v.text === "-0") return no(`${v.text} is not an integer literal`);
    const [lo, hi] = INT_RANGES[intType(s)]!;
    const n = BigInt(v.text);
    return n >= lo && n <= hi ? OK : no(`${v.text} is out of range for ${intType(s)}`);
  }
  if (ts.includes("number")) return v.t === "num" ? OK : no("expected a number");
  return OK;
}

/** Rust's `FromStr` of an integer (path and query values): an optional sign, digits, in range. */
function rustInt(text: string, s: Schema): Fit {
  const t = intType(s);
  const re = t.startsWith("u") ? /^\+?\d+$/ : /^[+-]?\d+$/;
  if (!re.test(text)) return no(`${JSON.stringify(text)} is not an integer`);
  const n = BigInt(text.replace(/^\+/, ""));
  const [lo, hi] = INT_RANGES[t]!;
  return n >= lo && n <= hi ? OK : no(`${text} is out of range for ${t}`);
}

const DAYS = [31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/** RFC 3339 date-times barkd's date parser surely accepts, surely refuses, or might go either way. */
function rfc3339(text: string): Fit {
  const m = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(\.\d{1,9})?(Z|[+-](\d{2}):(\d{2}))$/.exec(text);
  if (m) {
    const [y, mo, d, h, mi, s] = [m[1], m[2], m[3], m[4], m[5], m[6]].map(Number) as number[];
    const leap = y! % 4 === 0 && (y! % 100 !== 0 || y! % 400 === 0);
    const days = mo === 2 && !leap ? 28 : DAYS[mo! - 1] ?? 0;
    const offOk = m[8] === "Z" || (Number(m[9]) <= 23 && Number(m[10]) <= 59);
    if (mo! < 1 || mo! > 12 || d! < 1 || d! > days || h! > 23 || mi! > 59 || s! > 60 || !offOk) return no(`${text} is not a real date-time`);
    return s === 60 ? no("leap second", false) : OK;
  }
  if (text === "" || !/\d{4}-\d{2}-\d{2}/.test(text)) return no(`${JSON.stringify(text)} is not a date-time`);
  return no("not a strict RFC 3339 date-time", false);
}

/** A path or query value against its schema, as barkd's extractors parse text. */
export function fitsText(text: string, s: Schema): Fit {
  const ts = types(s);
  if (ts.includes("integer")) return rustInt(text, s);
  if (ts.includes("boolean")) return text === "true" || text === "false" ? OK : no(`${JSON.stringify(text)} is not true or false`);
  if (Array.isArray(s.enum)) return s.enum.includes(text) ? OK : no(`not one of ${s.enum.join(", ")}`);
  if (s.format === "date-time") return rfc3339(text);
  return OK;
}

