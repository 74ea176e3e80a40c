import { expect } from "chai";
import { dustThreshold } from "../../src/policy/standard.js";
import { fromHex as hex } from "../../src/consensus/bytes.js";

describe("devnet policy: dust thresholds at 3 sat/vB", function () {
  it("matches Bitcoin Core's thresholds per output type", () => {
    expect(dustThreshold(hex("76a914" + "00".repeat(20) + "88ac"))).to.equal(546n);
    expect(dustThreshold(hex("a914" + "00".repeat(20) + "87"))).to.equal(540n);
    expect(dustThreshold(hex("0014" + "00".repeat(20)))).to.equal(294n);
    expect(dustThreshold(hex("0020" + "00".repeat(32)))).to.equal(330n);
    expect(dustThreshold(hex("5120" + "00".repeat(32)))).to.equal(330n);
    expect(dustThreshold(hex("51024e73"))).to.equal(240n);
    expect(dustThreshold(hex("6a0401020304"))).to.equal(0n);
  });
});
