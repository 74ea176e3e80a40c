/**
 * The exit chain's remembered steps: a chain rebuilt from memory equals one computed afresh, a
 * VTXO that differs anywhere gets its own computation, and nobody can change what is remembered.
 */
import { expect } from "chai";
import { arkVectors } from "./ark-vectors.js";
import { fromHex, toHex } from "../src/encoding.js";
import { encodeTx } from "../src/tx.js";
import { decodeVtxo, type Vtxo } from "../src/vtxo.js";
import { exitChain, forgetExitChainSteps, type ExitChainTx } from "../src/vtxo-exit.js";

const V2 = arkVectors.vtxo_encoding.encoding_version_2;
const hexOf = (name: string): string => (V2.vtxos as { name: string; hex: string }[]).find((v) => v.name === name)!.hex;
const vtxo = (name: string): Vtxo => decodeVtxo(fromHex(hexOf(name)));

/** Everything an exit-chain entry says, as text. */
const describeChain = (chain: ExitChainTx[]): string[] =>
  chain.map((e) => [toHex(encodeTx(e.tx)), toHex(e.txid), toHex(e.sighash), toHex(e.prevout.txid), e.prevout.vout, e.spentOutput.value, toHex(e.spentOutput.script), toHex(e.spent.signingKey), toHex(e.spent.tapTweak)].join(" "));

const fresh = (v: Vtxo): string[] => {
  forgetExitChainSteps();
  return describeChain(exitChain(v));
};

describe("exit chain: remembered steps", () => {
  const names = ["board_vtxo", "arkoor_htlc_out_vtxo", "arkoor2_vtxo", "round1_vtxo", "round2_vtxo", "arkoor3_vtxo"];

  it("a chain rebuilt from remembered steps equals the one computed afresh, for every reference VTXO", () => {
    for (const name of names) {
      const computed = fresh(vtxo(name));
      expect(describeChain(exitChain(vtxo(name))), name).to.deep.equal(computed);
      expect(describeChain(exitChain(vtxo(name))), `${name}, third time`).to.deep.equal(computed);
    }
  });

  it("a VTXO whose last item differs (another fee amount) is computed, not served from the remembered chain", () => {
    const v = vtxo("arkoor3_vtxo");
    const remembered = describeChain(exitChain(v));
    const last = v.genesis.at(-1)!;
    const changed: Vtxo = { ...v, genesis: [...v.genesis.slice(0, -1), { ...last, feeAmount: last.feeAmount + 1n }] };
    const viaMemo = describeChain(exitChain(changed));
    expect(viaMemo).to.deep.equal(fresh(changed));
    // a fee changes the anchor's amount too: every step differs from the remembered chain
    viaMemo.forEach((step, i) => expect(step, `step ${i}`).to.not.equal(remembered[i]));
  });

  it("a VTXO with another signature in its first transition gets that signature in its witness", () => {
    const v = vtxo("arkoor2_vtxo");
    exitChain(v);
    const first = v.genesis[0]!;
    const otherSig = Uint8Array.from(first.transition.signature!).reverse();
    const changed: Vtxo = { ...v, genesis: [{ ...first, transition: { ...first.transition, signature: otherSig } }, ...v.genesis.slice(1)] };
    expect(toHex(exitChain(changed)[0]!.tx.inputs[0]!.witness[0]!)).to.equal(toHex(otherSig));
    expect(toHex(exitChain(v)[0]!.tx.inputs[0]!.witness[0]!)).to.equal(toHex(first.transition.signature!));
  });

  it("remembered entries are frozen, and changing the caller's VTXO afterwards does not reach them", () => {
    const v = vtxo("arkoor3_vtxo");
    const computed = fresh(v);
    const chain = exitChain(v);
    expect(() => { (chain[0] as { outputIdx: number }).outputIdx = 9; }).to.throw(TypeError);
    expect(() => { (chain[0]!.tx.inputs as unknown[]).push({}); }).to.throw(TypeError);
    expect(() => { (chain[0]!.tx.outputs[0] as { value: bigint }).value = 1n; }).to.throw(TypeError);
    // the caller scribbles over its own decoded VTXO: the remembered chain is untouched
    v.anchorPoint.txid.fill(0);
    for (const item of v.genesis) for (const o of item.otherOutputs) o.script.fill(0);
    expect(describeChain(exitChain(vtxo("arkoor3_vtxo")))).to.deep.equal(computed);
  });
});
