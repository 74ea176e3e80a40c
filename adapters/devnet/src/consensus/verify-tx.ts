/** Script validation of a whole transaction: the signature checker bound to one input, and all inputs at once. */
import { SigVersion, type ExecutionData, type SignatureChecker } from "./checker.js";
import { verifyEcdsa, verifySchnorr } from "./ecdsa.js";
import { ConsensusError, ScriptError } from "./errors.js";
import { PrecomputedTxData, legacySighash, segwitV0Sighash, taprootSighash } from "./sighash.js";
import type { SpentOutput, Tx } from "./tx.js";
import { verifyScript } from "./verify-script.js";

export { PrecomputedTxData } from "./sighash.js";

const LOCKTIME_THRESHOLD = 500_000_000;
const SEQUENCE_FINAL = 0xffffffff;
const SEQUENCE_DISABLE_FLAG = 0x80000000;
const SEQUENCE_TYPE_FLAG = 1 << 22;
const SEQUENCE_MASK = 0x0000ffff;

/** Core's `TransactionSignatureChecker`: checks signatures and locks of input `inputIndex` of `data.tx`. */
export class TransactionSignatureChecker implements SignatureChecker {
  constructor(
    readonly data: PrecomputedTxData,
    readonly inputIndex: number,
    /** Value of the spent output (needed by segwit sighashes). */
    readonly amount: bigint,
  ) {}

  checkEcdsaSignature(sig: Uint8Array, pubkey: Uint8Array, scriptCode: Uint8Array, sigVersion: SigVersion): boolean {
    if (sig.length === 0) return false;
    const hashType = sig[sig.length - 1]!;
    const der = sig.subarray(0, sig.length - 1);
    const hash = sigVersion === SigVersion.WITNESS_V0
      ? segwitV0Sighash(this.data, this.inputIndex, scriptCode, this.amount, hashType)
      : legacySighash(this.data.tx, this.inputIndex, scriptCode, hashType);
    return verifyEcdsa(der, pubkey, hash);
  }

  checkSchnorrSignature(sig: Uint8Array, pubkey: Uint8Array, sigVersion: SigVersion, exec: ExecutionData): void {
    if (sig.length !== 64 && sig.length !== 65) throw new ScriptError("SCHNORR_SIG_SIZE");
    let hashType = 0;
    if (sig.length === 65) {
      hashType = sig[64]!;
      if (hashType === 0) throw new ScriptError("SCHNORR_SIG_HASHTYPE");
    }
    const tapscript = sigVersion === SigVersion.TAPSCRIPT
      ? { leafHash: exec.tapleafHash!, codeSeparatorPos: exec.codeSeparatorPos }
      : undefined;
    const hash = taprootSighash(this.data, this.inputIndex, hashType, exec.annex, tapscript);
    if (hash === undefined) throw new ScriptError("SCHNORR_SIG_HASHTYPE");
    if (!verifySchnorr(sig.subarray(0, 64), pubkey, hash)) throw new ScriptError("SCHNORR_SIG");
  }

  checkLockTime(lockTime: number): boolean {
    const txLockTime = this.data.tx.locktime;
    if (!((txLockTime < LOCKTIME_THRESHOLD && lockTime < LOCKTIME_THRESHOLD) ||
      (txLockTime >= LOCKTIME_THRESHOLD && lockTime >= LOCKTIME_THRESHOLD))) return false;
    if (lockTime > txLockTime) return false;
    return this.data.tx.inputs[this.inputIndex]!.sequence !== SEQUENCE_FINAL;
  }

  checkSequence(sequence: number): boolean {
    const txSequence = this.data.tx.inputs[this.inputIndex]!.sequence;
    if (this.data.tx.version >>> 0 < 2) return false;
    if ((txSequence & SEQUENCE_DISABLE_FLAG) !== 0) return false;
    const mask = SEQUENCE_TYPE_FLAG | SEQUENCE_MASK;
    const txMasked = txSequence & mask;
    const masked = Number(BigInt(sequence) & BigInt(mask));
    if (!((txMasked < SEQUENCE_TYPE_FLAG && masked < SEQUENCE_TYPE_FLAG) ||
      (txMasked >= SEQUENCE_TYPE_FLAG && masked >= SEQUENCE_TYPE_FLAG))) return false;
    return masked <= txMasked;
  }
}

/**
 * Verifies every input's scripts against the outputs it spends (`spent[i]` for input `i`) under `flags`.
 * Throws the first failure as {@link ScriptError} with `inputIndex` set and the index in the message.
 */
export function verifyInputScripts(tx: Tx, spent: readonly SpentOutput[], flags: number): void {
  if (spent.length !== tx.inputs.length) {
    throw new ConsensusError("bad-txns-inputs-missingorspent", `need ${tx.inputs.length} spent outputs, got ${spent.length}`);
  }
  const data = new PrecomputedTxData(tx, spent);
  tx.inputs.forEach((input, i) => {
    const prev = spent[i]!;
    try {
      verifyScript(input.scriptSig, prev.scriptPubKey, input.witness, flags, new TransactionSignatureChecker(data, i, prev.amount));
    } catch (e) {
      if (e instanceof ScriptError) {
        throw new ScriptError(e.scriptError, `input ${i}: script verification failed: ${e.scriptError}`, i);
      }
      throw e;
    }
  });
}
