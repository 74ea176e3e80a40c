/** Bitcoin Core's tx_valid.json: each transaction passes CheckTransaction and its scripts under all flags but the excluded ones. */
import { expect } from "chai";
import { checkTransaction } from "../../src/consensus/tx-check.js";
import { VectorTally, failureReport, loadCoreVectors } from "./core-vectors.js";
import {
  ALL_FLAGS, decodeTxRow, excludeIndividualFlags, fillFlags, parseScriptFlags, scriptsValid, trimFlags,
} from "./tx-vectors.js";

/** Rows we do not run, with the reason (none: every row is modelled). */
const SKIPPED: Record<number, string> = {};

const FILE = "tx_valid.json";
const rows = loadCoreVectors(FILE) as unknown[][];

/** One row as Core's tx_valid test checks it; returns why it fails, or undefined. */
function checkRow(row: unknown[]): string | undefined {
  const c = decodeTxRow(row);
  try {
    checkTransaction(c.tx);
  } catch (e) {
    return `CheckTransaction rejected it: ${String(e)}`;
  }
  const excluded = parseScriptFlags(c.flagText);
  if (~excluded !== fillFlags(~excluded)) return "bad flag combination in the row";
  const main = scriptsValid(c, ~excluded);
  if (!main.valid) return `scripts failed: ${main.error}`;
  for (const flag of ALL_FLAGS) {
    for (const removed of [flag, flag | (flag - 1)]) {
      const flags = trimFlags(~(excluded | removed));
      const r = scriptsValid(c, flags);
      if (!r.valid) return `failed after removing flags (${(~flags >>> 0).toString(16)}): ${r.error}`;
    }
  }
  for (const fewer of excludeIndividualFlags(excluded)) {
    if (scriptsValid(c, ~fewer).valid) return `excluded flags not maximal: passes with ${(~fewer >>> 0).toString(16)} set`;
  }
  return undefined;
}

describe("Bitcoin Core tx_valid.json", () => {
  const tally = new VectorTally(FILE);
  const tests = rows.map((row, index) => ({ row, index })).filter((t) => Array.isArray(t.row[0]));

  it("every valid transaction passes CheckTransaction and script checks, and its excluded flags are each needed", () => {
    const failures = tally.checkRows(tests, SKIPPED, (row) => checkRow(row));
    expect(failures, failureReport(failures)).to.deep.equal([]);
  });

  it("covers every test row of the file", () => {
    expect(tests.length).to.equal(121);
  });

  after(() => {
    console.log(tally.summary());
  });
});
