/** Fee vectors (`fees` group) and the fee rules of bark's `ark::fees`. */
import { expect } from "chai";
import { hexToBytes } from "@noble/hashes/utils.js";
import { arkVectors, expectVector } from "./ark-vectors.js";
import {
  InvalidFeeScheduleError,
  boardFee,
  captaindDefaultFeeSchedule,
  feeRateFromFeeAndWeightCeil,
  lightningReceiveFee,
  lightningSendFee,
  offboardFee,
  ppmExpiryFee,
  refreshFee,
  satFromMsatCeil,
  satFromMsatFloor,
  satPerKvbToSatPerKwuCeil,
  satPerVbToSatPerKwu,
  validatePpmExpiryTable,
  type FeeInput,
  type PpmExpiryEntry,
} from "../src/fees.js";
import { InsufficientFundsError, selectVtxos, type SelectableVtxo } from "../src/fees-selection.js";

const F = arkVectors.fees;
const table = (rows: [number, number][]): PpmExpiryEntry[] => rows.map(([t, p]) => ({ expiryBlocksThreshold: t, ppm: BigInt(p) }));
const inputs = (rows: [number, number][]): FeeInput[] => rows.map(([a, b]) => ({ amount: BigInt(a), blocksToExpiry: b }));

describe("fees (bark's `ark::fees`, vector group `fees`)", () => {
  it("board fee: max(min_fee, base + ceil ppm)", () => {
    for (const c of F.board) {
      const fee = boardFee({ minFeeSat: BigInt(c.min_fee), baseFeeSat: BigInt(c.base_fee), ppm: BigInt(c.ppm) }, BigInt(c.amount));
      expectVector(fee, c, "expected_fee");
    }
  });

  it("Lightning receive fee: base + ceil ppm", () => {
    for (const c of F.lightning_receive) {
      expectVector(lightningReceiveFee({ baseFeeSat: BigInt(c.base_fee), ppm: BigInt(c.ppm) }, BigInt(c.amount)), c, "expected_fee");
    }
  });

  it("offboard fee: base + weight part + ppm expiry on the chargeable amount", () => {
    for (const c of F.offboard) {
      const fee = offboardFee(
        { baseFeeSat: BigInt(c.base_fee), fixedAdditionalVb: BigInt(c.fixed_additional_vb), ppmExpiryTable: table(c.table) },
        BigInt(c.amount),
        hexToBytes(c.destination_script_hex),
        satPerVbToSatPerKwu(BigInt(c.fee_rate_sat_per_vb)),
        inputs(c.vtxos),
      );
      expectVector(fee, c, "expected_fee");
    }
  });

  it("refresh fee: base + ppm expiry of every input", () => {
    for (const c of F.refresh) {
      expectVector(refreshFee({ baseFeeSat: BigInt(c.base_fee), ppmExpiryTable: table(c.table) }, inputs(c.vtxos)), c, "expected_fee");
    }
  });

  it("Lightning send fee: max(min_fee, base + ppm expiry on the amount)", () => {
    for (const c of F.lightning_send) {
      const fee = lightningSendFee(
        { minFeeSat: BigInt(c.min_fee), baseFeeSat: BigInt(c.base_fee), ppmExpiryTable: table(c.table) },
        BigInt(c.amount),
        inputs(c.vtxos),
      );
      expectVector(fee, c, "expected_fee");
    }
  });

  it("ppm expiry fee: buckets, chargeable cap, one rounding up, independent of input order", () => {
    for (const c of F.ppm_expiry_fee) {
      const chargeable = c.chargeable_amount === null ? undefined : BigInt(c.chargeable_amount);
      const ins = inputs(c.vtxos);
      expectVector(ppmExpiryFee(table(c.table), ins, chargeable), c, "expected_fee");
      expectVector(ppmExpiryFee(table(c.table), [...ins].reverse(), chargeable), c, "expected_fee");
    }
  });

  it("feerate conversions: sat/kvB → sat/kwu and fee/weight, rounded up", () => {
    const R = F.fee_rate_conversions;
    // rows are [sat/kvB, sat/kwu]
    for (const row of R.from_amount_per_kvb_ceil) expectVector(satPerKvbToSatPerKwuCeil(BigInt(row[0])), row, 1);
    for (const c of R.from_amount_and_weight_ceil) {
      const got = feeRateFromFeeAndWeightCeil(BigInt(c.fee), BigInt(c.weight_wu));
      // null in the vector: no fee rate (zero weight); the function answers undefined
      if (c.sat_per_kwu === null) expect(got).to.equal(undefined);
      expectVector(got ?? null, c, "sat_per_kwu");
    }
    for (const c of R.amount_from_msat) {
      expectVector(satFromMsatCeil(BigInt(c.msat)), c, "ceil");
      expectVector(satFromMsatFloor(BigInt(c.msat)), c, "floor");
    }
  });

  it("captaind default schedule: worked board, refresh, offboard and Lightning fees", () => {
    const s = captaindDefaultFeeSchedule();
    expect(boardFee(s.board, 100_000n)).to.equal(330n);
    expect(boardFee(s.board, 1_000_000n)).to.equal(1_100n);
    expect(refreshFee(s.refresh, inputs([[1_000_000, 3000]]))).to.equal(8_150n);
    expect(refreshFee(s.refresh, inputs([[1_000_000, 150]]))).to.equal(1_150n);
    expect(refreshFee(s.refresh, inputs([[1_000_000, 50]]))).to.equal(150n);
    expect(offboardFee(s.offboard, 1_000_000n, new Uint8Array(34), satPerVbToSatPerKwu(10n), inputs([[1_000_000, 3000]]))).to.equal(10_660n);
    expect(lightningSendFee(s.lightningSend, 100_000n, inputs([[500_000, 150]]))).to.equal(175n);
    expect(lightningReceiveFee(s.lightningReceive, 100_000n)).to.equal(300n);
  });

  it("refuses tables with descending thresholds or decreasing ppm (equal neighbours are fine)", () => {
    expect(() => validatePpmExpiryTable(table([[100, 10], [50, 20]]))).to.throw(InvalidFeeScheduleError);
    expect(() => validatePpmExpiryTable(table([[50, 20], [100, 10]]))).to.throw(InvalidFeeScheduleError);
    expect(() => validatePpmExpiryTable(table([[50, 20], [100, 20]]))).to.not.throw();
    expect(() => validatePpmExpiryTable(table([[50, 20], [50, 30]]))).to.not.throw();
    expect(() => validatePpmExpiryTable([])).to.not.throw();
  });
});

