/**
 * Typed consensus failures. `code` uses Bitcoin Core's names: script errors are
 * `SCRIPT_ERR_<NAME>` (as in Core's `ScriptError_t`), transaction checks use Core's
 * reject reasons (`bad-txns-inputs-duplicate`, …), decoding failures use `TX_DECODE_<WHAT>`.
 */
export class ConsensusError extends Error {
  /** Machine-readable reason, named as in Bitcoin Core. */
  readonly code: string;
  /** Index of the failing input, when the failure belongs to one input. */
  readonly inputIndex: number | undefined;

  constructor(code: string, message?: string, inputIndex?: number) {
    super(message ?? code);
    this.name = "ConsensusError";
    this.code = code;
    this.inputIndex = inputIndex;
  }
}

/** A script evaluation failure; `code` is `SCRIPT_ERR_<name>`, `name` is Core's short name (e.g. `EVAL_FALSE`). */
export class ScriptError extends ConsensusError {
  /** Core's short error name without the `SCRIPT_ERR_` prefix, as used in `script_tests.json`. */
  readonly scriptError: ScriptErrorName;

  constructor(name: ScriptErrorName, message?: string, inputIndex?: number) {
    super(`SCRIPT_ERR_${name}`, message ?? `script verification failed: ${name}`, inputIndex);
    this.name = "ScriptError";
    this.scriptError = name;
  }
}

/** Every script error Core can report (names without the `SCRIPT_ERR_` prefix). */
export type ScriptErrorName =
  | "OK" | "UNKNOWN_ERROR" | "EVAL_FALSE" | "OP_RETURN"
  | "SCRIPT_SIZE" | "PUSH_SIZE" | "OP_COUNT" | "STACK_SIZE" | "SIG_COUNT" | "PUBKEY_COUNT"
  | "VERIFY" | "EQUALVERIFY" | "CHECKMULTISIGVERIFY" | "CHECKSIGVERIFY" | "NUMEQUALVERIFY"
  | "BAD_OPCODE" | "DISABLED_OPCODE" | "INVALID_STACK_OPERATION" | "INVALID_ALTSTACK_OPERATION"
  | "UNBALANCED_CONDITIONAL"
  | "NEGATIVE_LOCKTIME" | "UNSATISFIED_LOCKTIME"
  | "SIG_HASHTYPE" | "SIG_DER" | "MINIMALDATA" | "SIG_PUSHONLY" | "SIG_HIGH_S" | "SIG_NULLDUMMY"
  | "PUBKEYTYPE" | "CLEANSTACK" | "MINIMALIF" | "SIG_NULLFAIL"
  | "DISCOURAGE_UPGRADABLE_NOPS" | "DISCOURAGE_UPGRADABLE_WITNESS_PROGRAM"
  | "DISCOURAGE_UPGRADABLE_TAPROOT_VERSION" | "DISCOURAGE_OP_SUCCESS" | "DISCOURAGE_UPGRADABLE_PUBKEYTYPE"
  | "WITNESS_PROGRAM_WRONG_LENGTH" | "WITNESS_PROGRAM_WITNESS_EMPTY" | "WITNESS_PROGRAM_MISMATCH"
  | "WITNESS_MALLEATED" | "WITNESS_MALLEATED_P2SH" | "WITNESS_UNEXPECTED" | "WITNESS_PUBKEYTYPE"
  | "SCHNORR_SIG_SIZE" | "SCHNORR_SIG_HASHTYPE" | "SCHNORR_SIG" | "TAPROOT_WRONG_CONTROL_SIZE"
  | "TAPSCRIPT_VALIDATION_WEIGHT" | "TAPSCRIPT_CHECKMULTISIG" | "TAPSCRIPT_MINIMALIF" | "TAPSCRIPT_EMPTY_PUBKEY"
  | "OP_CODESEPARATOR" | "SIG_FINDANDDELETE" | "SCRIPTNUM";
