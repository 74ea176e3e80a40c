/**
 * Bitcoin consensus engine for the devnet: transaction codec, context-free and contextual
 * transaction checks, the script interpreter (legacy, P2SH, segwit v0, taproot) and sighashes.
 * Pure functions over bytes; verdicts are returned or thrown as {@link ConsensusError}.
 */
export { ConsensusError, ScriptError, type ScriptErrorName } from "./errors.js";
export {
  ScriptFlags, MANDATORY_SCRIPT_VERIFY_FLAGS, STANDARD_SCRIPT_VERIFY_FLAGS, parseScriptFlags, type ScriptFlagName,
} from "./flags.js";
export {
  type Tx, type TxIn, type TxOut, type SpentOutput,
  decodeTx, encodeTx, txid, wtxid, txidBytes, txWeight, txVsize, isCoinbase, hasWitness,
} from "./tx.js";
export { toHex, fromHex } from "./bytes.js";
export { checkTransaction } from "./tx-check.js";
export { isFinalTx, sequenceLocksSatisfied, calculateSequenceLocks, checkCoinbaseMaturity, COINBASE_MATURITY, type SequenceLocks } from "./locks.js";
export { sigOpCost, legacySigOpCount, p2shSigOpCount } from "./sigops.js";
export { verifyScript, type SignatureChecker } from "./verify-script.js";
export { verifyInputScripts, TransactionSignatureChecker, PrecomputedTxData } from "./verify-tx.js";
export {
  legacySighash, segwitV0Sighash, taprootSighash, taprootSigMessage, tapLeafHash, tapBranchHash, tapTweakHash, SighashType,
  type TapscriptContext,
} from "./sighash.js";
export { taprootOutputKey, taprootScriptPubKey, controlBlock, type TaprootOutput } from "./taproot.js";
export { checkInputValues, moneyRange, MAX_MONEY, MAX_BLOCK_WEIGHT } from "./tx-check.js";
export { scriptSigOpCount, witnessSigOpCount, MAX_BLOCK_SIGOPS_COST } from "./sigops.js";
export { SigVersion, type ExecutionData } from "./checker.js";
export { evalScript } from "./interpreter.js";
export { OP, opcodeName, isOpSuccess } from "./opcodes.js";
export { parseScript, isPushOnly, isP2SH, witnessProgram, pushData, type ScriptOp } from "./script.js";
