/** Taproot spends end to end (BIP-341/342 parts the Core vector files do not sign): script path, CHECKSIGADD, codeseparator, annex, validation weight. */
import { expect } from "chai";
import { concatBytes } from "../../src/consensus/bytes.js";
import { ScriptError } from "../../src/consensus/errors.js";
import { STANDARD_SCRIPT_VERIFY_FLAGS, MANDATORY_SCRIPT_VERIFY_FLAGS } from "../../src/consensus/flags.js";
import { OP } from "../../src/consensus/opcodes.js";
import { pushData } from "../../src/consensus/script.js";
import { PrecomputedTxData, tapLeafHash, taprootSighash } from "../../src/consensus/sighash.js";
import { controlBlock, taprootOutputKey, taprootScriptPubKey } from "../../src/consensus/taproot.js";
import type { SpentOutput, Tx } from "../../src/consensus/tx.js";
import { verifyInputScripts } from "../../src/consensus/verify-tx.js";
import { schnorrSig, spendingTx, testKey } from "./signing.js";

const internal = testKey("internal");
const alice = testKey("alice");
const bob = testKey("bob");

/** A single-leaf taproot output committing to `script`, and a spend of it with the given stack. */
function scriptPathSpend(script: Uint8Array) {
  const leaf = tapLeafHash(0xc0, script);
  const out = taprootOutputKey(internal.xonly, leaf);
  const prev: SpentOutput = { amount: 100_000n, scriptPubKey: taprootScriptPubKey(out.outputKey) };
  const tx = spendingTx(prev);
  const cb = controlBlock(0xc0, out.parity, internal.xonly, []);
  const sighash = (codeSeparatorPos = 0xffffffff, annex?: Uint8Array, hashType = 0): Uint8Array =>
    taprootSighash(new PrecomputedTxData(tx, [prev]), 0, hashType, annex, { leafHash: leaf, codeSeparatorPos })!;
  const setWitness = (stack: Uint8Array[], annex?: Uint8Array): Tx => {
    tx.inputs[0]!.witness = [...stack, script, cb, ...(annex ? [annex] : [])];
    return tx;
  };
  return { prev, tx, sighash, setWitness };
}

function scriptError(fn: () => void): string | undefined {
  try {
    fn();
    return undefined;
  } catch (e) {
    if (e instanceof ScriptError) return e.scriptError;
    throw e;
  }
}

