/** Exit state persistence JSON (bark's `ExitState` serde form, vector group `exit_state_json`). */
import { expect } from "chai";
import { arkVectors, compareVector } from "./ark-vectors.js";
import {
  ExitStateDecodeError,
  awaitDelta,
  exitClaimableHeight,
  exitStateToJson,
  exitWarrantsExitedVtxo,
  isExitCancelable,
  isTerminalExitState,
  parseExitState,
  serializeExitState,
  startProcessing,
  type ExitState,
} from "../src/exit-state.js";

/** bark writes block refs as objects but older fixtures hold "<height>:<hash>" strings. */
function blockRefsAsObjects(v: unknown): unknown {
  if (typeof v === "string") {
    const m = /^(\d+):([0-9a-f]{64})$/.exec(v);
    return m ? { height: Number(m[1]), hash: m[2] } : v;
  }
  if (Array.isArray(v)) return v.map(blockRefsAsObjects);
  if (v && typeof v === "object") return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, blockRefsAsObjects(x)]));
  return v;
}

describe("exit state JSON (bark's `ExitState`)", () => {
  const fixtures = arkVectors.exit_state_json.examples;
  const examples = [...fixtures] as string[];

  examples.forEach((json, i) => {
    it(`fixture ${i}: parses every field and writes the same fields back (${(JSON.parse(json) as { type: string }).type})`, () => {
      compareVector(fixtures, i, (fixture: string) => {
        const state = parseExitState(fixture);
        expect(exitStateToJson(state)).to.deep.equal(blockRefsAsObjects(JSON.parse(fixture)));
        expect(parseExitState(serializeExitState(state))).to.deep.equal(state);
      });
    });
  });

  it("reads the data the state machine needs from the fixtures", () => {
    const delta = parseExitState(examples[1]!);
    expect(delta.type).to.equal("awaiting-delta");
    expect(exitClaimableHeight(delta)).to.equal(134);
    expect(exitWarrantsExitedVtxo(delta)).to.equal(true);
    const confirmed = parseExitState(examples[11]!) as Extract<ExitState, { type: "processing" }>;
    const st = confirmed.transactions[0]!.status;
    expect(st.type).to.equal("confirmed");
    if (st.type === "confirmed") {
      expect(st.block.height).to.equal(122);
      expect(st.origin).to.deep.equal({ type: "block", confirmedIn: st.block });
    }
  });

  it("cancel rules: start and early processing only, and not once the chain knows the last tx", () => {
    const [start, delta, claimable, , claimed, spent, canceled, verify, awaitingInputs, awaitingCpfp, awaitingConf, confirmed] = examples.map((e) =>
      parseExitState(e),
    );
    expect(isExitCancelable(start!)).to.equal(true);
    for (const s of [verify, awaitingInputs, awaitingCpfp]) expect(isExitCancelable(s!)).to.equal(true);
    expect(isExitCancelable(verify!, true)).to.equal(false);
    for (const s of [awaitingConf, confirmed, delta, claimable, claimed, spent, canceled]) expect(isExitCancelable(s!)).to.equal(false);
    expect([claimed, spent, canceled].every((s) => isTerminalExitState(s!))).to.equal(true);
    expect(isTerminalExitState(claimable!)).to.equal(false);
  });

  it("builds processing and awaiting-delta states", () => {
    const txid = "9fd34b8c556dd9954bda80ba2cf3474a372702ebc31a366639483e78417c6812";
    expect(serializeExitState(startProcessing(119, [txid]))).to.equal(JSON.stringify(JSON.parse(examples[7]!)));
    const s = awaitDelta(122, { height: 122, hash: "3cdd30fc942301a74666c481beb82050ccd182050aee3c92d2197e8cad427b8f" }, 12);
    expect(exitClaimableHeight(s)).to.equal(134);
  });

  it("rejects malformed states with a typed error", () => {
    for (const bad of ["{", "null", '{"type":"start"}', '{"type":"nope","tip_height":1}', '{"type":"claimed","tip_height":1,"txid":"00","block":"1:00"}', '{"type":"processing","tip_height":1,"transactions":[{"txid":"' + "0".repeat(64) + '","status":{"type":"x"}}]}']) {
      expect(() => parseExitState(bad), bad).to.throw(ExitStateDecodeError);
    }
  });
});
