/**
 * Script verification flags, bit for bit as Bitcoin Core's `SCRIPT_VERIFY_*`.
 * Combine with `|`; an unknown extra bit is ignored by the interpreter.
 */
export const ScriptFlags = {
  NONE: 0,
  P2SH: 1 << 0,
  STRICTENC: 1 << 1,
  DERSIG: 1 << 2,
  LOW_S: 1 << 3,
  NULLDUMMY: 1 << 4,
  SIGPUSHONLY: 1 << 5,
  MINIMALDATA: 1 << 6,
  DISCOURAGE_UPGRADABLE_NOPS: 1 << 7,
  CLEANSTACK: 1 << 8,
  CHECKLOCKTIMEVERIFY: 1 << 9,
  CHECKSEQUENCEVERIFY: 1 << 10,
  WITNESS: 1 << 11,
  DISCOURAGE_UPGRADABLE_WITNESS_PROGRAM: 1 << 12,
  MINIMALIF: 1 << 13,
  NULLFAIL: 1 << 14,
  WITNESS_PUBKEYTYPE: 1 << 15,
  CONST_SCRIPTCODE: 1 << 16,
  TAPROOT: 1 << 17,
  DISCOURAGE_UPGRADABLE_TAPROOT_VERSION: 1 << 18,
  DISCOURAGE_OP_SUCCESS: 1 << 19,
  DISCOURAGE_UPGRADABLE_PUBKEYTYPE: 1 << 20,
} as const;

/** Name of one script flag (`"P2SH"`, `"TAPROOT"`, …). */
export type ScriptFlagName = keyof typeof ScriptFlags;

/** Flags every block must satisfy (all buried soft forks: P2SH, BIP66, BIP65, BIP112, segwit, taproot). */
export const MANDATORY_SCRIPT_VERIFY_FLAGS: number =
  ScriptFlags.P2SH | ScriptFlags.DERSIG | ScriptFlags.NULLDUMMY | ScriptFlags.CHECKLOCKTIMEVERIFY |
  ScriptFlags.CHECKSEQUENCEVERIFY | ScriptFlags.WITNESS | ScriptFlags.TAPROOT;

/** Flags the mempool applies (Core's `STANDARD_SCRIPT_VERIFY_FLAGS`). */
export const STANDARD_SCRIPT_VERIFY_FLAGS: number =
  MANDATORY_SCRIPT_VERIFY_FLAGS | ScriptFlags.STRICTENC | ScriptFlags.MINIMALDATA |
  ScriptFlags.DISCOURAGE_UPGRADABLE_NOPS | ScriptFlags.CLEANSTACK | ScriptFlags.MINIMALIF | ScriptFlags.NULLFAIL |
  ScriptFlags.LOW_S | ScriptFlags.DISCOURAGE_UPGRADABLE_WITNESS_PROGRAM | ScriptFlags.WITNESS_PUBKEYTYPE |
  ScriptFlags.CONST_SCRIPTCODE | ScriptFlags.DISCOURAGE_UPGRADABLE_TAPROOT_VERSION |
  ScriptFlags.DISCOURAGE_OP_SUCCESS | ScriptFlags.DISCOURAGE_UPGRADABLE_PUBKEYTYPE;

/** Parses Core's comma-separated flag list (`"P2SH,WITNESS"`; `""` and `"NONE"` mean none). Throws on an unknown name. */
export function parseScriptFlags(text: string): number {
  let flags = 0;
  for (const raw of text.split(",")) {
    const name = raw.trim();
    if (name === "" || name === "NONE") continue;
    if (!(name in ScriptFlags)) throw new Error(`unknown script flag ${name}`);
    flags |= ScriptFlags[name as ScriptFlagName];
  }
  return flags;
}

/** True when `flag` is set in `flags`. */
export function hasFlag(flags: number, flag: number): boolean {
  return (flags & flag) !== 0;
}
