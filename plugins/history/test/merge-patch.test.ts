import { expect } from "chai";
import { applyMergePatch, patchMetadata } from "../src/index.js";

describe("RFC 7396 merge patch", () => {
  // The examples of RFC 7396 Appendix A.
  const cases: [unknown, unknown, unknown][] = [
    [{ a: "b" }, { a: "c" }, { a: "c" }],
    [{ a: "b" }, { b: "c" }, { a: "b", b: "c" }],
    [{ a: "b" }, { a: null }, {}],
    [{ a: "b", b: "c" }, { a: null }, { b: "c" }],
    [{ a: ["b"] }, { a: "c" }, { a: "c" }],
    [{ a: "c" }, { a: ["b"] }, { a: ["b"] }],
    [{ a: { b: "c" } }, { a: { b: "d", c: null } }, { a: { b: "d" } }],
    [{ a: [{ b: "c" }] }, { a: [1] }, { a: [1] }],
    [["a", "b"], ["c", "d"], ["c", "d"]],
    [{ a: "b" }, ["c"], ["c"]],
    [{ a: "foo" }, null, null],
    [{ a: "foo" }, "bar", "bar"],
    [{ e: null }, { a: 1 }, { e: null, a: 1 }],
    [[1, 2], { a: "b", c: null }, { a: "b" }],
    [{}, { a: { bb: { ccc: null } } }, { a: { bb: {} } }],
  ];
  for (const [target, patch, result] of cases) {
    it(`${JSON.stringify(target)} + ${JSON.stringify(patch)} = ${JSON.stringify(result)}`, () => {
      expect(applyMergePatch(target, patch)).to.deep.equal(result);
    });
  }

  it("wipes movement metadata to {} for a non-object patch, as barkd does", () => {
    expect(patchMetadata({ a: 1 }, ["x"])).to.deep.equal({});
    expect(patchMetadata({ a: 1 }, null)).to.deep.equal({});
    expect(patchMetadata({ a: 1 }, "s")).to.deep.equal({});
    expect(patchMetadata({ a: 1, b: { c: 2 } }, { b: { d: 3 } })).to.deep.equal({ a: 1, b: { c: 2, d: 3 } });
  });
});