describe("taproot spends", () => {
  const multisig = concatBytes(
    pushData(alice.xonly), Uint8Array.of(OP.OP_CHECKSIG), pushData(bob.xonly), Uint8Array.of(OP.OP_CHECKSIGADD, OP.OP_2, OP.OP_NUMEQUAL),
  );

  it("accepts a 2-of-2 CHECKSIG/CHECKSIGADD script-path spend and rejects it with one signature missing", () => {
    const s = scriptPathSpend(multisig);
    const h = s.sighash();
    s.setWitness([schnorrSig(h, bob.priv), schnorrSig(h, alice.priv)]);
    expect(() => verifyInputScripts(s.tx, [s.prev], STANDARD_SCRIPT_VERIFY_FLAGS)).not.to.throw();
    s.setWitness([new Uint8Array(0), schnorrSig(h, alice.priv)]);
    expect(scriptError(() => verifyInputScripts(s.tx, [s.prev], STANDARD_SCRIPT_VERIFY_FLAGS))).to.equal("EVAL_FALSE");
  });

  it("fails with SCHNORR_SIG when a script-path signature commits to the key-path message", () => {
    const s = scriptPathSpend(multisig);
    const keyPathHash = taprootSighash(new PrecomputedTxData(s.tx, [s.prev]), 0, 0, undefined)!;
    s.setWitness([schnorrSig(s.sighash(), bob.priv), schnorrSig(keyPathHash, alice.priv)]);
    expect(scriptError(() => verifyInputScripts(s.tx, [s.prev], MANDATORY_SCRIPT_VERIFY_FLAGS))).to.equal("SCHNORR_SIG");
  });

  it("commits signatures after OP_CODESEPARATOR to its opcode position", () => {
    // <alice> CHECKSIGVERIFY CODESEPARATOR <bob> CHECKSIG: bob's signature commits to position 2
    const script = concatBytes(
      pushData(alice.xonly), Uint8Array.of(OP.OP_CHECKSIGVERIFY, OP.OP_CODESEPARATOR), pushData(bob.xonly), Uint8Array.of(OP.OP_CHECKSIG),
    );
    const s = scriptPathSpend(script);
    s.setWitness([schnorrSig(s.sighash(2), bob.priv), schnorrSig(s.sighash(), alice.priv)]);
    expect(() => verifyInputScripts(s.tx, [s.prev], STANDARD_SCRIPT_VERIFY_FLAGS)).not.to.throw();
    s.setWitness([schnorrSig(s.sighash(), bob.priv), schnorrSig(s.sighash(), alice.priv)]);
    expect(scriptError(() => verifyInputScripts(s.tx, [s.prev], STANDARD_SCRIPT_VERIFY_FLAGS))).to.equal("SCHNORR_SIG");
  });

  it("commits signatures to the annex", () => {
    const script = concatBytes(pushData(alice.xonly), Uint8Array.of(OP.OP_CHECKSIG));
    const s = scriptPathSpend(script);
    const annex = Uint8Array.of(0x50, 1, 2, 3);
    s.setWitness([schnorrSig(s.sighash(0xffffffff, annex), alice.priv)], annex);
    expect(() => verifyInputScripts(s.tx, [s.prev], MANDATORY_SCRIPT_VERIFY_FLAGS)).not.to.throw();
    s.setWitness([schnorrSig(s.sighash(), alice.priv)], annex);
    expect(scriptError(() => verifyInputScripts(s.tx, [s.prev], MANDATORY_SCRIPT_VERIFY_FLAGS))).to.equal("SCHNORR_SIG");
  });

  it("rejects a 65-byte signature with an explicit SIGHASH_DEFAULT byte and accepts SIGHASH_ALL|ANYONECANPAY", () => {
    const script = concatBytes(pushData(alice.xonly), Uint8Array.of(OP.OP_CHECKSIG));
    const s = scriptPathSpend(script);
    s.setWitness([concatBytes(schnorrSig(s.sighash(), alice.priv), Uint8Array.of(0))]);
    expect(scriptError(() => verifyInputScripts(s.tx, [s.prev], MANDATORY_SCRIPT_VERIFY_FLAGS))).to.equal("SCHNORR_SIG_HASHTYPE");
    s.setWitness([schnorrSig(s.sighash(0xffffffff, undefined, 0x81), alice.priv, 0x81)]);
    expect(() => verifyInputScripts(s.tx, [s.prev], MANDATORY_SCRIPT_VERIFY_FLAGS)).not.to.throw();
  });

  it("enforces the BIP-342 validation weight budget on executed signature checks", () => {
    const repeated = (n: number): Uint8Array => {
      const unit = concatBytes(Uint8Array.of(OP.OP_DUP), pushData(alice.xonly), Uint8Array.of(OP.OP_CHECKSIGVERIFY));
      return concatBytes(...Array.from({ length: n }, () => unit), Uint8Array.of(OP.OP_DROP, OP.OP_1));
    };
    const few = scriptPathSpend(repeated(3));
    few.setWitness([schnorrSig(few.sighash(), alice.priv)]);
    expect(() => verifyInputScripts(few.tx, [few.prev], MANDATORY_SCRIPT_VERIFY_FLAGS)).not.to.throw();
    const many = scriptPathSpend(repeated(20));
    many.setWitness([schnorrSig(many.sighash(), alice.priv)]);
    expect(scriptError(() => verifyInputScripts(many.tx, [many.prev], MANDATORY_SCRIPT_VERIFY_FLAGS))).to.equal("TAPSCRIPT_VALIDATION_WEIGHT");
  });

  it("rejects a script-path spend whose control block has the wrong parity bit", () => {
    const script = concatBytes(pushData(alice.xonly), Uint8Array.of(OP.OP_CHECKSIG));
    const s = scriptPathSpend(script);
    const witness = s.setWitness([schnorrSig(s.sighash(), alice.priv)]).inputs[0]!.witness;
    const flipped = Uint8Array.from(witness[2]!);
    flipped[0]! ^= 1;
    s.tx.inputs[0]!.witness = [witness[0]!, witness[1]!, flipped];
    expect(scriptError(() => verifyInputScripts(s.tx, [s.prev], MANDATORY_SCRIPT_VERIFY_FLAGS))).to.equal("WITNESS_PROGRAM_MISMATCH");
  });
});
