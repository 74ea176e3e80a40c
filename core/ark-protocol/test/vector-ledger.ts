/**
 * A ledger over a JSON tree of test vectors: which leaves the tests read and which they compared.
 *
 * A leaf is a value that is not an object or an array (string, number, boolean or null). Keys
 * named in `docKeys` hold prose about the vectors (`what`, `provenance`, …); they and everything
 * under them are not part of the ledger. Every other leaf is one of two kinds:
 *
 * - an **input**: a value the tests feed to the code under test (a secret key, a fee parameter,
 *   the name that identifies a case). It must be *read* at least once. The inputs are listed
 *   once, by path pattern, when the ledger is made — a test cannot declare a value an input.
 * - an **expected value**: every other leaf. It must be *compared*: a test checked a value the
 *   code computed against it with {@link VectorLedger.expect} or {@link VectorLedger.compare}.
 *   Reading an expected value through {@link VectorLedger.tree} does not count.
 *
 * {@link VectorLedger.report} lists the expected values nobody compared and the inputs nobody read;
 * {@link vectorRunScope} says whether a mocha run was complete enough to require both lists empty.
 */
import { Assertion, expect as chaiExpect } from "chai";

/** A node of the tracked tree: an object or array handed out by {@link VectorLedger.tree}. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type VectorNode = any;

export interface LedgerReport {
  /** Expected-value leaves, and how many of them were compared. */
  expected: number;
  compared: number;
  /** Input leaves, and how many of them were read (or compared). */
  inputs: number;
  read: number;
  /** Paths of expected values nobody compared, in file order. */
  uncompared: string[];
  /** Paths of inputs nobody read, in file order. */
  unread: string[];
}

// Every chai assertion goes through Assertion.prototype.assert; counting those calls lets
// compare() refuse a check that asserted nothing. The wrapper only counts and is installed once.
const COUNTER = Symbol.for("tender.vector-ledger.assertions");
type CountedProto = { assert: (...args: unknown[]) => unknown; [COUNTER]?: { n: number } };
const proto = Assertion.prototype as unknown as CountedProto;
if (!proto[COUNTER]) {
  const counter = { n: 0 };
  const original = proto.assert;
  proto.assert = function (this: unknown, ...args: unknown[]) {
    counter.n++;
    return original.apply(this, args);
  };
  proto[COUNTER] = counter;
}
const assertionCount = (): number => proto[COUNTER]!.n;

function isBranch(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === "object";
}

/**
 * Path patterns: `/`-separated segments. A segment is a key (or an array index), `*` (any one
 * segment), `**` (any number of segments, none included) or `{a,b,c}` (any of the keys listed).
 * `/fees/board/*` + `/{amount,ppm}` matches the amount and the ppm of every board fee case;
 * `/keys` + `/**` + `/secret_key` every secret key under `keys`.
 */
export function patternMatcher(patterns: readonly string[]): (path: string) => boolean {
  const literal = (x: string): string => x.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  const segment = (seg: string): string => {
    if (seg === "**") return "(?:/[^/]+)*";
    if (seg === "*") return "/[^/]+";
    const alt = /^\{(.+)\}$/.exec(seg);
    if (alt) return `/(?:${alt[1]!.split(",").map(literal).join("|")})`;
    return `/${literal(seg)}`;
  };
  const res = patterns.map((p) => new RegExp(`^${p.split("/").filter(Boolean).map(segment).join("")}$`));
  return (path) => res.some((r) => r.test(path));
}

export class VectorLedger {
  /** The vector tree, tracked: reading a leaf records it as read (an input use, not a comparison). */
  readonly tree: VectorNode;

  readonly #raw: unknown;
  readonly #docKeys: ReadonlySet<string>;
  readonly #isInput: (path: string) => boolean;
  readonly #read = new Set<string>();
  readonly #compared = new Set<string>();
  readonly #nodes = new WeakMap<object, { target: Record<string, unknown>; path: string }>();
  readonly #proxies = new WeakMap<object, object>();

  constructor(raw: unknown, options: { docKeys?: Iterable<string>; inputs?: readonly string[] } = {}) {
    this.#raw = raw;
    this.#docKeys = new Set(options.docKeys ?? []);
    this.#isInput = patternMatcher(options.inputs ?? []);
    this.tree = this.#track(raw, "");
  }

  /**
   * Asserts that `actual` deep-equals the vector value `node[key]` (a leaf or a whole subtree) and
   * records every leaf of it as compared. A bigint `actual` is compared with `BigInt(expected)`,
   * since the vectors write amounts as JSON numbers. Nothing is recorded when the assertion fails.
   */
  expect(actual: unknown, node: VectorNode, key: string | number, message?: string): void {
    const { value, path } = this.#at(node, key);
    if (typeof actual === "bigint" && (typeof value === "number" || typeof value === "string")) {
      chaiExpect(actual, message ?? path).to.equal(BigInt(value));
    } else {
      chaiExpect(actual, message ?? path).to.deep.equal(value);
    }
    this.#markCompared(value, path);
  }

  /**
   * For comparisons `expect` cannot express (a derived form of the expected value, a pattern, a
   * membership): runs `check` with the leaf `node[key]` and records the leaf as compared once
   * `check` returns. `check` must make at least one chai assertion, otherwise this throws.
   */
  compare(node: VectorNode, key: string | number, check: (expected: VectorNode) => void): void {
    const { value, path } = this.#at(node, key);
    if (isBranch(value)) throw new Error(`compare() takes a leaf; ${path} is an object or array (use expect() for a whole subtree)`);
    const before = assertionCount();
    check(value);
    if (assertionCount() === before) throw new Error(`the check of ${path} made no assertion`);
    this.#markCompared(value, path);
  }

