/**
 * Bitcoin Core's human wording of script errors (its ScriptErrorString), which bitcoind puts
 * inside a mempool refusal's `mempool-script-verify-flag-failed (…)` (Core 29:
 * `mandatory-script-verify-flag-failed (…)` / `non-mandatory-script-verify-flag (…)`); this devnet's
 * block validation puts it inside `mandatory-script-verify-flag-failed (…)`.
 * Keyed by the consensus engine's short names.
 */
import type { ScriptErrorName } from "../consensus/index.js";

const TEXT: Readonly<Partial<Record<ScriptErrorName, string>>> = {
  OK: "No error",
  UNKNOWN_ERROR: "unknown error",
  // Core has no separate error for bad script numbers: they surface as "unknown error"
  SCRIPTNUM: "unknown error",
  EVAL_FALSE: "Script evaluated without error but finished with a false/empty top stack element",
  OP_RETURN: "OP_RETURN was encountered",
  SCRIPT_SIZE: "Script is too big",
  PUSH_SIZE: "Push value size limit exceeded",
  OP_COUNT: "Operation limit exceeded",
  STACK_SIZE: "Stack size limit exceeded",
  SIG_COUNT: "Signature count negative or greater than pubkey count",
  PUBKEY_COUNT: "Pubkey count negative or limit exceeded",
  VERIFY: "Script failed an OP_VERIFY operation",
  EQUALVERIFY: "Script failed an OP_EQUALVERIFY operation",
  CHECKMULTISIGVERIFY: "Script failed an OP_CHECKMULTISIGVERIFY operation",
  CHECKSIGVERIFY: "Script failed an OP_CHECKSIGVERIFY operation",
  NUMEQUALVERIFY: "Script failed an OP_NUMEQUALVERIFY operation",
  BAD_OPCODE: "Opcode missing or not understood",
  DISABLED_OPCODE: "Attempted to use a disabled opcode",
  INVALID_STACK_OPERATION: "Operation not valid with the current stack size",
  INVALID_ALTSTACK_OPERATION: "Operation not valid with the current altstack size",
  UNBALANCED_CONDITIONAL: "Invalid OP_IF construction",
  NEGATIVE_LOCKTIME: "Negative locktime",
  UNSATISFIED_LOCKTIME: "Locktime requirement not satisfied",
  SIG_HASHTYPE: "Signature hash type missing or not understood",
  SIG_DER: "Non-canonical DER signature",
  MINIMALDATA: "Data push larger than necessary",
  SIG_PUSHONLY: "Only push operators allowed in signatures",
  SIG_HIGH_S: "Non-canonical signature: S value is unnecessarily high",
  SIG_NULLDUMMY: "Dummy CHECKMULTISIG argument must be zero",
  PUBKEYTYPE: "Public key is neither compressed or uncompressed",
  CLEANSTACK: "Stack size must be exactly one after execution",
  MINIMALIF: "OP_IF/NOTIF argument must be minimal",
  SIG_NULLFAIL: "Signature must be zero for failed CHECK(MULTI)SIG operation",
  DISCOURAGE_UPGRADABLE_NOPS: "NOPx reserved for soft-fork upgrades",
  DISCOURAGE_UPGRADABLE_WITNESS_PROGRAM: "Witness version reserved for soft-fork upgrades",
  DISCOURAGE_UPGRADABLE_TAPROOT_VERSION: "Taproot version reserved for soft-fork upgrades",
  DISCOURAGE_OP_SUCCESS: "OP_SUCCESSx reserved for soft-fork upgrades",
  DISCOURAGE_UPGRADABLE_PUBKEYTYPE: "Public key version reserved for soft-fork upgrades",
  WITNESS_PROGRAM_WRONG_LENGTH: "Witness program has incorrect length",
  WITNESS_PROGRAM_WITNESS_EMPTY: "Witness program was passed an empty witness",
  WITNESS_PROGRAM_MISMATCH: "Witness program hash mismatch",
  WITNESS_MALLEATED: "Witness requires empty scriptSig",
  WITNESS_MALLEATED_P2SH: "Witness requires only-redeemscript scriptSig",
  WITNESS_UNEXPECTED: "Witness provided for non-witness script",
  WITNESS_PUBKEYTYPE: "Using non-compressed keys in segwit",
  SCHNORR_SIG_SIZE: "Invalid Schnorr signature size",
  SCHNORR_SIG_HASHTYPE: "Invalid Schnorr signature hash type",
  SCHNORR_SIG: "Invalid Schnorr signature",
  TAPROOT_WRONG_CONTROL_SIZE: "Invalid Taproot control block size",
  TAPSCRIPT_VALIDATION_WEIGHT: "Too much signature validation relative to witness weight",
  TAPSCRIPT_CHECKMULTISIG: "OP_CHECKMULTISIG(VERIFY) is not available in tapscript",
  TAPSCRIPT_MINIMALIF: "OP_IF/NOTIF argument must be minimal in tapscript",
  TAPSCRIPT_EMPTY_PUBKEY: "Empty public key in tapscript",
  OP_CODESEPARATOR: "Using OP_CODESEPARATOR in non-witness script",
  SIG_FINDANDDELETE: "Signature is found in scriptCode",
};

/** Core's wording for a script error name (the name itself when unknown). */
export function scriptErrorString(name: string): string {
  return (TEXT as Record<string, string>)[name] ?? name;
}
