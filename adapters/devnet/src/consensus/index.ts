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
export { legacySighash, segwitV0Sighash, taprootSighash, SighashType } from "./sighash.js";
