/** verifyInputScripts on signed spends of each output type; failures name the input; random scripts only give ScriptError. */
import { expect } from "chai";
import fc from "fast-check";
import { concatBytes } from "../../src/consensus/bytes.js";
import { ConsensusError, ScriptError } from "../../src/consensus/errors.js";
import { MANDATORY_SCRIPT_VERIFY_FLAGS, STANDARD_SCRIPT_VERIFY_FLAGS, ScriptFlags } from "../../src/consensus/flags.js";
import { hash160, sha256 } from "../../src/consensus/hashes.js";
import { OP } from "../../src/consensus/opcodes.js";
import { pushData } from "../../src/consensus/script.js";
import { PrecomputedTxData, legacySighash, segwitV0Sighash } from "../../src/consensus/sighash.js";
import type { SpentOutput, Tx } from "../../src/consensus/tx.js";
import { verifyScript } from "../../src/consensus/verify-script.js";
import { TransactionSignatureChecker, verifyInputScripts } from "../../src/consensus/verify-tx.js";
import { ecdsaSig, testKey } from "./signing.js";

const a = testKey("a");
const b = testKey("b");
const p2pkh = (pub: Uint8Array) =>
  concatBytes(Uint8Array.of(OP.OP_DUP, OP.OP_HASH160, 20), hash160(pub), Uint8Array.of(OP.OP_EQUALVERIFY, OP.OP_CHECKSIG));
const p2wpkh = (pub: Uint8Array) => concatBytes(Uint8Array.of(0, 20), hash160(pub));
const p2sh = (redeem: Uint8Array) => concatBytes(Uint8Array.of(OP.OP_HASH160, 20), hash160(redeem), Uint8Array.of(OP.OP_EQUAL));
const multisig = concatBytes(Uint8Array.of(OP.OP_2), pushData(a.pub), pushData(b.pub), Uint8Array.of(OP.OP_2, OP.OP_CHECKMULTISIG));
const p2wsh = concatBytes(Uint8Array.of(0, 32), sha256(multisig));

/** Four inputs: P2PKH, P2WPKH, P2SH-P2WPKH, P2WSH 2-of-2; all signed with SIGHASH_ALL. */
function signedFourInputTx(): { tx: Tx; spent: SpentOutput[] } {
  const spent: SpentOutput[] = [
    { amount: 10_000n, scriptPubKey: p2pkh(a.pub) },
    { amount: 20_000n, scriptPubKey: p2wpkh(a.pub) },
    { amount: 30_000n, scriptPubKey: p2sh(p2wpkh(b.pub)) },
    { amount: 40_000n, scriptPubKey: p2wsh },
  ];
  const tx: Tx = {
    version: 2, locktime: 0,
    inputs: spent.map((_, i) => ({ prevTxid: new Uint8Array(32).fill(i + 1), prevVout: i, scriptSig: new Uint8Array(0), sequence: 0xfffffffd, witness: [] })),
    outputs: [{ value: 99_000n, scriptPubKey: p2wpkh(b.pub) }],
  };
  tx.inputs[2]!.scriptSig = pushData(p2wpkh(b.pub));
  const data = new PrecomputedTxData(tx, spent);
  tx.inputs[0]!.scriptSig = concatBytes(pushData(ecdsaSig(legacySighash(tx, 0, spent[0]!.scriptPubKey, 1), a.priv)), pushData(a.pub));
  const v0 = (i: number, code: Uint8Array) => segwitV0Sighash(data, i, code, spent[i]!.amount, 1);
  tx.inputs[1]!.witness = [ecdsaSig(v0(1, p2pkh(a.pub)), a.priv), a.pub];
  tx.inputs[2]!.witness = [ecdsaSig(v0(2, p2pkh(b.pub)), b.priv), b.pub];
  tx.inputs[3]!.witness = [new Uint8Array(0), ecdsaSig(v0(3, multisig), a.priv), ecdsaSig(v0(3, multisig), b.priv), multisig];
  return { tx, spent };
}

