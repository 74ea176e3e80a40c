import { expect } from "chai";
import { RecentMap } from "../src/index.js";

describe("RecentMap (bounded, least recently used out first)", () => {
  it("forgets the least recently used entry when full; reading or writing an entry makes it the most recent", () => {
    const m = new RecentMap<string, number>(3);
    m.set("a", 1);
    m.set("b", 2);
    m.set("c", 3);
    expect(m.get("a")).to.equal(1); // a is now the most recent: b is the oldest
    m.set("d", 4);
    expect([m.get("b"), m.size]).to.deep.equal([undefined, 3]);
    m.set("c", 30); // c rewritten: now the most recent, a the oldest
    m.set("e", 5);
    expect([m.get("a"), m.get("c"), m.get("d"), m.get("e")]).to.deep.equal([undefined, 30, 4, 5]);
    expect(m.set("f", 6)).to.equal(6);
    m.clear();
    expect([m.size, m.get("f")]).to.deep.equal([0, undefined]);
  });

  it("refuses a capacity that is not a positive integer", () => {
    for (const c of [0, -1, 1.5, Number.NaN]) expect(() => new RecentMap(c), String(c)).to.throw(RangeError);
  });
});
