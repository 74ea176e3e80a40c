import { expect } from "chai";
import { vtxoIdString } from "@tender/ark-protocol";
import { maintenanceSelection } from "../src/maintenance-selection.js";
import { randomKey, signedBoard } from "./fixtures.js";

const user = randomKey();
const candidate = (amount: bigint, expiry: number) => {
  const vtxo = signedBoard(user, amount, expiry);
  return { id: vtxoIdString(vtxo), vtxo };
};
// tip 1000, threshold 24: must when expiry < 1024, should when expiry < 1052
const params = { tipHeight: 1000, refreshExpiryThreshold: 24, maxVtxoExitDepth: 100, feeRateSatPerKwu: 250n };

describe("maintenance refresh selection (must and should sets)", () => {
  it("selects nothing when no VTXO must be refreshed, even if some should be", () => {
    const soon = candidate(500_000n, 1040); // should: within threshold + 28
    const far = candidate(500_000n, 5000);
    expect(maintenanceSelection([soon, far], params)).to.deep.equal([]);
  });

  it("takes every must VTXO and the should ones along, in candidate order, and leaves the rest", () => {
    const far = candidate(500_000n, 5000);
    const soon = candidate(500_000n, 1040);
    const expiring = candidate(500_000n, 1010);
    expect(maintenanceSelection([far, soon, expiring], params)).to.deep.equal([soon.id, expiring.id]);
  });

  it("counts the threshold boundary as barkd does: expiry − threshold == tip is not yet a must", () => {
    const edge = candidate(500_000n, 1024);
    const past = candidate(500_000n, 1023);
    expect(maintenanceSelection([edge], params)).to.deep.equal([]);
    expect(maintenanceSelection([edge, past], params)).to.deep.equal([edge.id, past.id]);
  });

  it("takes dust VTXOs and VTXOs too small to exit economically along with a must", () => {
    const expiring = candidate(500_000n, 1010);
    const dust = candidate(200n, 5000);
    const uneconomical = candidate(1_000n, 5000); // twice its exit chain costs more than 1000 sat at 25 000 sat/kWu
    const healthy = candidate(500_000n, 5000);
    expect(maintenanceSelection([dust, uneconomical, healthy, expiring], { ...params, feeRateSatPerKwu: 25_000n })).to.deep.equal([dust.id, uneconomical.id, expiring.id]);
  });

  it("must-refreshes a VTXO whose exit depth reached the server's maximum", () => {
    const deep = candidate(500_000n, 5000); // a board has depth 1
    expect(maintenanceSelection([deep], { ...params, maxVtxoExitDepth: 1 })).to.deep.equal([deep.id]);
    expect(maintenanceSelection([deep], { ...params, maxVtxoExitDepth: 3 })).to.deep.equal([]);
  });
});
