/** Exit planning: steps, readiness, shared ancestors, start. */
import { expect } from "chai";
import { arkVectors, compareVector, expectVector } from "./ark-vectors.js";
import { fromHex } from "../src/encoding.js";
import { decodeVtxo } from "../src/vtxo.js";
import { ExitPlanError, exitPlan, exitStepsReady, mergeExitPlans, startExit } from "../src/exit.js";
import { ExitStartError } from "../src/exit-cost.js";

const V2 = arkVectors.vtxo_encoding.encoding_version_2;
// eslint-disable-next-line @typescript-eslint/no-explicit-any
const named = (n: string): any => (V2.vtxos as { name: string }[]).find((v) => v.name === n);
const vtxo = (n: string) => decodeVtxo(fromHex(named(n).hex));

describe("exit planning (broadcast steps of the exit chains)", () => {
  it("the plan lists the signed exit txs of the reference VTXO with txids, parents and anchors", () => {
    const v = named("arkoor2_vtxo");
    const plan = exitPlan(vtxo("arkoor2_vtxo"));
    expect(plan.length).to.equal(v.exit_transactions.length);
    plan.forEach((s, i) => expectVector(s.txid, v.exit_transactions[i], "txid"));
    compareVector(v, "chain_anchor", (anchor: string) => expect(plan[0]!.parentTxid).to.equal(anchor.split(":")[0]));
    plan.slice(1).forEach((s, i) => expect(s.parentTxid).to.equal(plan[i]!.txid));
    expect(plan[0]!.anchorValue).to.equal(330n); // the board exit tx holds the board fee
    expect(plan.slice(1).every((s) => s.anchorValue === 0n)).to.equal(true);
    expect(plan.every((s) => s.anchorVout === s.tx.outputs.length - 1)).to.equal(true);
  });

  it("only steps whose parent is confirmed are ready; one block per step", () => {
    const plan = exitPlan(vtxo("arkoor2_vtxo"));
    const confirmed = new Set<string>([plan[0]!.parentTxid]);
    const order: number[] = [];
    for (let block = 0; block < plan.length; block++) {
      const ready = exitStepsReady(plan, (t) => confirmed.has(t));
      expect(ready.length).to.equal(1);
      order.push(ready[0]!.index);
      confirmed.add(ready[0]!.txid);
    }
    expect(order).to.deep.equal([0, 1, 2, 3, 4]);
    expect(exitStepsReady(plan, (t) => confirmed.has(t))).to.deep.equal([]);
  });

  it("siblings share ancestors: the board exit tx is tracked once for both arkoor descendants", () => {
    const merged = mergeExitPlans([exitPlan(vtxo("arkoor_htlc_out_vtxo")), exitPlan(vtxo("arkoor2_vtxo"))]);
    const boardExit = exitPlan(vtxo("board_vtxo"))[0]!.txid;
    expect(merged.get(boardExit)!.refCount).to.equal(2);
    expect(merged.size).to.equal(3 + 5 - 3);
  });

  it("start: processing state with every exit txid; refuses dust and unsigned chains", () => {
    const v = vtxo("round1_vtxo");
    const state = startExit(v, 500);
    expect(state.type).to.equal("processing");
    if (state.type === "processing") expect(state.transactions.map((t) => t.txid)).to.deep.equal(exitPlan(v).map((s) => s.txid));
    expect(() => startExit({ ...v, amount: 100n }, 500)).to.throw(ExitStartError);
    const unsigned = { ...v, genesis: v.genesis.map((g) => ({ ...g, transition: { ...g.transition, signature: null } })) };
    expect(() => exitPlan(unsigned)).to.throw(ExitPlanError, "not fully signed");
  });
});
