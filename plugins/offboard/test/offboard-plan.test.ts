import { expect } from "chai";
import { connectorScript, type Vtxo } from "@tender/ark-protocol";
import {
  OffboardRefusedError, estimateSendOnchain, estimateWholeOffboard, planSendOnchain, planWholeOffboard, type PlanContext,
} from "../src/offboard-plan.js";
import { randomKey } from "./fakes.js";

/** A VTXO as the planner sees it: amount, expiry and exit depth (the genesis length). */
const v = (id: string, amount: bigint, expiryHeight = 2_000, depth = 1) => ({ id, vtxo: { amount, expiryHeight, genesis: new Array(depth).fill(null) } as unknown as Vtxo });

const P2TR = connectorScript(randomKey().pk);
const ctx = (over: Partial<PlanContext["info"]> = {}): PlanContext => ({
  info: {
    serverPubkey: randomKey().pk, maxOffboardInputs: 3, maxVtxoExitDepth: 0,
    fees: { baseFeeSat: 200n, fixedAdditionalVb: 212n, ppmExpiryTable: [{ expiryBlocksThreshold: 0, ppm: 0n }, { expiryBlocksThreshold: 97, ppm: 1_000n }, { expiryBlocksThreshold: 2161, ppm: 8_000n }] },
    ...over,
  },
  feeRateSatPerKwu: 2_500n, // 10 sat/vB
  tipHeight: 1_000,
  script: P2TR,
});

describe("offboard plans and estimates", () => {
  it("a whole offboard charges base + weight + ppm over every input and pays the rest (the fee schedule's worked example)", () => {
    const c = ctx();
    const plan = planWholeOffboard({ ...c, tipHeight: 0 }, [v("a", 1_000_000n, 3_000)]);
    expect(plan).to.deep.equal({ grossSat: 1_000_000n, feeSat: 200n + 10n * (212n + 34n) + 8_000n, netSat: 1_000_000n - 10_660n });
    expect(estimateWholeOffboard({ ...c, tipHeight: 0 }, [v("a", 1_000_000n, 3_000)])).to.deep.equal({ grossSat: 1_000_000n, feeSat: 10_660n, netSat: 989_340n, vtxosSpent: ["a"] });
  });

  it("refuses with barkd's texts: too many inputs, a fee that leaves dust or exceeds the amount, duplicate inputs", () => {
    const c = ctx();
    expect(() => planWholeOffboard(c, [v("a", 9_000n), v("b", 9_000n), v("c", 9_000n), v("d", 9_000n)])).to.throw(OffboardRefusedError, "max inputs for offboard is 3, 4 were provided");
    expect(() => planWholeOffboard(c, [v("a", 2_900n)])).to.throw(OffboardRefusedError,
      "offboard fee leaves dust: Amount after fee (0.00000237 BTC) is below dust limit (0.00000330 BTC). Amount: 0.00002900 BTC, Fee: 0.00002663 BTC");
    expect(() => planWholeOffboard(c, [])).to.throw(OffboardRefusedError, "offboard fee leaves dust: Fee (0.00002660 BTC) exceeds amount (0.00000000 BTC)");
    expect(() => planWholeOffboard(c, [v("a", 90_000n), v("a", 90_000n)])).to.throw(OffboardRefusedError, "offboard inputs must not contain duplicates");
    // the estimate still answers, net saturating at 0
    expect(estimateWholeOffboard(c, [v("a", 2_000n)]).netSat).to.equal(0n);
  });

  it("send-onchain: refuses dust, selects soonest-expiring inputs covering amount + fee, splits the change", () => {
    const c = ctx();
    expect(() => planSendOnchain(c, "bcrt1pdest", [v("a", 100_000n)], 329n, 2)).to.throw(OffboardRefusedError, "the minimum you can send to bcrt1pdest is 0.00000330 BTC");
    const plan = planSendOnchain(c, "bcrt1pdest", [v("late", 500_000n, 5_000), v("soon", 60_000n, 1_500), v("mid", 60_000n, 2_000)], 100_000n, 2);
    expect(plan.inputs.map((i) => i.id)).to.deep.equal(["soon", "mid"]);
    // 200 + 2460 + ⌈100 000 × 1000 / 10⁶⌉ (the amount is what is chargeable)
    expect(plan.feeSat).to.equal(2_760n);
    expect(plan.changeSat.reduce((t, x) => t + x, 0n)).to.equal(120_000n - 100_000n - 2_760n);
    expect(() => planSendOnchain(c, "bcrt1pdest", [v("a", 50_000n)], 60_000n, 2)).to.throw(OffboardRefusedError, "Insufficient money available. Needed 60000 but 50000 is available");
  });

  it("send-onchain skips VTXOs at the server's exit-depth limit", () => {
    const c = ctx({ maxVtxoExitDepth: 5 });
    const deep = v("deep", 900_000n, 1_100, 5);
    const shallow = v("shallow", 200_000n, 3_000, 4);
    expect(planSendOnchain(c, "d", [deep, shallow], 100_000n, 1).inputs.map((i) => i.id)).to.deep.equal(["shallow"]);
    expect(estimateSendOnchain(c, [deep, shallow], 100_000n).vtxosSpent).to.deep.equal(["shallow"]);
    expect(() => planSendOnchain(c, "d", [deep], 100_000n, 1)).to.throw(OffboardRefusedError, /Insufficient money available/);
  });

  it("the send-onchain estimate equals the plan, and without funds prices one virtual input at the highest tier", () => {
    const c = ctx();
    const vtxos = [v("a", 300_000n, 1_200)];
    const plan = planSendOnchain(c, "d", vtxos, 100_000n, 2);
    expect(estimateSendOnchain(c, vtxos, 100_000n)).to.deep.equal({ grossSat: 100_000n + plan.feeSat, feeSat: plan.feeSat, netSat: 100_000n, vtxosSpent: ["a"] });
    // no funds: 200 + 2460 + 8000 ppm of the amount
    expect(estimateSendOnchain(c, [], 100_000n)).to.deep.equal({ grossSat: 100_000n + 3_460n, feeSat: 3_460n, netSat: 100_000n, vtxosSpent: [] });
  });
});
