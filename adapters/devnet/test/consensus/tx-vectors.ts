/** Shared logic of tx_valid.json / tx_invalid.json: row decoding and Core's CheckTxScripts with flag variations. */
import { fromHex, reversed, toHex } from "../../src/consensus/bytes.js";
import { ScriptError } from "../../src/consensus/errors.js";
import { ScriptFlags, parseScriptFlags } from "../../src/consensus/flags.js";
import { PrecomputedTxData } from "../../src/consensus/sighash.js";
import { decodeTx, type SpentOutput, type Tx } from "../../src/consensus/tx.js";
import { verifyScript } from "../../src/consensus/verify-script.js";
import { TransactionSignatureChecker } from "../../src/consensus/verify-tx.js";
import { parseCoreAsm } from "./core-vectors.js";

/** A decoded test row: the transaction, what each input spends, and the flag string. */
export interface TxCase {
  tx: Tx;
  spent: SpentOutput[];
  flagText: string;
}

/** Decodes `[[prevouts…], txHex, flags]`; a prevout is `[txid, n, scriptPubKey asm, amount?]`. */
export function decodeTxRow(row: unknown[]): TxCase {
  const prevouts = new Map<string, SpentOutput>();
  for (const p of row[0] as unknown[][]) {
    const key = `${p[0] as string}:${(p[1] as number) >>> 0}`;
    prevouts.set(key, { scriptPubKey: parseCoreAsm(p[2] as string), amount: p.length >= 4 ? BigInt(p[3] as number) : 0n });
  }
  const tx = decodeTx(fromHex(row[1] as string));
  const spent = tx.inputs.map((i) => {
    const key = `${toHex(reversed(i.prevTxid))}:${i.prevVout}`;
    const s = prevouts.get(key);
    if (s === undefined) throw new Error(`row lists no prevout for ${key}`);
    return s;
  });
  return { tx, spent, flagText: row[2] as string };
}

/** Every named flag, as Core's test iterates them (mapFlagNames). */
export const ALL_FLAGS: number[] = Object.values(ScriptFlags).filter((f) => f !== 0);

/** Core's TrimFlags: drop flags whose prerequisites are missing. */
export function trimFlags(flags: number): number {
  let f = flags;
  if ((f & ScriptFlags.P2SH) === 0) f &= ~ScriptFlags.WITNESS;
  if ((f & ScriptFlags.WITNESS) === 0) f &= ~ScriptFlags.CLEANSTACK;
  return f;
}

/** Core's FillFlags: add the prerequisites of set flags. */
export function fillFlags(flags: number): number {
  let f = flags;
  if ((f & ScriptFlags.CLEANSTACK) !== 0) f |= ScriptFlags.WITNESS;
  if ((f & ScriptFlags.WITNESS) !== 0) f |= ScriptFlags.P2SH;
  return f;
}

/** Core's ExcludeIndividualFlags: each distinct valid combination with one flag removed. */
export function excludeIndividualFlags(flags: number): number[] {
  const out = new Set<number>();
  for (const f of ALL_FLAGS) {
    const without = trimFlags(flags & ~f);
    if (without !== flags) out.add(without);
  }
  return [...out];
}

export { parseScriptFlags };

/** Core's CheckTxScripts verdict: whether every input verifies under `flags` (stops at the first failure). */
export function scriptsValid(c: TxCase, flags: number): { valid: boolean; error?: string } {
  const data = new PrecomputedTxData(c.tx, c.spent);
  for (let i = 0; i < c.tx.inputs.length; i++) {
    const input = c.tx.inputs[i]!;
    const prev = c.spent[i]!;
    try {
      verifyScript(input.scriptSig, prev.scriptPubKey, input.witness, flags, new TransactionSignatureChecker(data, i, prev.amount));
    } catch (e) {
      if (e instanceof ScriptError) return { valid: false, error: `input ${i}: ${e.scriptError}` };
      throw e;
    }
  }
  return { valid: true };
}
