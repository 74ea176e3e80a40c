/**
 * The rules of barkd's JSON reader (serde_json) that JavaScript's `JSON.parse` does not apply to
 * a request body, so that tender refuses what barkd refuses:
 *
 * - the body is UTF-8 (invalid bytes are a syntax error, a byte-order mark is not whitespace);
 * - a `\u` escape of half a surrogate pair is a syntax error (the string would not be UTF-8);
 * - a struct's field given twice is an error (`duplicate field`);
 * - a number written with a fraction or an exponent (`1.0`, `1e3`) or as `-0` is a floating
 *   point number, never an integer.
 *
 * The first two are syntax errors (400); the last two are shape errors (422).
 */

/** Where a value sits in a document: object keys and array indexes from the root. */
export type JsonPath = readonly (string | number)[];

/** What {@link scanJsonText} finds in a syntactically valid JSON text. */
export interface JsonTextScan {
  /** A `\u` escape of an unpaired surrogate, if any. */
  readonly loneSurrogate?: string;
  /** Keys given twice in one object, with the path of that object. */
  readonly duplicateKeys: readonly { readonly path: JsonPath; readonly key: string }[];
  /** Numbers that are not integer literals (`1.0`, `1e3`, `-0`), with their path. */
  readonly floatLiterals: readonly { readonly path: JsonPath; readonly text: string }[];
}

const utf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

/** The body as text, or `undefined` when it is not UTF-8. A byte-order mark is kept (and then fails to parse). */
export function decodeUtf8(raw: Uint8Array): string | undefined {
  try {
    return utf8.decode(raw);
  } catch {
    return undefined;
  }
}

/**
 * Scans a JSON text that `JSON.parse` accepted, in one pass: surrogate escapes, duplicate keys per
 * object, and the literal form of every number.
 */
export function scanJsonText(text: string): JsonTextScan {
  const duplicateKeys: { path: JsonPath; key: string }[] = [];
  const floatLiterals: { path: JsonPath; text: string }[] = [];
  let loneSurrogate: string | undefined;
  /** One frame per open object or array: its path, the keys seen (objects), the next index (arrays). */
  const stack: { path: (string | number)[]; keys?: Set<string>; index: number; key?: string }[] = [];
  const here = (): (string | number)[] => {
    const top = stack[stack.length - 1];
    if (!top) return [];
    return [...top.path, top.keys ? top.key ?? "" : top.index];
  };
  let i = 0;
  const n = text.length;
  while (i < n) {
    const c = text[i]!;
    if (c === '"') {
      let j = i + 1;
      let escaped = false;
      while (j < n && text[j] !== '"') {
        if (text[j] === "\\") {
          escaped = true;
          if (text[j + 1] === "u") {
            const u = parseInt(text.slice(j + 2, j + 6), 16);
            if (u >= 0xd800 && u <= 0xdbff) {
              const low = text[j + 6] === "\\" && text[j + 7] === "u" ? parseInt(text.slice(j + 8, j + 12), 16) : NaN;
              if (!(low >= 0xdc00 && low <= 0xdfff)) loneSurrogate ??= text.slice(j, j + 6);
              else j += 6;
            } else if (u >= 0xdc00 && u <= 0xdfff) {
              loneSurrogate ??= text.slice(j, j + 6);
            }
            j += 6;
          } else {
            j += 2;
          }
        } else {
          j++;
        }
      }
      const token = text.slice(i, j + 1);
      i = j + 1;
      let k = i;
      while (k < n && (text[k] === " " || text[k] === "\t" || text[k] === "\n" || text[k] === "\r")) k++;
      const top = stack[stack.length - 1];
      if (top?.keys && text[k] === ":") {
        const key = escaped ? (JSON.parse(token) as string) : token.slice(1, -1);
        if (top.keys.has(key)) duplicateKeys.push({ path: top.path, key });
        top.keys.add(key);
        top.key = key;
        i = k + 1;
      }
      continue;
    }
    if (c === "{" || c === "[") {
      stack.push({ path: here(), index: 0, ...(c === "{" ? { keys: new Set<string>() } : {}) });
      i++;
      continue;
    }
    if (c === "}" || c === "]") {
      stack.pop();
      i++;
      continue;
    }
    if (c === ",") {
      const top = stack[stack.length - 1];
      if (top && !top.keys) top.index++;
      i++;
      continue;
    }
    if (c === "-" || (c >= "0" && c <= "9")) {
      let j = i + 1;
      while (j < n && /[0-9eE.+-]/.test(text[j]!)) j++;
      const literal = text.slice(i, j);
      if (/[.eE]/.test(literal) || literal === "-0") floatLiterals.push({ path: here(), text: literal });
      i = j;
      continue;
    }
    i++;
  }
  return { ...(loneSurrogate !== undefined ? { loneSurrogate } : {}), duplicateKeys, floatLiterals };
}

/** A JSON Schema node (the subset zod writes). */
type SchemaNode = Record<string, unknown>;

/** The schema nodes that may describe the value at `path` (every branch of a union). */
function nodesAt(root: SchemaNode, path: JsonPath): SchemaNode[] {
  const expand = (node: SchemaNode, depth = 0): SchemaNode[] => {
    if (depth > 32) return [];
    const ref = node.$ref;
    if (typeof ref === "string" && ref.startsWith("#/")) {
      const target = ref.slice(2).split("/").reduce<unknown>((o, k) => (o as Record<string, unknown> | undefined)?.[k], root);
      return target && typeof target === "object" ? expand(target as SchemaNode, depth + 1) : [];
    }
    const branches = [node.anyOf, node.oneOf, node.allOf].filter(Array.isArray).flat() as SchemaNode[];
    return [node, ...branches.flatMap((b) => expand(b, depth + 1))];
  };
  let nodes = expand(root);
  for (const seg of path) {
    nodes = nodes.flatMap((node) => {
      const next = typeof seg === "number"
        ? node.items
        : (node.properties as Record<string, unknown> | undefined)?.[seg] ?? node.additionalProperties;
      return next && typeof next === "object" ? expand(next as SchemaNode) : [];
    });
  }
  return nodes;
}

const typesOf = (node: SchemaNode): unknown[] => (Array.isArray(node.type) ? node.type : node.type === undefined ? [] : [node.type]);

/**
 * The shape error barkd's struct deserializer gives for a body that the schema otherwise accepts:
 * a field of a struct (a key the schema lists in `properties`) given twice in one object, or a
 * floating point literal where the schema wants an integer. `undefined` when there is none.
 */
export function structRuleViolation(scan: JsonTextScan, schema: SchemaNode): string | undefined {
  for (const d of scan.duplicateKeys) {
    // a struct ignores unknown keys, twice as well as once
    if (nodesAt(schema, d.path).some((node) => Object.hasOwn((node.properties ?? {}) as object, d.key))) return `duplicate field \`${d.key}\``;
  }
  for (const f of scan.floatLiterals) {
    const nodes = nodesAt(schema, f.path);
    if (nodes.some((node) => typesOf(node).includes("integer")) && !nodes.some((node) => typesOf(node).includes("number"))) {
      return `invalid type: floating point \`${f.text}\`, expected an integer`;
    }
  }
  return undefined;
}
