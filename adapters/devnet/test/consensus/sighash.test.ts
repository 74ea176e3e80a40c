/** Bitcoin Core's sighash.json: legacy signature hashes of random transactions, script codes and hash types. */
import { expect } from "chai";
import { fromHex, reversed, toHex } from "../../src/consensus/bytes.js";
import { legacySighash } from "../../src/consensus/sighash.js";
import { decodeTx, encodeTx } from "../../src/consensus/tx.js";
import { checkTransaction } from "../../src/consensus/tx-check.js";
import { VectorTally, failureReport, loadCoreVectors } from "./core-vectors.js";

/** Rows we do not run, with the reason (none: every row is modelled). */
const SKIPPED: Record<number, string> = {};

const FILE = "sighash.json";
const rows = loadCoreVectors(FILE) as unknown[][];

/** One row as Core's sighash test checks it: decodes, passes CheckTransaction, re-encodes exactly, hashes as expected. */
function checkRow(row: unknown[]): string | undefined {
  const [rawTx, rawScript, inputIndex, hashType, expected] = row as [string, string, number, number, string];
  const bytes = fromHex(rawTx);
  const tx = decodeTx(bytes);
  if (toHex(encodeTx(tx)) !== rawTx) return "re-encoding differs from the input bytes";
  checkTransaction(tx);
  const got = toHex(reversed(legacySighash(tx, inputIndex, fromHex(rawScript), hashType)));
  return got === expected ? undefined : `expected ${expected}, got ${got}`;
}

describe("Bitcoin Core sighash.json", () => {
  const tally = new VectorTally(FILE);
  const tests = rows.map((row, index) => ({ row, index })).filter((t) => t.row.length > 1);

  it("every legacy signature hash matches Core's", () => {
    const failures = tally.checkRows(tests, SKIPPED, (row) => checkRow(row));
    expect(failures, failureReport(failures)).to.deep.equal([]);
  });

  it("covers every test row of the file", () => {
    expect(tests.length).to.equal(500);
  });

  after(() => {
    console.log(tally.summary());
  });
});
