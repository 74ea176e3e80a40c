import { expect } from "chai";
import { toHex, type Vtxo } from "@tender/ark-protocol";
import { hasCounterpartyRisk } from "../src/counterparty.js";
import { randomKey, signedBoard } from "./fixtures.js";

const me = randomKey();
const other = randomKey();
const mine = new Set([toHex(me.pk)]);
const isOwn = async (pk: Uint8Array) => mine.has(toHex(pk));

/** `v` as if it came through an arkoor hop co-signed by `cosigner`. */
function viaArkoor(v: Vtxo, cosigner: Uint8Array): Vtxo {
  const hop = { transition: { kind: "arkoor" as const, clientCosigners: [cosigner], tapTweak: new Uint8Array(32), signature: null }, outputIdx: 0, otherOutputs: [], feeAmount: 0n };
  return { ...v, genesis: [...v.genesis, hop] };
}

describe("counterparty risk of a VTXO (refresh/counterparty)", () => {
  it("a board of the wallet's own carries none", async () => {
    expect(await hasCounterpartyRisk(signedBoard(me, 50_000n, 2000), isOwn)).to.equal(false);
  });

  it("an arkoor payment from someone else carries it", async () => {
    expect(await hasCounterpartyRisk(viaArkoor(signedBoard(me, 50_000n, 2000), other.pk), isOwn)).to.equal(true);
  });

  it("change of the wallet's own arkoor spend carries none", async () => {
    expect(await hasCounterpartyRisk(viaArkoor(signedBoard(me, 50_000n, 2000), me.pk), isOwn)).to.equal(false);
  });

  it("a VTXO the wallet cannot sign carries it", async () => {
    expect(await hasCounterpartyRisk(signedBoard(other, 50_000n, 2000), isOwn)).to.equal(true);
  });
});
