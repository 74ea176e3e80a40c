/**
 * A JSON parser with the rules of barkd's JSON library (serde_json) rather than JavaScript's:
 * the body must be UTF-8, strings may not hold unpaired surrogate escapes, number tokens are kept
 * as written (so `1.0` is not an integer and `18446744073709551616` keeps its digits), and object
 * entries keep their order and duplicates. It decides what barkd's framework answers for a body:
 * a syntax failure is its plain-text 400.
 */

export type Parsed =
  | { readonly t: "null" }
  | { readonly t: "bool"; readonly v: boolean }
  | { readonly t: "num"; readonly text: string }
  | { readonly t: "str"; readonly v: string }
  | { readonly t: "arr"; readonly items: readonly Parsed[] }
  | { readonly t: "obj"; readonly entries: readonly (readonly [string, Parsed])[] };

export type ParseResult =
  | { readonly ok: true; readonly value: Parsed }
  /** `certain: false` when serde_json's answer is not known for sure (very deep nesting, exponent overflow). */
  | { readonly ok: false; readonly reason: string; readonly certain: boolean };

const MAX_DEPTH = 128; // serde_json's recursion limit

class Fail extends Error {
  constructor(reason: string, readonly certain = true) {
    super(reason);
  }
}

const utf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

/** Parses a request body as serde_json would. */
export function parseStrictJson(body: Buffer): ParseResult {
  let text: string;
  try {
    text = utf8.decode(body);
  } catch {
    return { ok: false, reason: "body is not UTF-8", certain: true };
  }
  let i = 0;
  const ws = () => {
    while (i < text.length && (text[i] === " " || text[i] === "\t" || text[i] === "\n" || text[i] === "\r")) i++;
  };
  const value = (depth: number): Parsed => {
    ws();
    if (i >= text.length) throw new Fail("EOF while parsing a value");
    const c = text[i]!;
    if (c === "{" || c === "[") {
      if (depth >= MAX_DEPTH) throw new Fail("recursion limit exceeded", false);
      i++;
      ws();
      const close = c === "{" ? "}" : "]";
      const entries: [string, Parsed][] = [];
      const items: Parsed[] = [];
      if (text[i] === close) {
        i++;
      } else {
        for (;;) {
          if (c === "{") {
            ws();
            if (text[i] !== '"') throw new Fail("key must be a string");
            const k = string();
            ws();
            if (text[i] !== ":") throw new Fail("expected `:`");
            i++;
            entries.push([k, value(depth + 1)]);
          } else {
            items.push(value(depth + 1));
          }
          ws();
          if (text[i] === ",") { i++; continue; }
          if (text[i] === close) { i++; break; }
          throw new Fail(`expected \`,\` or \`${close}\``);
        }
      }
      return c === "{" ? { t: "obj", entries } : { t: "arr", items };
    }
    if (c === '"') return { t: "str", v: string() };
    for (const [word, v] of [["true", { t: "bool", v: true }], ["false", { t: "bool", v: false }], ["null", { t: "null" }]] as const) {
      if (text.startsWith(word, i)) {
        i += word.length;
        return v;
      }
    }
    const m = /^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?/.exec(text.slice(i, i + 4096));
    if (!m || m[0] === "" || m[0] === "-") throw new Fail("expected value");
    i += m[0].length;
    if ((m[2] || m[3]) && !Number.isFinite(Number(m[0]))) throw new Fail("number out of range", false);
    return { t: "num", text: m[0] };
  };
  const string = (): string => {
    i++; // opening quote
    let out = "";
    for (;;) {
      if (i >= text.length) throw new Fail("EOF while parsing a string");
      const ch = text[i]!;
      const code = ch.charCodeAt(0);
      if (ch === '"') { i++; return out; }
      if (code < 0x20) throw new Fail("control character found while parsing a string");
      if (ch !== "\\") { out += ch; i++; continue; }
      const e = text[i + 1];
      i += 2;
      const simple: Record<string, string> = { '"': '"', "\\": "\\", "/": "/", b: "\b", f: "\f", n: "\n", r: "\r", t: "\t" };
      if (e !== undefined && e in simple) { out += simple[e]; continue; }
      if (e !== "u") throw new Fail("invalid escape");
      const hex = (at: number) => {
        const h = text.slice(at, at + 4);
        if (!/^[0-9a-fA-F]{4}$/.test(h)) throw new Fail("invalid \\u escape");
        return parseInt(h, 16);
      };
      const u = hex(i);
      i += 4;
      if (u >= 0xdc00 && u <= 0xdfff) throw new Fail("lone trailing surrogate in hex escape");
      if (u >= 0xd800 && u <= 0xdbff) {
        if (text[i] !== "\\" || text[i + 1] !== "u") throw new Fail("lone leading surrogate in hex escape");
        const low = hex(i + 2);
        if (low < 0xdc00 || low > 0xdfff) throw new Fail("lone leading surrogate in hex escape");
        i += 6;
        out += String.fromCharCode(u, low);
        continue;
      }
      out += String.fromCharCode(u);
    }
  };
  try {
    const v = value(0);
    ws();
    if (i < text.length) throw new Fail("trailing characters");
    return { ok: true, value: v };
  } catch (e) {
    if (e instanceof Fail) return { ok: false, reason: e.message, certain: e.certain };
    throw e;
  }
}

/** The plain JavaScript value of a parsed body (numbers through `Number`, the last duplicate wins). */
export function plainValue(p: Parsed): unknown {
  switch (p.t) {
    case "null": return null;
    case "bool": return p.v;
    case "num": return Number(p.text);
    case "str": return p.v;
    case "arr": return p.items.map(plainValue);
    case "obj": return Object.fromEntries(p.entries.map(([k, v]) => [k, plainValue(v)]));
  }
}