  /** The path of a tracked node, e.g. `/keys/dummy_user_key`. */
  pathOf(node: VectorNode): string {
    const meta = this.#nodes.get(node as object);
    if (!meta) throw new Error("not a node of this vector ledger");
    return meta.path;
  }

  report(): LedgerReport {
    const r: LedgerReport = { expected: 0, compared: 0, inputs: 0, read: 0, uncompared: [], unread: [] };
    this.#leaves(this.#raw, "", (path) => {
      const compared = this.#compared.has(path);
      if (this.#isInput(path)) {
        r.inputs++;
        if (compared || this.#read.has(path)) r.read++;
        else r.unread.push(path);
      } else {
        r.expected++;
        if (compared) r.compared++;
        else r.uncompared.push(path);
      }
    });
    return r;
  }

  #at(node: VectorNode, key: string | number): { value: unknown; path: string } {
    const meta = this.#nodes.get(node as object);
    if (!meta) throw new Error(`not a node of this vector ledger (key ${String(key)})`);
    const k = String(key);
    const path = `${meta.path}/${k}`;
    if (!Object.prototype.hasOwnProperty.call(meta.target, k)) throw new Error(`no vector value at ${path}`);
    if (!Array.isArray(meta.target) && this.#docKeys.has(k)) throw new Error(`${path} is documentation, not a vector value`);
    return { value: meta.target[k], path };
  }

  #markCompared(value: unknown, path: string): void {
    this.#leaves(value, path, (p) => this.#compared.add(p));
  }

  #leaves(value: unknown, path: string, visit: (path: string) => void): void {
    if (isBranch(value)) {
      for (const [k, v] of Object.entries(value)) {
        if (!Array.isArray(value) && this.#docKeys.has(k)) continue;
        this.#leaves(v, `${path}/${k}`, visit);
      }
    } else {
      visit(path);
    }
  }

  #track(value: unknown, path: string): unknown {
    if (!isBranch(value)) return value;
    const cached = this.#proxies.get(value);
    if (cached) return cached;
    const proxy = new Proxy(value, {
      get: (target, key, receiver) => {
        const v = Reflect.get(target, key, receiver) as unknown;
        if (typeof key !== "string" || !Object.prototype.hasOwnProperty.call(target, key)) return v;
        const p = `${path}/${key}`;
        if (!isBranch(v)) this.#read.add(p);
        return this.#track(v, p);
      },
    });
    this.#nodes.set(proxy, { target: value, path });
    this.#proxies.set(value, proxy);
    return proxy;
  }
}

/**
 * The failure message for a report: every expected value not compared and every input not read,
 * one path a line (the first `limit` of them), or null when there is none.
 */
export function ledgerProblems(name: string, r: LedgerReport, limit = 200): string | null {
  const lines = [...r.uncompared.map((p) => `  not compared: ${p}`), ...r.unread.map((p) => `  input not read: ${p}`)];
  if (!lines.length) return null;
  const shown = lines.slice(0, limit);
  if (lines.length > shown.length) shown.push(`  … and ${lines.length - shown.length} more`);
  return `${name}: ${r.uncompared.length} expected values not compared, ${r.unread.length} inputs not read\n${shown.join("\n")}`;
}

/** What {@link vectorRunScope} needs of a mocha suite and its tests. */
export interface SuiteLike {
  tests: { file?: string; state?: string }[];
  suites: SuiteLike[];
  hasOnly?: () => boolean;
}

/**
 * Whether a mocha run covered the whole vector-test set, so that an uncompared expected value
 * or an unread input is a failure and not just a test that was left out: every file in
 * `vectorFiles` (absolute paths) was loaded, no `.only` filtered the tree, and every test of
 * those files ran (a test `--grep`/`--fgrep` left out, or one not reached after `--bail`, has
 * no state). A failed vector test also disables the check: the run fails already, and its
 * later comparisons never ran. A skipped test does not: the values only it compared are then
 * reported, which is the point.
 */
export function vectorRunScope(root: SuiteLike, vectorFiles: readonly string[]): { enforce: true } | { enforce: false; reason: string } {
  if (root.hasOnly?.()) return { enforce: false, reason: ".only restricts the run" };
  const wanted = new Set(vectorFiles);
  const loaded = new Set<string>();
  let notRun = 0;
  let failed = 0;
  const walk = (s: SuiteLike): void => {
    for (const t of s.tests) {
      if (!t.file || !wanted.has(t.file)) continue;
      loaded.add(t.file);
      if (t.state === undefined) notRun++;
      else if (t.state === "failed") failed++;
    }
    s.suites.forEach(walk);
  };
  walk(root);
  const missing = vectorFiles.filter((f) => !loaded.has(f));
  if (missing.length) return { enforce: false, reason: `${missing.length} of ${vectorFiles.length} vector test files not loaded` };
  if (notRun) return { enforce: false, reason: `${notRun} vector tests did not run (--grep, --fgrep or --bail)` };
  if (failed) return { enforce: false, reason: `${failed} vector tests failed` };
  return { enforce: true };
}
