import { expect } from "chai";
import { categorize, trimProfile, type CpuProfile } from "../src/bench/cpu-profile.js";

/** Root → work (a file of ours) and root → (idle); samples every 10 ms from t = 1,000,000 µs. */
function profile(samples: number[], deltas: number[]): CpuProfile {
  return {
    nodes: [
      { id: 1, callFrame: { functionName: "(root)", url: "" }, children: [2, 3] },
      { id: 2, callFrame: { functionName: "post", url: "node:inspector" } },
      { id: 3, callFrame: { functionName: "work", url: "file:///x/work.js" } },
    ],
    samples, timeDeltas: deltas, startTime: 1_000_000, endTime: 2_000_000,
  };
}

describe("bench CPU profiles", () => {
  it("trimming drops the samples before the work started and cuts the first kept interval there", () => {
    // one long sample inside the profiler's start (367 ms), then the work sampled every 10 ms
    const p = profile([2, 3, 3, 3], [367_000, 10_000, 10_000, 10_000]);
    const t = trimProfile(p, 1_370_000);
    expect(t.samples).to.deep.equal([3, 3, 3]);
    expect(t.timeDeltas).to.deep.equal([7_000, 10_000, 10_000]);
    expect(t.startTime).to.equal(1_370_000);
    expect([...categorize(t)]).to.deep.equal([["other", 27]]);
    // untrimmed, the profiler's start counted as 367 ms of busy time
    expect(categorize(p).get("other")).to.equal(397);
  });
});
