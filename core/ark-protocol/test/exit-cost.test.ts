/** Rough exit cost and the refresh decision (as in bark's `bark::vtxo::selection`). */
import { expect } from "chai";
import { arkVectors } from "./ark-vectors.js";
import { fromHex } from "../src/encoding.js";
import { decodeVtxo } from "../src/vtxo.js";
import { exitTransactions } from "../src/vtxo-exit.js";
import { txWeight } from "../src/exit-weight.js";
import { ExitStartError, checkExitStart, exitChainWeight, refreshNeed, roughExitCost } from "../src/exit-cost.js";

const V2 = arkVectors.vtxo_encoding.encoding_version_2;
const vtxo = (name: string) => decodeVtxo(fromHex((V2.vtxos as { name: string; hex: string }[]).find((v) => v.name === name)!.hex));

describe("exit cost and refresh decisions (must / should refresh)", () => {
  const deep = vtxo("arkoor2_vtxo"); // depth 5, expiry 101010, 8000 sat
  const base = { tipHeight: 100_000, maxVtxoExitDepth: 100, refreshExpiryThreshold: 144, feeRateSatPerKwu: 250n };

  it("rough exit cost = 2 × feerate × Σ weight of the exit txs", () => {
    const w = exitTransactions(deep).reduce((s, t) => s + txWeight(t), 0);
    expect(exitChainWeight(deep)).to.equal(w);
    expect(roughExitCost(deep, 1000n)).to.equal(2n * BigInt(w)); // 1000 sat/kwu = 1 sat per WU
    expect(roughExitCost(deep, 250n)).to.equal(2n * BigInt(Math.ceil(w / 4)));
    expect(w).to.be.greaterThan(5 * 4 * 100);
  });

  it("must refresh at the depth limit or inside the expiry threshold; should refresh in the wider windows", () => {
    expect(refreshNeed(deep, base).need).to.equal("no");
    expect(refreshNeed(deep, { ...base, maxVtxoExitDepth: 5 })).to.deep.equal({ need: "must", reason: "exit depth at the maximum" });
    expect(refreshNeed(deep, { ...base, tipHeight: 101_010 - 143 }).need).to.equal("must");
    expect(refreshNeed(deep, { ...base, tipHeight: 101_010 - 144 }).need).to.equal("should");
    expect(refreshNeed(deep, { ...base, tipHeight: 101_010 - 171 }).need).to.equal("should");
    expect(refreshNeed(deep, { ...base, tipHeight: 101_010 - 172 }).need).to.equal("no");
    expect(refreshNeed(deep, { ...base, maxVtxoExitDepth: 10 }).reason).to.equal("exit depth past half the maximum");
    expect(refreshNeed(deep, { ...base, feeRateSatPerKwu: 100_000n }).reason).to.equal("uneconomical to exit");
    expect(refreshNeed({ ...deep, amount: 329n }, base).reason).to.equal("dust");
  });

  it("an exit starts only for ≥ 330 sat and a standard exit chain (unless the check is skipped)", () => {
    expect(() => checkExitStart(deep)).to.not.throw();
    expect(() => checkExitStart({ ...deep, amount: 329n })).to.throw(ExitStartError, "dust");
    const item = deep.genesis[0]!;
    const weird = { ...deep, genesis: [{ ...item, otherOutputs: [...item.otherOutputs, { value: 1_000n, script: Uint8Array.of(0x51) }] }, ...deep.genesis.slice(1)] };
    expect(() => checkExitStart(weird)).to.throw(ExitStartError, "genesis item 0");
    expect(() => checkExitStart(weird, { skipStandardCheck: true })).to.not.throw();
  });
});