describe("fee-aware input selection (soonest expiry first, fee iterated)", () => {
  const v = (id: string, amount: number, expiryHeight: number, exitDepth = 1): SelectableVtxo => ({ id, amount: BigInt(amount), expiryHeight, exitDepth });

  it("takes soonest-expiring first, deeper exit depth first on ties", () => {
    const r = selectVtxos([v("late", 5000, 900), v("soon-shallow", 1000, 100, 1), v("soon-deep", 1000, 100, 5)], 1500n);
    expect(r.selected.map((x) => x.id)).to.deep.equal(["soon-deep", "soon-shallow"]);
    expect(r.total).to.equal(2000n);
  });

  it("skips candidates at or beyond the max exit depth", () => {
    const r = selectVtxos([v("deep", 10_000, 1, 100), v("ok", 3000, 2, 99)], 2000n, { maxExitDepth: 100 });
    expect(r.selected.map((x) => x.id)).to.deep.equal(["ok"]);
  });

  it("with max inputs, a larger candidate replaces the smallest selected one", () => {
    const r = selectVtxos([v("a", 100, 1), v("b", 200, 2), v("c", 5000, 3)], 4000n, { maxInputs: 2 });
    expect(r.selected.map((x) => x.id).sort()).to.deep.equal(["b", "c"]);
    expect(() => selectVtxos([v("a", 100, 1), v("b", 200, 2), v("c", 300, 3)], 4000n, { maxInputs: 2 })).to.throw(
      InsufficientFundsError,
      "Needed 4000 but the best 2 inputs only amount to 500",
    );
  });

  it("on equal smallest amounts the latest-expiring one is replaced; the result is soonest-expiring first", () => {
    const r = selectVtxos([v("a", 100, 1), v("b", 100, 2), v("c", 500, 3), v("d", 600, 4)], 1_000n, { maxInputs: 2 });
    expect(r.selected.map((x) => x.id)).to.deep.equal(["c", "d"]);
    const tie = selectVtxos([v("a", 100, 1), v("b", 100, 2), v("c", 300, 3)], 400n, { maxInputs: 2 });
    expect(tie.selected.map((x) => x.id)).to.deep.equal(["a", "c"]);
    expect(() => selectVtxos([v("a", 100, 1), v("b", 100, 2)], 400n, { maxInputs: 2 })).to.throw(InsufficientFundsError, "Needed 400 but 200 is available");
  });

  it("iterates until the selection covers amount + fee of that selection", () => {
    const send = { minFeeSat: 10n, baseFeeSat: 75n, ppmExpiryTable: table([[0, 10_000]]) };
    const cands = [v("a", 100_000, 1000), v("b", 1500, 1001), v("c", 50_000, 1002)];
    const r = selectVtxos(cands, 100_000n, {
      fee: (sel) => lightningSendFee(send, 100_000n, sel.map((s) => ({ amount: s.amount, blocksToExpiry: s.expiryHeight }))),
    });
    expect(r.fee).to.equal(1075n);
    expect(r.selected.map((x) => x.id)).to.deep.equal(["a", "b"]);
    expect(r.total >= 100_000n + r.fee).to.equal(true);
  });

  it("reports the shortfall when funds are insufficient", () => {
    expect(() => selectVtxos([v("a", 100, 1)], 1000n)).to.throw(InsufficientFundsError, "Needed 1000 but 100 is available");
  });
});
