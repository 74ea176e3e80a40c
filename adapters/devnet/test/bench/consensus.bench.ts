/**
 * Devnet validation throughput: taproot key-path inputs verified per second by the consensus
 * engine (full `verifyInputScripts` with the standard flags: sighash, script interpreter, Schnorr),
 * against raw Schnorr verifications per second of the same signatures in the same run.
 */
import { randomBytes } from "node:crypto";
import * as btc from "@scure/btc-signer";
import { schnorr } from "@noble/curves/secp256k1.js";
import * as ecc from "tiny-secp256k1";
import { measure, type BenchReport } from "@tender/core";
import { decodeTx, verifyInputScripts, STANDARD_SCRIPT_VERIFY_FLAGS, PrecomputedTxData, taprootSighash } from "../../src/consensus/index.js";

const INPUTS = 16;

export default async function consensusBench(): Promise<BenchReport> {
  const key = randomBytes(32);
  const pub = schnorr.getPublicKey(key);
  const p2tr = btc.p2tr(pub);
  const tx = new btc.Transaction({ version: 2 });
  for (let i = 0; i < INPUTS; i++) {
    tx.addInput({ txid: randomBytes(32), index: i, witnessUtxo: { script: p2tr.script, amount: 10_000n }, tapInternalKey: pub });
  }
  tx.addOutputAddress(p2tr.address!, BigInt(INPUTS) * 9_000n);
  tx.sign(key);
  tx.finalize();
  const decoded = decodeTx(tx.extract());
  const spent = Array.from({ length: INPUTS }, () => ({ amount: 10_000n, scriptPubKey: p2tr.script }));

  // The same signatures and messages, for the raw verification baseline.
  const pre = new PrecomputedTxData(decoded, spent);
  const sigs = decoded.inputs.map((input, i) => ({ sig: input.witness[0]!, msg: taprootSighash(pre, i, 0, undefined)! }));
  const outKey = p2tr.tweakedPubkey;
  for (const s of sigs) if (!ecc.verifySchnorr(s.msg, outKey, s.sig)) throw new Error("bench setup: signature does not verify");

  const txPerSec = await measure(() => verifyInputScripts(decoded, spent, STANDARD_SCRIPT_VERIFY_FLAGS));
  const inputsPerSec = txPerSec * INPUTS;
  // Same batching as the engine's run (one measured call = the 16 signatures), so loop overhead cancels out.
  const rawPerSec = (await measure(() => {
    for (const s of sigs) if (!ecc.verifySchnorr(s.msg, outKey, s.sig)) throw new Error("verify failed");
  })) * INPUTS;
  return {
    title: "devnet consensus: taproot key-path validation",
    rows: [
      { name: `taproot key-path inputs verified (tx of ${INPUTS})`, opsPerSec: inputsPerSec, note: `${(inputsPerSec / rawPerSec).toFixed(3)} × raw verify` },
      { name: "raw Schnorr verify (tiny-secp256k1)", opsPerSec: rawPerSec, note: "same signatures, same run" },
    ],
  };
}
