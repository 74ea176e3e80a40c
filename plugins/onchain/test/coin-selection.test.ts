import { expect } from "chai";
import { InsufficientFundsError, selectCoins, type WalletUtxo } from "../src/index.js";
import { P2TR_KEYPATH_INPUT_WEIGHT, feeFor, outputWeight, overheadWeight } from "../src/tx-size.js";

const P2TR = new Uint8Array(34).fill(1);
P2TR[0] = 0x51; P2TR[1] = 0x20;

function utxo(valueSat: bigint, confirmed = true, n = 0): WalletUtxo {
  return { txid: n.toString(16).padStart(64, "0"), vout: 0, valueSat, keyIndex: n, script: P2TR, confirmationHeight: confirmed ? 10 : null, trusted: true, isCoinbase: false };
}

describe("coin selection", () => {
  const payTo = (valueSat: bigint) => ({ outputs: [{ script: P2TR, valueSat }], satPerVb: 2, changeScript: P2TR });

  it("makes change when it is above dust and pays exactly the size-based fee", () => {
    const sel = selectCoins([utxo(100_000n)], payTo(40_000n));
    const weight = overheadWeight(1, 2) + P2TR_KEYPATH_INPUT_WEIGHT + 2 * outputWeight(34);
    expect(sel.feeSat).to.equal(feeFor(weight, 2));
    expect(sel.changeSat).to.equal(100_000n - 40_000n - sel.feeSat);
  });

  it("drops change that would be dust and gives the excess to the fee instead", () => {
    const noChangeFee = feeFor(overheadWeight(1, 1) + P2TR_KEYPATH_INPUT_WEIGHT + outputWeight(34), 2);
    const sel = selectCoins([utxo(50_000n)], payTo(50_000n - noChangeFee - 100n));
    expect(sel.changeSat).to.equal(0n);
    expect(sel.feeSat).to.equal(noChangeFee + 100n);
  });

  it("prefers confirmed coins to unconfirmed change, and the largest first", () => {
    const sel = selectCoins([utxo(90_000n, false, 1), utxo(30_000n, true, 2), utxo(60_000n, true, 3)], payTo(50_000n));
    expect(sel.inputs.map((u) => u.keyIndex)).to.deep.equal([3]);
    const two = selectCoins([utxo(90_000n, false, 1), utxo(30_000n, true, 2), utxo(60_000n, true, 3)], payTo(80_000n));
    expect(two.inputs.map((u) => u.keyIndex)).to.deep.equal([3, 2]);
  });

  it("refuses with the amount needed and what is spendable when the coins do not cover amount plus fee", () => {
    const err = (() => { try { selectCoins([utxo(10_000n)], payTo(10_000n)); return null; } catch (e) { return e; } })();
    expect(err).to.be.instanceOf(InsufficientFundsError);
    expect((err as InsufficientFundsError).availableSat).to.equal(10_000n);
    expect((err as InsufficientFundsError).neededSat > 10_000n).to.equal(true);
    expect((err as InsufficientFundsError).status).to.equal(400);
  });
});

describe("coin selection for a CPFP child (change required)", () => {
  const anchor = { weight: 165, valueSat: 0n, count: 1 };
  const target = (requireChange: boolean) => ({ outputs: [], satPerVb: 2, changeScript: P2TR, extraInputs: anchor, requireChange });

  it("keeps adding coins until the change is above dust, where a normal spend would give the excess to the fee", () => {
    const coins = [utxo(600n, true, 1), utxo(500n, true, 2)];
    const normal = selectCoins(coins, target(false));
    expect(normal.inputs).to.have.length(1);
    expect(normal.changeSat).to.equal(0n);
    const cpfp = selectCoins(coins, target(true));
    expect(cpfp.inputs).to.have.length(2);
    expect(cpfp.changeSat >= 330n).to.equal(true);
    expect(cpfp.changeSat + cpfp.feeSat).to.equal(1_100n);
  });

  it("refuses when no selection leaves change above dust", () => {
    const err = (() => { try { return selectCoins([utxo(600n, true, 1)], target(true)); } catch (e) { return e; } })();
    expect(err).to.be.instanceOf(InsufficientFundsError);
  });
});
