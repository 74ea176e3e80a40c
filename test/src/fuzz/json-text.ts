/**
 * JSON bodies as the fuzzer writes them: values JSON.stringify cannot express (a number written
 * exactly as `18446744073709551615`, `1.0` or `-0`; an object with a duplicate key) are kept
 * as text so the request carries exactly those bytes.
 */

/** A JSON number written exactly as `text`. */
export class NumberText {
  constructor(readonly text: string) {}
}

/** A JSON object written with its entries in order, duplicate keys included. */
export class DuplicateKeys {
  constructor(readonly entries: readonly (readonly [string, JsonValue])[]) {}
}

export type JsonValue =
  | null | boolean | number | string | NumberText | DuplicateKeys
  | readonly JsonValue[]
  | { readonly [key: string]: JsonValue };

/** The JSON text of a value (lone surrogates come out as `\udXXX` escapes, as JSON.stringify writes them). */
export function jsonText(v: JsonValue): string {
  if (v instanceof NumberText) return v.text;
  if (v instanceof DuplicateKeys) return `{${v.entries.map(([k, x]) => `${JSON.stringify(k)}:${jsonText(x)}`).join(",")}}`;
  if (Array.isArray(v)) return `[${v.map(jsonText).join(",")}]`;
  if (v !== null && typeof v === "object") {
    return `{${Object.entries(v as Record<string, JsonValue>).map(([k, x]) => `${JSON.stringify(k)}:${jsonText(x)}`).join(",")}}`;
  }
  return JSON.stringify(v);
}