describe("verifyInputScripts", () => {
  it("accepts correctly signed P2PKH, P2WPKH, P2SH-P2WPKH and P2WSH multisig inputs under standard flags", () => {
    const { tx, spent } = signedFourInputTx();
    expect(() => verifyInputScripts(tx, spent, STANDARD_SCRIPT_VERIFY_FLAGS)).not.to.throw();
  });

  it("names the failing input: a segwit signature over the wrong amount fails input 1", () => {
    const { tx, spent } = signedFourInputTx();
    const wrongAmount = spent.map((s, i) => (i === 1 ? { ...s, amount: s.amount + 1n } : s));
    try {
      verifyInputScripts(tx, wrongAmount, MANDATORY_SCRIPT_VERIFY_FLAGS);
      expect.fail("should have thrown");
    } catch (e) {
      expect(e).to.be.instanceOf(ScriptError);
      expect((e as ScriptError).inputIndex).to.equal(1);
      expect((e as ScriptError).code).to.equal("SCRIPT_ERR_EVAL_FALSE");
      expect((e as ScriptError).message).to.contain("input 1");
    }
  });

  it("fails the multisig input when its signatures are swapped, with NULLFAIL under policy", () => {
    const { tx, spent } = signedFourInputTx();
    const w = tx.inputs[3]!.witness;
    tx.inputs[3]!.witness = [w[0]!, w[2]!, w[1]!, w[3]!];
    expect(() => verifyInputScripts(tx, spent, MANDATORY_SCRIPT_VERIFY_FLAGS)).to.throw(ScriptError)
      .with.property("code", "SCRIPT_ERR_EVAL_FALSE");
    expect(() => verifyInputScripts(tx, spent, STANDARD_SCRIPT_VERIFY_FLAGS)).to.throw(ScriptError)
      .with.property("code", "SCRIPT_ERR_SIG_NULLFAIL");
  });

  it("rejects a P2SH-P2WPKH input whose scriptSig is not exactly the program push", () => {
    const { tx, spent } = signedFourInputTx();
    tx.inputs[2]!.scriptSig = concatBytes(Uint8Array.of(OP.OP_0, OP.OP_DROP), tx.inputs[2]!.scriptSig);
    expect(() => verifyInputScripts(tx, spent, MANDATORY_SCRIPT_VERIFY_FLAGS)).to.throw(ScriptError).with.property("inputIndex", 2);
  });

  it("rejects a spent-output list of the wrong length", () => {
    const { tx, spent } = signedFourInputTx();
    expect(() => verifyInputScripts(tx, spent.slice(1), MANDATORY_SCRIPT_VERIFY_FLAGS)).to.throw(ConsensusError)
      .with.property("code", "bad-txns-inputs-missingorspent");
  });

  it("throws only ScriptError (or nothing) for random scripts, witnesses and flags", () => {
    const { tx, spent } = signedFourInputTx();
    const data = new PrecomputedTxData(tx, spent);
    const flagsArb = fc.integer({ min: 0, max: (1 << 21) - 1 }).map((f) => {
      let flags = f;
      if ((flags & ScriptFlags.CLEANSTACK) !== 0) flags |= ScriptFlags.WITNESS;
      if ((flags & ScriptFlags.WITNESS) !== 0) flags |= ScriptFlags.P2SH;
      return flags;
    });
    // bias toward real opcodes and witness/taproot templates so execution gets past the first byte
    const scriptArb = fc.oneof(
      fc.uint8Array({ maxLength: 60 }),
      fc.array(fc.integer({ min: 0x4f, max: 0xba }), { maxLength: 30 }).map((ops) => Uint8Array.from(ops)),
      fc.uint8Array({ minLength: 32, maxLength: 32 }).map((k) => Uint8Array.of(0x51, 0x20, ...k)),
      fc.uint8Array({ minLength: 20, maxLength: 20 }).map((k) => Uint8Array.of(0x00, 0x14, ...k)),
    );
    fc.assert(fc.property(scriptArb, scriptArb, fc.array(fc.uint8Array({ maxLength: 70 }), { maxLength: 4 }), flagsArb,
      (scriptSig, scriptPubKey, witness, flags) => {
        try {
          verifyScript(scriptSig, scriptPubKey, witness, flags, new TransactionSignatureChecker(data, 0, 10_000n));
        } catch (e) {
          expect(e).to.be.instanceOf(ScriptError);
          expect((e as ScriptError).scriptError).to.not.equal("UNKNOWN_ERROR");
        }
      }), { numRuns: 3000 });
  });
});
