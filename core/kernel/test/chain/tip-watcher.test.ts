import { expect } from "chai";
import { ChainSourceUnavailableError, TipWatcher, type BlockRef, type ChainSource } from "../../src/chain/index.js";

/** A source whose tip is whatever the test sets (or an outage). */
function scriptedSource(): { source: ChainSource; set(tip: BlockRef | Error): void } {
  let current: BlockRef | Error = { height: 1, hash: "a" };
  const source = { getTip: async () => { if (current instanceof Error) throw current; return current; } } as unknown as ChainSource;
  return { source, set: (t) => (current = t) };
}

describe("TipWatcher", () => {
  it("reports each new tip once, including a same-height reorg, and keeps polling through errors", async () => {
    const s = scriptedSource();
    const seen: BlockRef[] = [];
    const errors: unknown[] = [];
    const watcher = new TipWatcher(s.source, { intervalMs: 5, onTip: (t) => seen.push(t), onError: (e) => errors.push(e) });
    await watcher.check();
    await watcher.check();
    s.set({ height: 2, hash: "b" });
    await watcher.check();
    s.set({ height: 2, hash: "b2" });
    await watcher.check();
    expect(seen.map((t) => t.hash)).to.deep.equal(["a", "b", "b2"]);
    s.set(new ChainSourceUnavailableError("http://x", "connection", "down"));
    watcher.start();
    await new Promise((r) => setTimeout(r, 30));
    s.set({ height: 3, hash: "c" });
    await new Promise((r) => setTimeout(r, 30));
    watcher.stop();
    expect(errors.length).to.be.greaterThan(0);
    expect(seen.map((t) => t.hash)).to.deep.equal(["a", "b", "b2", "c"]);
    expect(watcher.tip?.hash).to.equal("c");
  });
});
