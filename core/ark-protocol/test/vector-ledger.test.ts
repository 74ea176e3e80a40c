/** The vector ledger itself, on a small fake vector tree (not the real vector file). */
import { AssertionError, expect } from "chai";
import { VectorLedger, ledgerProblems, patternMatcher, vectorRunScope, type SuiteLike } from "./vector-ledger.js";

const fakeVectors = () => ({
  what: "prose about the vectors: not part of the ledger",
  cases: [
    { name: "one", input: 2, out: "4", what: "per-case prose" },
    { name: "two", input: 3, out: "9" },
  ],
  table: { rows: [1, 2, 3] },
  amount: 21_000_000,
});
const INPUTS = ["/cases/*/{name,input}"];

/** Compares every expected value of the fake tree and reads every input. */
function compareAll(l: VectorLedger): void {
  for (const c of l.tree.cases) l.expect(String(c.input * c.input), c, "out", `case ${c.name}`);
  l.expect([1, 2, 3], l.tree.table, "rows");
  l.expect(21_000_000n, l.tree, "amount");
}

describe("vector ledger (compared vs read, and when a run must have compared everything)", () => {
  it("every expected value compared and every input read: nothing to report", () => {
    const l = new VectorLedger(fakeVectors(), { docKeys: ["what"], inputs: INPUTS });
    compareAll(l);
    const r = l.report();
    expect(r).to.deep.equal({ expected: 6, compared: 6, inputs: 4, read: 4, uncompared: [], unread: [] });
    expect(ledgerProblems("fake", r)).to.equal(null);
  });

  it("one expected value left uncompared: the report and the failure name exactly that path", () => {
    const l = new VectorLedger(fakeVectors(), { docKeys: ["what"], inputs: INPUTS });
    const [one, two] = l.tree.cases;
    l.expect(String(one.input * one.input), one, "out", `case ${one.name}`);
    expect(two.out).to.equal("9"); // read and even asserted, but not through the ledger: not compared
    expect([two.name, two.input]).to.deep.equal(["two", 3]);
    l.expect([1, 2, 3], l.tree.table, "rows");
    l.expect(21_000_000n, l.tree, "amount");
    const r = l.report();
    expect(r.uncompared).to.deep.equal(["/cases/1/out"]);
    expect(r.unread).to.deep.equal([]);
    expect(ledgerProblems("fake", r)).to.equal("fake: 1 expected values not compared, 0 inputs not read\n  not compared: /cases/1/out");
  });

  it("an input nobody read is reported; reading it is enough", () => {
    const l = new VectorLedger(fakeVectors(), { docKeys: ["what"], inputs: INPUTS });
    for (const c of l.tree.cases) l.expect(c === l.tree.cases[0] ? "4" : "9", c, "out");
    l.expect([1, 2, 3], l.tree.table, "rows");
    l.expect(21_000_000n, l.tree, "amount");
    expect(l.tree.cases[0].name).to.equal("one");
    expect(l.tree.cases[1].name).to.equal("two");
    expect(l.tree.cases[0].input).to.equal(2);
    expect(l.report().unread).to.deep.equal(["/cases/1/input"]);
    expect(ledgerProblems("fake", l.report())).to.equal("fake: 0 expected values not compared, 1 inputs not read\n  input not read: /cases/1/input");
  });

  it("a failed comparison throws and records nothing", () => {
    const l = new VectorLedger(fakeVectors(), { docKeys: ["what"], inputs: INPUTS });
    expect(() => l.expect("5", l.tree.cases[0], "out")).to.throw(AssertionError, "/cases/0/out");
    expect(() => l.expect(21_000_001n, l.tree, "amount")).to.throw(AssertionError);
    expect(() => l.expect([1, 2], l.tree.table, "rows")).to.throw(AssertionError);
    expect(l.report().compared).to.equal(0);
  });

  it("expect() on a subtree compares every leaf; documentation keys are outside the ledger and cannot be compared", () => {
    const l = new VectorLedger(fakeVectors(), { docKeys: ["what"], inputs: INPUTS });
    l.expect(fakeVectors().cases, l.tree, "cases");
    expect(l.report().uncompared).to.deep.equal(["/table/rows/0", "/table/rows/1", "/table/rows/2", "/amount"]);
    expect(() => l.expect("prose", l.tree, "what")).to.throw(/documentation/);
    expect(() => l.expect(1, l.tree, "missing")).to.throw(/no vector value at \/missing/);
    expect(() => l.expect(1, { not: "a ledger node" }, "not")).to.throw(/not a node/);
  });

  it("compare() records a leaf only after a check that asserted; it refuses a check without assertion and a subtree", () => {
    const l = new VectorLedger(fakeVectors(), { docKeys: ["what"], inputs: INPUTS });
    const one = l.tree.cases[0];
    expect(() => l.compare(one, "out", () => undefined)).to.throw(/made no assertion/);
    expect(() => l.compare(one, "out", (v) => expect(v).to.equal("5"))).to.throw(AssertionError);
    expect(() => l.compare(l.tree, "table", () => expect(1).to.equal(1))).to.throw(/takes a leaf/);
    expect(l.report().compared).to.equal(0);
    l.compare(one, "out", (v: string) => expect(Number(v)).to.equal(4));
    expect(l.report().compared).to.equal(1);
    expect(l.pathOf(one)).to.equal("/cases/0");
  });

  it("path patterns: one segment, any depth, alternatives", () => {
    const m = patternMatcher(["/a/*/x", "/b/**/y", "/c/{p,q}"]);
    expect([m("/a/0/x"), m("/a/0/1/x"), m("/b/y"), m("/b/1/2/y"), m("/c/p"), m("/c/q"), m("/c/r"), m("/c/p/q")]).to.deep.equal([true, false, true, true, true, true, false, false]);
  });

  describe("vectorRunScope (is this run the whole vector-test set?)", () => {
    const files = ["/t/a.test.js", "/t/b.test.js"];
    const suite = (tests: { file?: string; state?: string }[], only = false): SuiteLike => ({
      tests: [],
      suites: [{ tests, suites: [] }],
      hasOnly: () => only,
    });

    it("every test of every vector file ran: enforced, also with skipped tests and tests of other files", () => {
      const root = suite([{ file: files[0], state: "passed" }, { file: files[1], state: "pending" }, { file: "/other.test.js" }]);
      expect(vectorRunScope(root, files)).to.deep.equal({ enforce: true });
    });

    it("a vector file not loaded, a test left out by --grep, .only or a failed test: not enforced", () => {
      expect(vectorRunScope(suite([{ file: files[0], state: "passed" }]), files)).to.deep.equal({ enforce: false, reason: "1 of 2 vector test files not loaded" });
      expect(vectorRunScope(suite([{ file: files[0], state: "passed" }, { file: files[1] }]), files)).to.include({ enforce: false });
      expect(vectorRunScope(suite([{ file: files[0], state: "passed" }, { file: files[1], state: "passed" }], true), files)).to.include({ enforce: false });
      expect(vectorRunScope(suite([{ file: files[0], state: "failed" }, { file: files[1], state: "passed" }]), files)).to.deep.equal({ enforce: false, reason: "1 vector tests failed" });
    });
  });
});
