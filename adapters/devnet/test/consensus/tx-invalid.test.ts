/** Bitcoin Core's tx_invalid.json: each transaction fails CheckTransaction (BADTX) or its scripts under exactly the listed flags. */
import { expect } from "chai";
import { ConsensusError } from "../../src/consensus/errors.js";
import { checkTransaction } from "../../src/consensus/tx-check.js";
import { VectorTally, failureReport, loadCoreVectors } from "./core-vectors.js";
import {
  ALL_FLAGS, decodeTxRow, excludeIndividualFlags, fillFlags, parseScriptFlags, scriptsValid,
} from "./tx-vectors.js";

/** Rows we do not run, with the reason (none: every row is modelled). */
const SKIPPED: Record<number, string> = {};

const FILE = "tx_invalid.json";
const rows = loadCoreVectors(FILE) as unknown[][];

/** One row as Core's tx_invalid test checks it; returns why it fails, or undefined. */
function checkRow(row: unknown[]): string | undefined {
  const c = decodeTxRow(row);
  let badTx: string | undefined;
  try {
    checkTransaction(c.tx);
  } catch (e) {
    if (!(e instanceof ConsensusError)) throw e;
    badTx = e.code;
  }
  if (c.flagText === "BADTX") return badTx === undefined ? "CheckTransaction accepted a BADTX transaction" : undefined;
  if (badTx !== undefined) return `CheckTransaction rejected it (${badTx}) but the row expects a script failure`;
  const flags = parseScriptFlags(c.flagText);
  if (flags !== fillFlags(flags)) return "bad flag combination in the row";
  const main = scriptsValid(c, flags);
  if (main.valid) return "scripts passed";
  for (const flag of ALL_FLAGS) {
    for (const added of [flag, flag | (flag - 1)]) {
      const more = fillFlags(flags | added);
      if (scriptsValid(c, more).valid) return `passes after adding flags (${more.toString(16)})`;
    }
  }
  for (const fewer of excludeIndividualFlags(flags)) {
    const r = scriptsValid(c, fewer);
    if (!r.valid) return `flags not minimal: still fails with ${fewer.toString(16)} (${r.error})`;
  }
  return undefined;
}

describe("Bitcoin Core tx_invalid.json", () => {
  const tally = new VectorTally(FILE);
  const tests = rows.map((row, index) => ({ row, index })).filter((t) => Array.isArray(t.row[0]));

  it("every invalid transaction is rejected, and each listed flag is needed for the rejection", () => {
    const failures = tally.checkRows(tests, SKIPPED, (row) => checkRow(row));
    expect(failures, failureReport(failures)).to.deep.equal([]);
  });

  it("covers every test row of the file", () => {
    expect(tests.length).to.equal(93);
  });

  after(() => {
    console.log(tally.summary());
  });
});
