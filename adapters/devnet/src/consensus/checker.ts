/** The interface between the script interpreter and the transaction being validated. */

/** Which rules a script runs under (Core's `SigVersion`). */
export const SigVersion = { BASE: 0, WITNESS_V0: 1, TAPROOT: 2, TAPSCRIPT: 3 } as const;
/** One of {@link SigVersion}'s values. */
export type SigVersion = (typeof SigVersion)[keyof typeof SigVersion];

/** Per-input state of a taproot spend (Core's `ScriptExecutionData`). */
export interface ExecutionData {
  /** Tapleaf hash of the executing script (script path only). */
  tapleafHash?: Uint8Array;
  /** Opcode position of the last executed OP_CODESEPARATOR; 0xffffffff when none. */
  codeSeparatorPos: number;
  /** The annex (with its 0x50 tag) when present. */
  annex?: Uint8Array;
  /** BIP-342 signature-operation budget left. */
  validationWeightLeft: number;
}

/** What the interpreter asks of the spending transaction (Core's `BaseSignatureChecker`). */
export interface SignatureChecker {
  /** ECDSA check of `sig` (DER plus hash-type byte) under `pubkey`; false on any failure. */
  checkEcdsaSignature(sig: Uint8Array, pubkey: Uint8Array, scriptCode: Uint8Array, sigVersion: SigVersion): boolean;
  /** Schnorr check for taproot/tapscript; throws ScriptError (SCHNORR_SIG_SIZE, SCHNORR_SIG_HASHTYPE, SCHNORR_SIG). */
  checkSchnorrSignature(sig: Uint8Array, pubkey: Uint8Array, sigVersion: SigVersion, exec: ExecutionData): void;
  /** OP_CHECKLOCKTIMEVERIFY against the transaction's nLockTime. */
  checkLockTime(lockTime: number): boolean;
  /** OP_CHECKSEQUENCEVERIFY against the input's nSequence. */
  checkSequence(sequence: number): boolean;
}
