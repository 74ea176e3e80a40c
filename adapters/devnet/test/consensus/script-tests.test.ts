/** Bitcoin Core's script_tests.json: every row run through verifyScript with its flags and expected error. */
import { expect } from "chai";
import * as secp from "tiny-secp256k1";
import { concatBytes, fromHex, toHex } from "../../src/consensus/bytes.js";
import { ScriptError } from "../../src/consensus/errors.js";
import { ScriptFlags, parseScriptFlags } from "../../src/consensus/flags.js";
import { tapLeafHash, tapTweakHash, PrecomputedTxData } from "../../src/consensus/sighash.js";
import { txidBytes, type Tx } from "../../src/consensus/tx.js";
import { verifyScript } from "../../src/consensus/verify-script.js";
import { TransactionSignatureChecker } from "../../src/consensus/verify-tx.js";
import { VectorTally, failureReport, loadCoreVectors, parseCoreAsm } from "./core-vectors.js";

/** Rows we do not run, with the reason (none: every row is modelled). */
const SKIPPED: Record<number, string> = {};

const FILE = "script_tests.json";
const rows = loadCoreVectors(FILE) as unknown[][];

/** Core's script_tests key0 (secret 1) as the internal key of the #CONTROLBLOCK# single-leaf trees. */
const INTERNAL_KEY = secp.xOnlyPointFromScalar(fromHex("00".repeat(31) + "01"));

interface Case {
  witness: Uint8Array[];
  amount: bigint;
  scriptSig: Uint8Array;
  scriptPubKey: Uint8Array;
  flags: number;
  expected: string;
  comment: string;
}

function decodeRow(row: unknown[]): Case {
  let pos = 0;
  const witness: Uint8Array[] = [];
  let amount = 0n;
  let outputKey: Uint8Array | undefined;
  if (Array.isArray(row[0])) {
    const items = row[0] as unknown[];
    for (let i = 0; i < items.length - 1; i++) {
      const el = items[i] as string;
      if (el.startsWith("#SCRIPT#")) {
        witness.push(parseCoreAsm(el.slice("#SCRIPT#".length)));
      } else if (el === "#CONTROLBLOCK#") {
        const script = witness[witness.length - 1]!;
        const leaf = tapLeafHash(0xc0, script);
        const tweaked = secp.xOnlyPointAddTweak(INTERNAL_KEY, tapTweakHash(INTERNAL_KEY, leaf))!;
        outputKey = tweaked.xOnlyPubkey;
        witness.push(concatBytes(Uint8Array.of(0xc0 | tweaked.parity), INTERNAL_KEY));
      } else {
        witness.push(fromHex(el));
      }
    }
    amount = BigInt(Math.round((items[items.length - 1] as number) * 1e8));
    pos = 1;
  }
  let spk = row[pos + 1] as string;
  if (spk.includes("#TAPROOTOUTPUT#")) spk = spk.replace("#TAPROOTOUTPUT#", `0x${toHex(outputKey!)}`);
  let flags = parseScriptFlags(row[pos + 2] as string);
  if ((flags & ScriptFlags.CLEANSTACK) !== 0) flags |= ScriptFlags.P2SH | ScriptFlags.WITNESS;
  return {
    witness, amount, scriptSig: parseCoreAsm(row[pos] as string), scriptPubKey: parseCoreAsm(spk), flags,
    expected: row[pos + 3] as string, comment: (row[pos + 4] as string | undefined) ?? "",
  };
}

function run(c: Case, flags: number): string {
  const credit: Tx = {
    version: 1, locktime: 0,
    inputs: [{ prevTxid: new Uint8Array(32), prevVout: 0xffffffff, scriptSig: Uint8Array.of(0, 0), sequence: 0xffffffff, witness: [] }],
    outputs: [{ value: c.amount, scriptPubKey: c.scriptPubKey }],
  };
  const spend: Tx = {
    version: 1, locktime: 0,
    inputs: [{ prevTxid: txidBytes(credit), prevVout: 0, scriptSig: c.scriptSig, sequence: 0xffffffff, witness: c.witness }],
    outputs: [{ value: c.amount, scriptPubKey: new Uint8Array(0) }],
  };
  const data = new PrecomputedTxData(spend, [{ amount: c.amount, scriptPubKey: c.scriptPubKey }]);
  try {
    verifyScript(c.scriptSig, c.scriptPubKey, c.witness, flags, new TransactionSignatureChecker(data, 0, c.amount));
    return "OK";
  } catch (e) {
    // Core's test table names SCRIPT_ERR_SIG_NULLFAIL "NULLFAIL"; every other name is the enum's.
    if (e instanceof ScriptError) return e.scriptError === "SIG_NULLFAIL" ? "NULLFAIL" : e.scriptError;
    return `EXCEPTION ${String(e)}`;
  }
}

/** Deterministic stand-in for Core's InsecureRandBits(16). */
function* extraFlagSequence(seed: number): Generator<number> {
  let x = seed * 2654435761 + 1;
  for (;;) {
    x = (x * 1103515245 + 12345) >>> 0;
    yield x >>> 16;
  }
}

/**
 * One row as Core's DoTest checks it: the expected result with the given flags, and the same verdict
 * when flags are removed from a passing case or added to a failing one (16 deterministic variations).
 */
function checkRow(index: number, row: unknown[]): string | undefined {
  const c = decodeRow(row);
  const got = run(c, c.flags);
  if (got !== c.expected) return `expected ${c.expected}, got ${got} (${c.comment})`;
  const ok = c.expected === "OK";
  const extras = extraFlagSequence(index);
  for (let i = 0; i < 16; i++) {
    const extra = extras.next().value as number;
    const combined = ok ? c.flags & ~extra : c.flags | extra;
    if ((combined & ScriptFlags.CLEANSTACK) !== 0 && (~combined & (ScriptFlags.P2SH | ScriptFlags.WITNESS)) !== 0) continue;
    if ((combined & ScriptFlags.WITNESS) !== 0 && (~combined & ScriptFlags.P2SH) !== 0) continue;
    const again = run(c, combined);
    if ((again === "OK") !== ok) return `verdict changed with flags ${combined.toString(16)}: ${again} (${c.comment})`;
  }
  return undefined;
}

describe("Bitcoin Core script_tests.json", () => {
  const tally = new VectorTally(FILE);
  const tests = rows.map((row, index) => ({ row, index })).filter((t) => t.row.length > 1);
  const BATCH = 100;

  for (let start = 0; start < tests.length; start += BATCH) {
    const batch = tests.slice(start, start + BATCH);
    it(`rows ${batch[0]!.index}–${batch[batch.length - 1]!.index} give Core's verdict and error code`, () => {
      const failures = tally.checkRows(batch, SKIPPED, (row, index) => checkRow(index, row));
      expect(failures, failureReport(failures)).to.deep.equal([]);
    });
  }

  it("covers every test row of the file", () => {
    expect(tests.length).to.equal(1222);
  });

  after(() => {
    console.log(tally.summary());
  });
});
